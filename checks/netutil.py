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
