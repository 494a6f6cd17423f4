"""Sets of IP addresses (IPv4 and IPv6 kept apart), built from CIDRs and compared as intervals."""

from __future__ import annotations

import functools
import ipaddress
from collections.abc import Iterable
from dataclasses import dataclass

from checks.lateral.intervals import EMPTY, IntervalSet
from checks.netutil import v4_prefix

V4_MAX = 2**32 - 1
V6_MAX = 2**128 - 1


def _span(net: ipaddress.IPv4Network | ipaddress.IPv6Network) -> tuple[int, int]:
    return int(net.network_address), int(net.broadcast_address)


@dataclass(frozen=True)
class IPSet:
    """A set of addresses. Families never mix: 0.0.0.0/0 does not contain ::1."""

    v4: IntervalSet = EMPTY
    v6: IntervalSet = EMPTY

    @classmethod
    def parse(cls, *cidrs: str) -> IPSet:
        """From CIDRs or single addresses; unparsable items are skipped (callers validate first)."""
        if len(cidrs) == 1:
            return _parse_one(cidrs[0])
        v4: list[tuple[int, int]] = []
        v6: list[tuple[int, int]] = []
        for text in cidrs:
            one = _parse_one(text)
            v4.extend(one.v4.spans)
            v6.extend(one.v6.spans)
        return cls(IntervalSet.from_spans(v4), IntervalSet.from_spans(v6))

    @classmethod
    def of_network(cls, net: ipaddress.IPv4Network | ipaddress.IPv6Network) -> IPSet:
        """The same set as `parse(str(net))`, without printing and re-parsing the network."""
        return cls.of_span(int(net.network_address), net.prefixlen, net.max_prefixlen)

    @classmethod
    def of_span(cls, address: int, prefixlen: int, bits: int) -> IPSet:
        """The network of `address`/`prefixlen` (host bits ignored, as strict=False parsing does);
        `bits` is 32 for IPv4, 128 for IPv6."""
        host = (1 << (bits - prefixlen)) - 1
        span = IntervalSet(((address & ~host, (address & ~host) | host),))
        return cls(span) if bits == 32 else cls(EMPTY, span)

    @classmethod
    def everything(cls) -> IPSet:
        return cls(IntervalSet.of((0, V4_MAX)), IntervalSet.of((0, V6_MAX)))

    @classmethod
    def all_v4(cls) -> IPSet:
        return cls(IntervalSet.of((0, V4_MAX)))

    def __bool__(self) -> bool:
        return bool(self.v4) or bool(self.v6)

    def union(self, other: IPSet) -> IPSet:
        return IPSet(self.v4.union(other.v4), self.v6.union(other.v6))

    def intersect(self, other: IPSet) -> IPSet:
        return IPSet(self.v4.intersect(other.v4), self.v6.intersect(other.v6))

    def subtract(self, other: IPSet) -> IPSet:
        return IPSet(self.v4.subtract(other.v4), self.v6.subtract(other.v6))

    def issubset(self, other: IPSet) -> bool:
        return self.v4.issubset(other.v4) and self.v6.issubset(other.v6)

    def overlaps(self, other: IPSet) -> bool:
        return self.v4.overlaps(other.v4) or self.v6.overlaps(other.v6)

    def cidrs(self) -> list[str]:
        """The smallest list of CIDRs covering exactly this set, for humans."""
        out: list[str] = []
        for lo, hi in self.v4.spans:
            out.extend(
                str(n)
                for n in ipaddress.summarize_address_range(
                    ipaddress.IPv4Address(lo), ipaddress.IPv4Address(hi)
                )
            )
        for lo, hi in self.v6.spans:
            out.extend(
                str(n)
                for n in ipaddress.summarize_address_range(
                    ipaddress.IPv6Address(lo), ipaddress.IPv6Address(hi)
                )
            )
        return out

    def describe(self, limit: int = 4) -> str:
        """Up to `limit` CIDRs, then how many address ranges remain (cheap on sets of many ranges)."""
        ranges: list[tuple[ipaddress.IPv4Address | ipaddress.IPv6Address, ...]] = [
            (ipaddress.IPv4Address(lo), ipaddress.IPv4Address(hi)) for lo, hi in self.v4.spans
        ]
        ranges += [(ipaddress.IPv6Address(lo), ipaddress.IPv6Address(hi)) for lo, hi in self.v6.spans]
        shown: list[str] = []
        for i, (first, last) in enumerate(ranges):
            for net in ipaddress.summarize_address_range(first, last):
                if len(shown) == limit:
                    return ", ".join(shown) + f" and more ({len(ranges) - i} range(s) not shown)"
                shown.append(str(net))
        return ", ".join(shown) or "nothing"

    def v4_ranges(self) -> list[str]:
        """IPv4 ranges as netpol-analyzer prints them: `first-last`."""
        return [f"{ipaddress.IPv4Address(lo)}-{ipaddress.IPv4Address(hi)}" for lo, hi in self.v4.spans]


NO_ADDRESSES = IPSet()


@functools.cache  # emptied after each run by checks.runner (see checks/netutil.py)
def _parse_one(text: str) -> IPSet:
    fast = v4_prefix(text.strip())
    if fast is not None:
        return IPSet.of_span(*fast, 32)
    net = parse_network(text)
    return NO_ADDRESSES if net is None else IPSet.of_network(net)


def parse_network(text: str) -> ipaddress.IPv4Network | ipaddress.IPv6Network | None:
    try:
        return ipaddress.ip_network(text.strip(), strict=False)
    except ValueError:
        return None


def union_all(sets: Iterable[IPSet]) -> IPSet:
    v4: list[tuple[int, int]] = []
    v6: list[tuple[int, int]] = []
    for s in sets:
        v4.extend(s.v4.spans)
        v6.extend(s.v6.spans)
    return IPSet(IntervalSet.from_spans(v4), IntervalSet.from_spans(v6))


def clear_caches() -> None:
    _parse_one.cache_clear()
