"""Run one fuzzed input through a normalizer and hold it to the contract: facts or named problems, no
exception, bounded time and memory.

Time is wall-clock around an untraced call; memory is tracemalloc's peak of Python allocations during a
second call (DuckDB's native memory in the flow-log engine is bounded by its own memory_limit instead).
"""

from __future__ import annotations

import time
import tracemalloc
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from auditor.normalize import NormalizeResult, NormalizerRegistry, Problem
from tests.fuzz.seeds import Seed

T = TypeVar("T")

# Generous per-example bounds: a real audit reads each of these inputs in milliseconds; the point is
# to catch the runaway cases (alias bombs, catastrophic backtracking, quadratic loops), not to time.
MAX_SECONDS = 5.0
BASE_BYTES = 64 * 1024 * 1024
BYTES_PER_INPUT_BYTE = 60

_REGISTRY: NormalizerRegistry | None = None


def registry() -> NormalizerRegistry:
    global _REGISTRY  # noqa: PLW0603 - one registry per test process: the parsers load once
    if _REGISTRY is None:
        _REGISTRY = NormalizerRegistry().load_entry_points()
    return _REGISTRY


@dataclass(frozen=True)
class Measured:
    seconds: float
    peak_bytes: int


def measured(call: Callable[[], T], *, trace: bool = True) -> tuple[T, Measured]:
    """The call's value, its wall time and (when traced) its peak Python allocation."""
    if trace:
        tracemalloc.start()
    start = time.perf_counter()
    try:
        value = call()
    finally:
        seconds = time.perf_counter() - start
        peak = tracemalloc.get_traced_memory()[1] if trace else 0
        if trace:
            tracemalloc.stop()
    return value, Measured(seconds, peak)


def timed_then_traced(call: Callable[[], T]) -> tuple[T, Measured]:
    """Wall time of an untraced call (tracemalloc slows allocation-heavy parsers tenfold and more, which
    would read as a slowdown), then the heap peak of a second, traced call of the same input."""
    value, timed = measured(call, trace=False)
    _, traced = measured(call, trace=True)
    return value, Measured(timed.seconds, traced.peak_bytes)


def best_parse_seconds(seed: Seed, content: bytes, repeat: int) -> float:
    """The fastest of `repeat` untraced parses of `content` as `seed`'s format: the least noisy time on
    a shared machine, for ratios between sizes (tests) and timings (benchmarks)."""
    normalize = registry().get(seed.format)
    capture = seed.capture(content)
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        normalize(capture)
        best = min(best, time.perf_counter() - start)
    return best


def memory_bound(size: int) -> int:
    return BASE_BYTES + BYTES_PER_INPUT_BYTE * size


def check_result(result: object, fmt: str) -> NormalizeResult:
    """A normalizer's answer must be a NormalizeResult whose problems are located Problems."""
    assert isinstance(result, NormalizeResult), f"{fmt} returned {type(result).__name__}"
    for problem in result.problems:
        assert isinstance(problem, Problem), f"{fmt} gave a problem of type {type(problem).__name__}"
        assert problem.origin and problem.message, f"{fmt} gave an unnamed problem: {problem!r}"
    return result


def check_bounds(m: Measured, size: int, what: str) -> None:
    assert m.seconds < MAX_SECONDS, f"{what}: {m.seconds:.2f} s on {size} bytes"
    assert m.peak_bytes < memory_bound(size), f"{what}: peak {m.peak_bytes / 1e6:.0f} MB on {size} bytes"
