"""What the fuzzing found, one named case each (issue 11, hostile input): each failed before its fix
(an uncaught exception, or minutes of CPU) and must stay a located problem in bounded time."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from auditor.config.loader import load_config, parse_config
from auditor.errors import ConfigError
from auditor.facts import FactRecord
from auditor.normalize import NormalizeResult
from tests.fuzz.harness import check_result, registry
from tests.fuzz.seeds import GENERATED, SEEDS, Seed


def _key(fact: FactRecord) -> str:
    return json.dumps(fact.to_json(), sort_keys=True, default=str)


def _seed(fmt: str, name: str = "") -> Seed:
    return next(s for s in SEEDS if s.format == fmt and name in s.path.name)


def _run(seed: Seed, content: bytes) -> tuple[NormalizeResult, float]:
    start = time.perf_counter()
    result = check_result(registry().get(seed.format)(seed.capture(content)), seed.format)
    return result, time.perf_counter() - start


@pytest.mark.parametrize(
    ("fmt", "name"),
    [
        ("sonic.config-db", "batfish_acl"),
        ("eos.show-json", "access-lists"),
        ("cumulus.nvue-json", ""),
        ("napalm.get_vlans", ""),
        ("ufm.pkeys", ""),
    ],
)
def test_deep_json_is_refused_with_a_problem(fmt: str, name: str) -> None:
    """A RecursionError escaped the device JSON readers (json.loads on 3,000 nested lists)."""
    seed = _seed(fmt, name)
    result, _ = _run(seed, b'{"a": ' + b"[" * 3000 + b"]" * 3000 + b"}")
    assert result.facts == []
    assert any("nested deeper than" in p.message for p in result.problems), result.problems


@pytest.mark.parametrize(("fmt", "name"), [("eos.show-json", "flow-control"), ("ufm.pkeys", "")])
def test_a_number_of_thousands_of_digits_is_a_problem(fmt: str, name: str) -> None:
    """json.loads raises ValueError (not JSONDecodeError) past 4,300 digits: it escaped the normalizer."""
    result, _ = _run(_seed(fmt, name), b'{"x": ' + b"9" * 5000 + b"}")
    assert result.facts == [] and result.problems
    assert any("digits" in p.message for p in result.problems)


def test_junos_deep_nesting_is_refused_fast() -> None:
    """3,000 nested blocks: the path of every statement was rebuilt from the whole stack (quadratic);
    the fuzzer's example did not finish in minutes."""
    seed = _seed("junos.config", "ai_leaf")
    result, seconds = _run(seed, seed.content() + b"a {\n" * 3000 + b"b;\n" + b"}\n" * 3000)
    assert seconds < 2.0
    assert any("nested deeper than 64 levels" in p.message for p in result.problems)
    assert result.facts == []  # a config Junos would never print is not half-read


@pytest.mark.parametrize("line", [b'"\\' * 20_000, b"/*" * 20_000, b'"' + b"a" * 40_000])
def test_junos_unterminated_strings_and_comments_are_linear(line: bytes) -> None:
    """The tokenizer retried an unterminated quote or comment from every later one on the line."""
    seed = _seed("junos.config", "firewall")
    base, _ = _run(seed, seed.content())
    result, seconds = _run(seed, seed.content() + b"set system host-name " + line + b"\n")
    assert seconds < 2.0
    assert {_key(f) for f in base.facts} <= {_key(f) for f in result.facts}


def test_junos_statement_of_too_many_words_is_left_out_by_name() -> None:
    seed = _seed("junos.config", "firewall")
    result, _ = _run(seed, seed.content() + b"set interfaces " + b"x " * 5000 + b"\n")
    assert any("5002 words" in p.message and p.line for p in result.problems), result.problems


def test_flow_log_line_of_spaces_is_linear_and_reported() -> None:
    """DuckDB's reject store writes one row per surplus field, each holding the whole line: a line of
    60,000 spaces took 14 s (200,000: 151 s). Such files now go to the reference reader."""
    seed = _seed("aws.flowlog", "flows.log")
    base, _ = _run(seed, seed.content())
    result, seconds = _run(seed, seed.content() + b" " * 200_000 + b"\n" + b"x " * 50_000 + b"\n")
    assert seconds < 5.0
    flows = sorted(_key(f) for f in base.facts if f.kind.value == "flow_conversation")
    assert flows == sorted(_key(f) for f in result.facts if f.kind.value == "flow_conversation")
    assert any("not a flow record" in p.message and p.line == 16 for p in result.problems), result.problems


@pytest.mark.parametrize(
    ("content", "says"),
    [
        (b"\x00intent: {}\n", "not valid YAML"),
        (b"intent: " + b"9" * 8000 + b"\n", "digits"),
    ],
)
def test_config_errors_of_every_kind_are_config_errors(tmp_path: Path, content: bytes, says: str) -> None:
    """A NUL byte (the reader refuses it before parsing) and a 8,000-digit integer escaped as a
    ReaderError and a ValueError: a traceback and exit 1 instead of one line and exit 2."""
    path = tmp_path / "auditor.yaml"
    path.write_bytes(content)
    with pytest.raises(ConfigError) as info:
        load_config(path)
    assert says in str(info.value) and str(path) in str(info.value)


@pytest.mark.parametrize(
    "content",
    [
        b'{"FlowLogAggregate": {"version": 1, "facts": ' + b"[" * 5000 + b"]" * 5000 + b"}}",
        b'{"FlowLogAggregate": {"version": 1, "facts": 5}}',
        b'{"FlowLogAggregate": {"version": 1, "problems": 7}}',
        b'{"FlowLogAggregate": {"version": 1' + b"0" * 5000 + b"}}",
    ],
    ids=["deep", "facts-not-a-list", "problems-not-a-list", "5000-digits"],
)
def test_flow_log_aggregate_of_any_shape_is_a_problem(content: bytes) -> None:
    """A stored aggregate document re-normalized (offline, from an export) raised RecursionError,
    TypeError or ValueError out of the normalizer."""
    seed = Seed("aws.flowlog.aggregate", GENERATED["aws.flowlog.aggregate"][0], {})
    result, _ = _run(seed, content)
    assert result.facts == [] and result.covers == set() and result.problems


@pytest.mark.parametrize(
    "fmt", ["sonic.frr", "eos.running-config", "ios.running-config", "onyx.running-config"]
)
def test_a_config_indented_a_thousand_levels_deep_is_read(fmt: str) -> None:
    """The shared indentation tree was frozen recursively: 1,000 levels raised RecursionError out of
    the FRR reader. The tree now stops deepening at config_tree.MAX_DEPTH; every line is still read."""
    seed = _seed(fmt)
    deep = b"".join(b"  " * n + b"k\n" for n in range(1_000))
    base, _ = _run(seed, seed.content())
    result, seconds = _run(seed, deep + seed.content())
    assert seconds < 5.0
    assert {_key(f) for f in base.facts if f.kind.value != "device"} <= {_key(f) for f in result.facts}


def test_config_text_with_lone_surrogates_is_a_config_error() -> None:
    """libyaml cannot encode lone surrogates: a UnicodeEncodeError escaped parse_config (the soak)."""
    with pytest.raises(ConfigError, match="not valid text"):
        parse_config("intent: {}\nsources: {}\nx: \udcff\n", source="given.yaml")
