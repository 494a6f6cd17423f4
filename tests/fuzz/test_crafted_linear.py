"""Crafted configs cost time in proportion to their size (issue 11: a crafted 330 KB config took an
audit from 5 s to 84 s). Every line of each platform's seed config is rewritten with long runs of
spaces, digits, dotted digits or its last word repeated (tests/fuzz/crafted.py); the same lines with
runs eight times longer must take about eight times as long, not sixty-four (a backtracking regex). Ratios,
not absolute times: the floor keeps a millisecond's jitter from reading as a blow-up.
"""

from __future__ import annotations

import time

import pytest

from tests.fuzz.crafted import CRAFTS, TEXT_CONFIGS, crafted_lines
from tests.fuzz.harness import registry
from tests.fuzz.seeds import Seed

RUN, GROWTH = 250, 8
FLOOR = 0.01  # seconds: below this a ratio is noise
LINEAR = 20.0  # 8x the input: a linear reader lands near 8 (under load, some more), a quadratic one at 64


def _best(seed: Seed, content: bytes, repeat: int = 2) -> float:
    normalize = registry().get(seed.format)
    capture = seed.capture(content)
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        normalize(capture)
        best = min(best, time.perf_counter() - start)
    return best


@pytest.mark.parametrize("craft", range(len(CRAFTS)), ids=[c.__name__.strip("_") for c in CRAFTS])
@pytest.mark.parametrize("name", sorted(TEXT_CONFIGS))
def test_crafted_config_time_grows_linearly(name: str, craft: int) -> None:
    """Every line of the seed crafted one way: each line meets each craft in one of five documents."""
    seed = TEXT_CONFIGS[name]
    small = _best(seed, crafted_lines(seed, craft, RUN))
    large = _best(seed, crafted_lines(seed, craft, RUN * GROWTH))
    assert large < LINEAR * max(small, FLOOR), (
        f"{name}: {small:.3f} s -> {large:.3f} s for {GROWTH}x the runs"
    )
