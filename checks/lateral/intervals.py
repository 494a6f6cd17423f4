"""Canonical sets of integer intervals: the one primitive behind address sets and port sets.

Reasoning on intervals (not packets) keeps the analysis tractable: a union of any number of CIDRs or
port ranges stays a short sorted tuple of disjoint, non-adjacent closed intervals.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

Span = tuple[int, int]  # closed interval [lo, hi]


def _canonical(spans: Iterable[Span]) -> tuple[Span, ...]:
    merged: list[list[int]] = []
    for lo, hi in sorted(s for s in spans if s[0] <= s[1]):
        if merged and lo <= merged[-1][1] + 1:
            merged[-1][1] = max(merged[-1][1], hi)
        else:
            merged.append([lo, hi])
    return tuple((lo, hi) for lo, hi in merged)


def _merge(a: tuple[Span, ...], b: tuple[Span, ...]) -> tuple[Span, ...]:
    """Union of two canonical span lists in one linear pass (no sort)."""
    out: list[list[int]] = []
    i = j = 0
    while i < len(a) or j < len(b):
        if j >= len(b) or (i < len(a) and a[i][0] <= b[j][0]):
            lo, hi = a[i]
            i += 1
        else:
            lo, hi = b[j]
            j += 1
        if out and lo <= out[-1][1] + 1:
            out[-1][1] = max(out[-1][1], hi)
        else:
            out.append([lo, hi])
    return tuple((lo, hi) for lo, hi in out)


@dataclass(frozen=True)
class IntervalSet:
    """An immutable set of integers stored as sorted, disjoint, non-adjacent closed intervals."""

    spans: tuple[Span, ...] = ()

    @classmethod
    def of(cls, *spans: Span) -> IntervalSet:
        return cls(_canonical(spans))

    @classmethod
    def from_spans(cls, spans: Iterable[Span]) -> IntervalSet:
        return cls(_canonical(spans))

    def __bool__(self) -> bool:
        return bool(self.spans)

    def union(self, other: IntervalSet) -> IntervalSet:
        if not other.spans:
            return self
        if not self.spans:
            return other
        return IntervalSet(_merge(self.spans, other.spans))

    def intersect(self, other: IntervalSet) -> IntervalSet:
        out: list[Span] = []
        a, b = self.spans, other.spans
        i = j = 0
        while i < len(a) and j < len(b):
            lo = max(a[i][0], b[j][0])
            hi = min(a[i][1], b[j][1])
            if lo <= hi:
                out.append((lo, hi))
            if a[i][1] < b[j][1]:
                i += 1
            else:
                j += 1
        return IntervalSet(tuple(out))

    def subtract(self, other: IntervalSet) -> IntervalSet:
        if not other.spans or not self.spans:
            return self
        out: list[Span] = []
        j = 0
        b = other.spans
        for lo, hi in self.spans:
            cur = lo
            while j < len(b) and b[j][1] < cur:
                j += 1
            k = j
            while k < len(b) and b[k][0] <= hi:
                if b[k][0] > cur:
                    out.append((cur, b[k][0] - 1))
                cur = max(cur, b[k][1] + 1)
                if cur > hi:
                    break
                k += 1
            if cur <= hi:
                out.append((cur, hi))
        return IntervalSet(tuple(out))

    def issubset(self, other: IntervalSet) -> bool:
        return not self.subtract(other).spans

    def overlaps(self, other: IntervalSet) -> bool:
        return bool(self.intersect(other).spans)

    def contains(self, value: int) -> bool:
        return any(lo <= value <= hi for lo, hi in self.spans)

    def size(self) -> int:
        return sum(hi - lo + 1 for lo, hi in self.spans)


EMPTY = IntervalSet()
