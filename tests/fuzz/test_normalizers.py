"""Fuzzing every registered normalizer with mutations of real captures (issue 11, hostile input).

For each capture format, hypothesis mutates one of its seed files (byte flips, truncation, duplicated
blocks, deep nesting, huge tokens, control characters, invalid UTF-8, a line repeated) and the
normalizer must answer with facts and/or located problems: never an exception, within a bounded time
and Python heap. A failure prints the seed and the mutations, which replay it exactly.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from tests.fuzz.harness import check_bounds, check_result, registry, timed_then_traced
from tests.fuzz.mutations import Mutation, mutate, mutations
from tests.fuzz.seeds import GENERATED, SEEDS, Seed

FORMATS = sorted({s.format for s in SEEDS} | set(GENERATED))
FUZZ = settings(
    max_examples=8,
    deadline=None,  # measured inside the test, against the bounds of harness.py
    phases=[Phase.explicit, Phase.reuse, Phase.generate, Phase.shrink],  # no explain: it traces lines
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


def _seeds(fmt: str) -> list[tuple[Seed, bytes]]:
    if fmt in GENERATED:
        path, build = GENERATED[fmt]
        return [(Seed(fmt, path, {"platform": "eos"}), build())]
    return [(s, s.content()) for s in SEEDS if s.format == fmt]


def test_seeds_cover_every_registered_format() -> None:
    """A format added to the registry without a seed here would never be fuzzed."""
    assert set(FORMATS) == set(registry()), set(registry()) ^ set(FORMATS)


# Stored and chained but read for no facts on their own (NAPALM's interface getters are read together,
# in a `napalm.getters` bundle, which is fuzzed too).
EVIDENCE_ONLY = {
    "aws.flowlog.object",
    "napalm.get_config",
    "napalm.get_interfaces",
    "napalm.get_interfaces_ip",
    "onyx.show-text",  # kept as evidence: no reader for Onyx show text yet
}


def test_every_seed_is_read_unmutated() -> None:
    """The seeds are real input the normalizers read: mutations start from something that works."""
    for fmt in FORMATS:
        for seed, content in _seeds(fmt):
            result = check_result(registry().get(fmt)(seed.capture(content)), fmt)
            if fmt not in EVIDENCE_ONLY:
                assert result.facts or result.covers, f"{seed.name} read as nothing: {result.problems[:3]}"


@pytest.mark.parametrize("fmt", FORMATS)
@FUZZ
@given(data=st.data())
def test_mutated_input_gives_facts_or_named_problems(fmt: str, data: st.DataObject) -> None:
    seed, content = data.draw(st.sampled_from(_seeds(fmt)), label="seed")
    steps: list[Mutation] = data.draw(st.lists(mutations(), min_size=1, max_size=3), label="mutations")
    fuzzed = mutate(content, steps)
    normalize = registry().get(fmt)
    result, used = timed_then_traced(lambda: normalize(seed.capture(fuzzed)))
    check_result(result, fmt)
    check_bounds(used, len(fuzzed), f"{seed.name} {steps!r}"[:300])
