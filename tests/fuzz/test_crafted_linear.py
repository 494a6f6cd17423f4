"""Crafted configs cost time in proportion to their size (issue 11: a crafted 330 KB config took an
audit from 5 s to 84 s). Every line of each platform's seed config is rewritten with long runs of
spaces, digits, dotted digits or its last word repeated (tests/fuzz/crafted.py); the same lines with
runs eight times longer must take about eight times as long, not sixty-four (a backtracking regex). Ratios,
not absolute times: the floor keeps a millisecond's jitter from reading as a blow-up.
"""

from __future__ import annotations

import pytest

from tests.fuzz.crafted import CRAFTS, TEXT_CONFIGS, crafted_lines
from tests.fuzz.harness import best_parse_seconds

RUN, GROWTH = 250, 8
FLOOR = 0.01  # seconds: below this a ratio is noise
LINEAR = 20.0  # 8x the input: a linear reader lands near 8 (under load, some more), a quadratic one at 64


@pytest.mark.parametrize("craft", range(len(CRAFTS)), ids=[c.__name__.strip("_") for c in CRAFTS])
@pytest.mark.parametrize("name", sorted(TEXT_CONFIGS))
def test_crafted_config_time_grows_linearly(name: str, craft: int) -> None:
    """Every line of the seed crafted one way: each line meets each craft in one of five documents."""
    seed = TEXT_CONFIGS[name]
    small = best_parse_seconds(seed, crafted_lines(seed, craft, RUN), 2)
    large = best_parse_seconds(seed, crafted_lines(seed, craft, RUN * GROWTH), 2)
    assert large < LINEAR * max(small, FLOOR), (
        f"{name}: {small:.3f} s -> {large:.3f} s for {GROWTH}x the runs"
    )
