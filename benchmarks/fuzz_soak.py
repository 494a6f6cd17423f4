"""Fuzz soak: many more mutated inputs per normalizer (and the config loader) than the test suite runs.

    python benchmarks/fuzz_soak.py [--examples 300] [--only junos] [--no-trace]

The same seeds, mutations and contract as tests/fuzz: every answer must be facts and/or located
problems (the config loader: a config or a ConfigError), never an exception. Prints, per format, the
examples run, the slowest example (untraced seconds, its input size and mutations), the highest Python
heap peak (tracemalloc, on a second call) and its
ratio to the input size, and every distinct exception (type and where it was raised) with the
mutations that caused it. Not a test: a measurement to report, and a net for what the suite's few
examples miss.
"""

from __future__ import annotations

import argparse
import contextlib
import logging
import sys
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from auditor.config.loader import parse_config
from auditor.errors import ConfigError
from tests.fuzz.harness import Measured, check_result, measured, memory_bound, registry, timed_then_traced
from tests.fuzz.mutations import mutate, mutations
from tests.fuzz.seeds import GENERATED, SEEDS, Seed
from tests.fuzz.test_config import CONFIG_SEEDS

T = TypeVar("T")


@dataclass
class Tally:
    examples: int = 0
    slowest: tuple[float, int] = (0.0, 0)
    peak: tuple[int, int] = (0, 0)
    over_bounds: int = 0
    crashes: dict[str, str] = field(default_factory=dict)
    slowest_steps: str = ""

    def add(self, seconds: float, peak: int, size: int, steps: object = None) -> None:
        self.examples += 1
        if (seconds, size) > self.slowest:
            self.slowest_steps = repr(steps)[:300]
        self.slowest = max(self.slowest, (seconds, size))
        self.peak = max(self.peak, (peak, size))
        if seconds > 5.0 or peak > memory_bound(size):
            self.over_bounds += 1


def _timed_then_traced(call: Callable[[], T], trace: bool) -> tuple[T, Measured]:
    if trace:
        return timed_then_traced(call)
    return measured(call, trace=False)


def _seeds(fmt: str) -> list[tuple[Seed, bytes]]:
    if fmt in GENERATED:
        path, build = GENERATED[fmt]
        return [(Seed(fmt, path, {"platform": "eos"}), build())]
    return [(s, s.content()) for s in SEEDS if s.format == fmt]


def _crash(tally: Tally, exc: BaseException, steps: object) -> None:
    where = traceback.extract_tb(exc.__traceback__)[-1]
    key = f"{type(exc).__name__} at {Path(where.filename).name}:{where.lineno}"
    tally.crashes.setdefault(key, f"{str(exc)[:120]} <- {steps!r}"[:400])


def soak_format(fmt: str, examples: int, trace: bool) -> Tally:
    tally = Tally()
    normalize = registry().get(fmt)

    @settings(
        max_examples=examples,
        deadline=None,
        database=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @given(data=st.data())
    def run(data: st.DataObject) -> None:
        seed, content = data.draw(st.sampled_from(_seeds(fmt)))
        steps = data.draw(st.lists(mutations(), min_size=1, max_size=3))
        fuzzed = mutate(content, steps)
        try:
            result, used = _timed_then_traced(lambda: normalize(seed.capture(fuzzed)), trace)
            check_result(result, fmt)
        except Exception as exc:
            _crash(tally, exc, steps)
            return
        tally.add(used.seconds, used.peak_bytes, len(fuzzed), (seed.path.name, steps))

    run()
    return tally


def soak_config(examples: int, trace: bool) -> Tally:
    tally = Tally()

    @settings(
        max_examples=examples,
        deadline=None,
        database=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @given(data=st.data())
    def run(data: st.DataObject) -> None:
        path = data.draw(st.sampled_from(CONFIG_SEEDS))
        steps = data.draw(st.lists(mutations(), min_size=1, max_size=3))
        fuzzed = mutate(path.read_bytes(), steps)
        text = fuzzed.decode("utf-8", errors="surrogateescape")

        def load() -> None:
            with contextlib.suppress(ConfigError):
                parse_config(text, source="fuzz.yaml", base_dir=path.parent)

        try:
            _, used = _timed_then_traced(load, trace)
        except Exception as exc:
            _crash(tally, exc, steps)
            return
        tally.add(used.seconds, used.peak_bytes, len(fuzzed))

    run()
    return tally


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--examples", type=int, default=300)
    parser.add_argument("--only", default="", help="formats containing this text (or 'config')")
    parser.add_argument("--no-trace", action="store_true", help="skip tracemalloc (faster, no heap figure)")
    args = parser.parse_args()
    logging.disable(logging.CRITICAL)  # normalizers log each contained failure; the tally counts them
    trace = not args.no_trace
    formats = sorted({s.format for s in SEEDS} | set(GENERATED))
    rows: list[tuple[str, Tally]] = []
    for fmt in [f for f in formats if args.only in f]:
        rows.append((fmt, soak_format(fmt, args.examples, trace)))
        _print(*rows[-1])
    if args.only in "config":
        rows.append(("auditor.yaml", soak_config(args.examples, trace)))
        _print(*rows[-1])
    crashed = [name for name, t in rows if t.crashes or t.over_bounds]
    clean = sum(t.examples for _, t in rows)
    print(f"\n{len(rows)} targets, {clean} clean examples; problems in: {crashed or 'none'}")


def _print(name: str, t: Tally) -> None:
    seconds, at = t.slowest
    peak, size = t.peak
    ratio = f"{peak / size:.0f}x" if size else "-"
    print(
        f"{name:32} {t.examples:5} ok  slowest {seconds:6.2f} s ({at / 1024:7.0f} KiB)  "
        f"heap peak {peak / 2**20:7.1f} MiB ({ratio:>5} of {size / 1024:.0f} KiB)  "
        f"over bounds {t.over_bounds}",
        flush=True,
    )
    if t.slowest[0] > 1.0:
        print(f"    slowest: {t.slowest_steps}", flush=True)
    for key, example in t.crashes.items():
        print(f"    CRASH {key}: {example}", flush=True)


if __name__ == "__main__":
    main()
