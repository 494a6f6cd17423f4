"""Small address helpers shared by checks."""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable

Network = ipaddress.IPv4Network | ipaddress.IPv6Network

DEFAULT_ROUTES = frozenset({"0.0.0.0/0", "::/0"})


def network(value: str) -> Network | None:
    """A network from a prefix or an interface address ("10.0.0.1/31" -> 10.0.0.0/31); None if unparsable."""
    try:
        return ipaddress.ip_network(value, strict=False)
    except ValueError:
        return None


def is_default_route(prefix: str) -> bool:
    net = network(prefix)
    return net is not None and net.prefixlen == 0


def inside(prefix: str, networks: Iterable[Network]) -> Network | None:
    """The first of `networks` that contains `prefix` entirely, if any."""
    net = network(prefix)
    if net is None:
        return None
    for candidate in networks:
        if net.version == candidate.version and net.subnet_of(candidate):  # type: ignore[arg-type]
            return candidate
    return None


# Address space that is never routed on the public internet: RFC 1918, shared (CGNAT), loopback,
# link-local, documentation, benchmarking, multicast, reserved; IPv6 ULA, link-local, documentation,
# multicast, discard. Anything outside these (and not a default route) is "public".
SPECIAL_NETWORKS: tuple[Network, ...] = tuple(
    ipaddress.ip_network(n)
    for n in (
        "0.0.0.0/8",
        "10.0.0.0/8",
        "100.64.0.0/10",
        "127.0.0.0/8",
        "169.254.0.0/16",
        "172.16.0.0/12",
        "192.0.0.0/24",
        "192.0.2.0/24",
        "192.168.0.0/16",
        "198.18.0.0/15",
        "198.51.100.0/24",
        "203.0.113.0/24",
        "224.0.0.0/4",
        "240.0.0.0/4",
        "::/128",
        "::1/128",
        "::ffff:0:0/96",
        "100::/64",
        "2001:db8::/32",
        "fc00::/7",
        "fe80::/10",
        "ff00::/8",
    )
)


def is_public(prefix: str) -> bool:
    """True when `prefix` (a route or an interface address) reaches beyond private and special space.

    A default route is not "public" here (checks report it as a default route); a supernet such as
    0.0.0.0/1 that covers public space is.
    """
    net = network(prefix)
    if net is None or net.prefixlen == 0:
        return False
    return inside(str(net), SPECIAL_NETWORKS) is None


def overlapping(prefix: str, networks: Iterable[Network]) -> Network | None:
    """The first of `networks` that shares any address with `prefix` (either contains the other)."""
    net = network(prefix)
    if net is None:
        return None
    for candidate in networks:
        if net.version == candidate.version and net.overlaps(candidate):
            return candidate
    return None


def networks_of(values: Iterable[str]) -> list[Network]:
    """The parsable networks among `values` (CIDRs or bare addresses, which become host routes)."""
    return [n for n in (network(v) for v in values) if n is not None]
