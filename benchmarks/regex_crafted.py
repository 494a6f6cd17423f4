"""Crafted-config slowdown: parse time of a crafted config per platform against a normal config of the
same size (issue 11: a crafted 330 KB config took an audit from 5 s to 84 s).

    python benchmarks/regex_crafted.py [--size 330000] [--run 2000] [--repeat 3]

The crafted config rewrites every line of the platform's seed config (tests/fuzz/seeds.py) with long
runs of spaces, digits, dotted digits or its last word repeated (tests/fuzz/crafted.py), `--run`
characters each, up to `--size` bytes; the normal one repeats the seed to the same size. Prints the best
of `--repeat` timings of each, their ratio, and the crafted time at 4x the run length (a linear reader
takes about 4x; a backtracking regex 16x or more). Not a test: tests/fuzz/test_crafted_linear.py holds
the ratio.
"""

from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.fuzz.crafted import TEXT_CONFIGS, crafted, normal
from tests.fuzz.harness import best_parse_seconds


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--size", type=int, default=330_000)
    parser.add_argument("--run", type=int, default=2_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--only", default="")
    args = parser.parse_args()
    logging.disable(logging.CRITICAL)
    print(f"{'config':58} {'normal':>8} {'crafted':>8} {'ratio':>6} {'4x run':>8} {'growth':>6}")
    for name, seed in TEXT_CONFIGS.items():
        if args.only not in name:
            continue
        plain = best_parse_seconds(seed, normal(seed, args.size), args.repeat)
        hostile = best_parse_seconds(seed, crafted(seed, args.run, args.size), args.repeat)
        longer = best_parse_seconds(seed, crafted(seed, args.run * 4, args.size * 4), 1)
        print(
            f"{name:58} {plain:7.3f}s {hostile:7.3f}s {hostile / plain:5.1f}x {longer:7.3f}s "
            f"{longer / hostile:5.1f}x",
            flush=True,
        )


if __name__ == "__main__":
    main()
