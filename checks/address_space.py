"""What "public", "internal" and "special" address space mean for one audit: one answer for every check.

Built-in: internal space is RFC 1918 (10/8, 172.16/12, 192.168/16), shared CGNAT space (100.64/10) and IPv6
ULA (fc00::/7); special space (loopback, link-local, documentation, benchmarking, multicast, reserved, ...)
is neither internal nor public: it is never a routable target. Everything else is public. The intent's
`addressing` section overrides the built-in view: `internal` ranges (a public block used inside the data
centre) are internal, `external` ranges (documentation ranges standing in for the internet in a lab, a
provider's public block) are public even inside RFC 1918 or special space. Between two declared ranges the
more specific one wins, so `internal: [11.0.0.0/8]` with `external: [11.5.0.0/16]` makes 11.5/16 public.

Checks never test `is_private` / `is_global` or lists of ranges themselves: they ask
`address_space(ctx).is_public(prefix)` (or `AddressSpace.from_intent(intent)`), so one declaration in
`auditor.yaml` changes every verdict consistently.
"""

from __future__ import annotations

import enum
import ipaddress
import itertools
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from checks.netutil import Network, network, span

if TYPE_CHECKING:
    from auditor.config.models import Intent
    from checks.base import CheckContext


class Space(enum.Enum):
    PUBLIC = "public"
    INTERNAL = "internal"
    SPECIAL = "special"  # loopback, link-local, documentation, multicast, reserved: never a routable target


def _nets(*cidrs: str) -> tuple[Network, ...]:
    return tuple(ipaddress.ip_network(c) for c in cidrs)


BUILTIN_INTERNAL = _nets("10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "100.64.0.0/10", "fc00::/7")
BUILTIN_SPECIAL = _nets(
    "0.0.0.0/8",
    "127.0.0.0/8",
    "169.254.0.0/16",
    "192.0.0.0/24",
    "192.0.2.0/24",
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
    "fe80::/10",
    "ff00::/8",
)

# (rank, network, space): a declared range outranks every built-in one; within a rank the longer prefix wins.
_Rule = tuple[tuple[int, int], Network, Space]


@dataclass(frozen=True)
class AddressSpace:
    """The audit's classification of address space (see the module docstring)."""

    internal: tuple[Network, ...] = ()  # declared in intent.addressing.internal
    external: tuple[Network, ...] = ()  # declared in intent.addressing.external
    _rules: tuple[_Rule, ...] = field(default=(), init=False, repr=False, compare=False)
    _cache: dict[tuple[str, bool], frozenset[Space]] = field(
        default_factory=dict, init=False, repr=False, compare=False
    )

    def __post_init__(self) -> None:
        rules: list[_Rule] = [((0, n.prefixlen), n, Space.INTERNAL) for n in BUILTIN_INTERNAL]
        rules += [((0, n.prefixlen), n, Space.SPECIAL) for n in BUILTIN_SPECIAL]
        rules += [((1, n.prefixlen), n, Space.INTERNAL) for n in self.internal]
        rules += [((1, n.prefixlen), n, Space.PUBLIC) for n in self.external]
        object.__setattr__(self, "_rules", tuple(rules))

    @classmethod
    def from_intent(cls, intent: Intent) -> AddressSpace:
        addressing = intent.addressing
        return cls(
            internal=tuple(ipaddress.ip_network(c) for c in addressing.internal),
            external=tuple(ipaddress.ip_network(c) for c in addressing.external),
        )

    def spaces(self, prefix: str | Network, *, host: bool = False) -> frozenset[Space]:
        """Every kind of space `prefix` (a CIDR, an interface address or a bare address) touches; empty when
        unparsable. `host=True` reads "10.0.0.1/24" as the single address 10.0.0.1 (an interface's own
        address) rather than its whole subnet."""
        text = str(prefix)
        key = (text, host)
        found = self._cache.get(key)
        if found is None:
            found = self._classify(text, host)
            self._cache[key] = found
        return found

    def is_public(self, prefix: str | Network, *, host: bool = False) -> bool:
        """True when `prefix` reaches any public address. A default route (0.0.0.0/0, ::/0) does: checks
        that report default routes apart test `netutil.is_default_route` first."""
        return Space.PUBLIC in self.spaces(prefix, host=host)

    def is_internal(self, prefix: str | Network, *, host: bool = False) -> bool:
        """True when every address of `prefix` is internal (RFC 1918, CGNAT, ULA or declared internal)."""
        return self.spaces(prefix, host=host) == frozenset({Space.INTERNAL})

    def is_special(self, prefix: str | Network, *, host: bool = False) -> bool:
        """True when every address of `prefix` is special (loopback, link-local, documentation, ...)."""
        return self.spaces(prefix, host=host) == frozenset({Space.SPECIAL})

    def public_networks(self, version: int | None = None) -> list[Network]:
        """The public space as CIDRs (for models that need it as a set, e.g. "the internet" as a source)."""
        out: list[Network] = []
        for whole in _nets("0.0.0.0/0", "::/0"):
            if version is not None and whole.version != version:
                continue
            for lo, hi, space in self._segments(whole):
                if space is Space.PUBLIC:
                    first = ipaddress.ip_address(lo) if whole.version == 4 else ipaddress.IPv6Address(lo)
                    last = ipaddress.ip_address(hi) if whole.version == 4 else ipaddress.IPv6Address(hi)
                    out.extend(ipaddress.summarize_address_range(first, last))
        return out

    def _classify(self, text: str, host: bool) -> frozenset[Space]:
        net = network(text)
        if net is None:
            return frozenset()
        if host:
            net = ipaddress.ip_network(_host(text) if "/" in text else net.network_address)
        return frozenset(space for _, _, space in self._segments(net))

    def _segments(self, net: Network) -> Iterable[tuple[int, int, Space]]:
        """`net` cut into consecutive ranges, each with the space its best (highest-ranked) rule gives."""
        first, last = span(net)
        rules = [
            (rank, *span(n), space)
            for rank, n, space in self._rules
            if n.version == net.version and _overlaps(span(n), (first, last))
        ]
        cuts = {first, last + 1}
        for _, lo, hi, _ in rules:
            cuts.update(c for c in (lo, hi + 1) if first < c <= last)
        points = sorted(cuts)
        for lo, nxt in itertools.pairwise(points):
            best = max(
                ((rank, space) for rank, a, b, space in rules if a <= lo <= b),
                key=lambda r: r[0],
                default=None,
            )
            yield lo, nxt - 1, (best[1] if best else Space.PUBLIC)


def _overlaps(a: tuple[int, int], b: tuple[int, int]) -> bool:
    return a[0] <= b[1] and b[0] <= a[1]


def _host(text: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address:
    return ipaddress.ip_interface(text).ip


def address_space(ctx: CheckContext) -> AddressSpace:
    """The run's address space, built once per check run and shared by every check."""
    return ctx.derived("address-space", lambda: AddressSpace.from_intent(ctx.intent))
