"""Small address helpers shared by checks."""

from __future__ import annotations

import functools
import ipaddress
import re
from collections.abc import Iterable

Network = ipaddress.IPv4Network | ipaddress.IPv6Network
Address = ipaddress.IPv4Address | ipaddress.IPv6Address

DEFAULT_ROUTES = frozenset({"0.0.0.0/0", "::/0"})

# The parsing caches below hold every distinct text the checks of a run asked about: unbounded, because a
# bounded LRU thrashes once a fleet's addresses outnumber it (time grew faster than the fleet), and
# emptied by checks.runner after each run (clear_caches) so a long-lived process does not keep them.


@functools.cache
def network(value: str) -> Network | None:
    """A network from a prefix or an interface address ("10.0.0.1/31" -> 10.0.0.0/31); None if unparsable.

    Cached: checks parse the same prefixes over and over (once per question they ask of them), and
    parsing dominates their time on large fleets. Networks are immutable, so sharing them is safe.
    """
    fast = v4_prefix(value)
    if fast is not None:
        return ipaddress.IPv4Network(fast, strict=False)
    try:
        return ipaddress.ip_network(value, strict=False)
    except ValueError:
        return None


@functools.cache
def address(value: str) -> Address | None:
    """An address (no prefix length); None if unparsable. Cached: flow logs and peer lists name the
    same hosts over and over."""
    fast = v4_prefix(value) if "/" not in value else None
    if fast is not None:
        return ipaddress.IPv4Address(fast[0])
    try:
        return ipaddress.ip_address(value)
    except ValueError:
        return None


_OCTET = "(0|[1-9][0-9]{0,2})"  # no leading zeros: ipaddress refuses them
_V4 = re.compile(rf"{_OCTET}\.{_OCTET}\.{_OCTET}\.{_OCTET}(?:/([0-9]{{1,2}}))?")


def v4_prefix(text: str) -> tuple[int, int] | None:
    """(address, prefix length) of a plain `a.b.c.d` or `a.b.c.d/len`; None for anything else, which
    callers leave to ipaddress. Most addresses in the evidence look like this, and reading them here is
    several times faster than ipaddress's general parser (same answers: see tests/checks/test_netutil)."""
    m = _V4.fullmatch(text)
    if m is None:
        return None
    a, b, c, d, plen = m.groups()
    octets = (int(a), int(b), int(c), int(d))
    length = 32 if plen is None else int(plen)
    if max(octets) > 255 or length > 32:
        return None
    return (octets[0] << 24) | (octets[1] << 16) | (octets[2] << 8) | octets[3], length


def is_default_route(prefix: str) -> bool:
    net = network(prefix)
    return net is not None and net.prefixlen == 0


def inside(prefix: str, networks: Iterable[Network]) -> Network | None:
    """The first of `networks` that contains `prefix` entirely, if any."""
    net = network(prefix)
    if net is None:
        return None
    return _first_containing(net, networks)


def span(net: Network) -> tuple[int, int]:
    """First and last address as integers: comparing those is what subnet_of/overlaps do, minus the
    address objects they build on every call."""
    first = int(net.network_address)
    return first, first | ((1 << (net.max_prefixlen - net.prefixlen)) - 1)


def _first_containing(net: Network, networks: Iterable[Network]) -> Network | None:
    first, last = span(net)
    for candidate in networks:
        if net.version == candidate.version:
            lo, hi = span(candidate)
            if lo <= first and last <= hi:
                return candidate
    return None


def overlapping(prefix: str, networks: Iterable[Network]) -> Network | None:
    """The first of `networks` that shares any address with `prefix` (either contains the other)."""
    net = network(prefix)
    if net is None:
        return None
    first, last = span(net)
    for candidate in networks:
        if net.version == candidate.version:
            lo, hi = span(candidate)
            if lo <= last and first <= hi:
                return candidate
    return None


def networks_of(values: Iterable[str]) -> list[Network]:
    """The parsable networks among `values` (CIDRs or bare addresses, which become host routes)."""
    return [n for n in (network(v) for v in values) if n is not None]


def clear_caches() -> None:
    """Forget every parsed text (see the note at the top)."""
    for cached in (network, address):
        cached.cache_clear()
