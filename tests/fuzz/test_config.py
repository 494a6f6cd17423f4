"""Fuzzing the audit-config loader and the bounded YAML/JSON reader (issue 11, hostile input).

A broken or hostile `auditor.yaml` must end in one ConfigError naming the file (exit 2 at the CLI),
never a traceback, within bounded time and memory; auditor.safeload must refuse with its own named
errors, never a RecursionError or a blown heap.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from auditor import safeload
from auditor.config.loader import load_config
from auditor.config.models import AuditConfig
from auditor.errors import ConfigError
from tests.fuzz.harness import check_bounds, timed_then_traced
from tests.fuzz.mutations import Mutation, mutate, mutations
from tests.fuzz.seeds import SEEDS

ROOT = Path(__file__).resolve().parents[2]
CONFIG_SEEDS = sorted(ROOT.glob("examples/*/auditor.yaml"))
FUZZ = settings(
    max_examples=25,
    deadline=None,
    phases=[Phase.explicit, Phase.reuse, Phase.generate, Phase.shrink],  # no explain: it traces lines
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


def test_config_seeds_load_unmutated() -> None:
    assert CONFIG_SEEDS, "no example configs to start from"
    for path in CONFIG_SEEDS:
        assert isinstance(load_config(path), AuditConfig)


@FUZZ
@given(
    seed=st.sampled_from(CONFIG_SEEDS),
    steps=st.lists(mutations(max_token=50_000, max_depth=2_000), min_size=1, max_size=3),
)
def test_mutated_config_is_a_config_or_one_config_error(seed: Path, steps: list[Mutation]) -> None:
    fuzzed = mutate(seed.read_bytes(), steps)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "auditor.yaml"
        path.write_bytes(fuzzed)

        def load() -> AuditConfig | ConfigError:
            try:
                return load_config(path)
            except ConfigError as exc:
                return exc

        outcome, used = timed_then_traced(load)
    check_bounds(used, len(fuzzed), f"{seed.name} {steps!r}"[:300])
    if isinstance(outcome, ConfigError):
        assert str(path) in str(outcome), f"the error does not name the file: {outcome}"
    else:
        assert isinstance(outcome, AuditConfig)


_YAML_SEEDS = [*CONFIG_SEEDS, *(s.path for s in SEEDS if s.path.suffix in (".yaml", ".yml"))]
_JSON_SEEDS = [s.path for s in SEEDS if s.path.suffix == ".json"]


@FUZZ
@given(seed=st.sampled_from(_YAML_SEEDS), steps=st.lists(mutations(), min_size=1, max_size=3))
def test_safeload_yaml_refuses_by_name(seed: Path, steps: list[Mutation]) -> None:
    text = mutate(seed.read_bytes(), steps).decode("utf-8", errors="replace")

    def load() -> object:
        try:
            return safeload.load_yaml_all(text)
        except (safeload.LimitExceeded, yaml.YAMLError) as exc:
            return exc

    _, used = timed_then_traced(load)
    check_bounds(used, len(text), f"{seed.name} {steps!r}"[:300])


@FUZZ
@given(seed=st.sampled_from(_JSON_SEEDS), steps=st.lists(mutations(), min_size=1, max_size=3))
def test_safeload_json_refuses_by_name(seed: Path, steps: list[Mutation]) -> None:
    data = mutate(seed.read_bytes(), steps)

    def load() -> object:
        try:
            return safeload.load_json(data)
        except (safeload.LimitExceeded, json.JSONDecodeError, UnicodeDecodeError) as exc:
            return exc
        except ValueError as exc:  # Python's own bound: a number of more than 4,300 digits
            if "digits" not in str(exc):
                raise
            return exc

    _, used = timed_then_traced(load)
    check_bounds(used, len(data), f"{seed.name} {steps!r}"[:300])


def _depth_by_bytes(data: bytes) -> int:
    """The deepest nesting outside strings, byte by byte: the reference for the fast check."""
    depth = deepest = 0
    in_string = escaped = False
    for byte in data:
        if in_string:
            if escaped:
                escaped = False
            elif byte == 0x5C:
                escaped = True
            elif byte == 0x22:
                in_string = False
        elif byte == 0x22:
            in_string = True
        elif byte in b"[{":
            depth += 1
            deepest = max(deepest, depth)
        elif byte in b"]}":
            depth -= 1
    return deepest


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from([b"[", b"]", b"{", b"}", b'"', b"\\", b"a", b"\n", b'\\"']), max_size=80))
def test_json_depth_check_agrees_with_a_byte_walk(parts: list[bytes]) -> None:
    data = b"".join(parts)
    limits = safeload.Limits(max_depth=3)
    deep = _depth_by_bytes(data) > limits.max_depth
    if deep:
        with pytest.raises(safeload.LimitExceeded) as info:
            safeload.check_json_depth(data, limits)
        assert info.value.line is not None and 1 <= info.value.line <= data.count(b"\n") + 1
    else:
        safeload.check_json_depth(data, limits)
