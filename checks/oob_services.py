"""Services authorised into and out of the OOB network beyond the jump hosts, as every check reads them.

`intent.tiers.oob.services` declares each service as source ranges, destination ranges, a protocol and
destination ports (SNMP pollers into OOB, BMCs out to NTP/syslog/AAA servers, DHCP/PXE, ...). A flow, an
ACL entry or a lateral link is covered by a service when its source lies inside the service's sources,
its destination inside the service's destinations, and its protocol/port among the service's. The
reply of such a connection (from a destination back to a source, same protocol, to an ephemeral port
>= 1024 or to one of the service's own ports, as NTP answers 123 -> 123) is covered too: flow logs
record it as a conversation of its own, without the source port.

T1-OOB-ACCESS-JUMP-HOSTS-ONLY, T1-OOB-FLOWS-AUTHORIZED, X-FLOWS-NO-CROSS-TIER and X-LATERAL-NO-PATH use
this one reading, so a declared service cannot pass one check and fail another.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from auditor.config.models import Intent, OobTier
from checks.netutil import Network, inside, networks_of, overlapping

EPHEMERAL = 1024
_NUMBERS = {"tcp": 6, "udp": 17, "icmp": 1}
_NAMES = {"6": "tcp", "17": "udp", "1": "icmp", "58": "icmp", "icmpv6": "icmp", "ipv6-icmp": "icmp"}


def protocol_of(value: str | int | None) -> str | None:
    """`6`/`tcp` -> tcp, `17` -> udp, `1`/`58`/`icmp` -> icmp; None/`-1`/`ip`/`any`/`all` -> None (every
    protocol); anything else lower-cased."""
    if value is None:
        return None
    text = str(value).strip().lower()
    if text in {"-1", "ip", "ipv4", "ipv6", "any", "all"}:
        return None
    return _NAMES.get(text, text)


@dataclass(frozen=True)
class AuthorisedService:
    name: str
    sources: tuple[Network, ...]
    destinations: tuple[Network, ...]
    protocol: str  # tcp, udp, icmp or any
    ports: tuple[tuple[int, int], ...]

    def carries(self, protocol: str | int | None, port: int | None) -> bool:
        """Whether (protocol, destination port) is this service's. An unknown protocol (None: "every
        protocol") is not: a rule opening everything is more than the service."""
        proto = protocol_of(protocol)
        if self.protocol == "any":
            return True
        if proto != self.protocol:
            return False
        if not self.ports:
            return True
        return port is not None and self.has_port(port)

    def has_port(self, port: int) -> bool:
        return any(lo <= port <= hi for lo, hi in self.ports)

    def admits(self, src: str, dst: str, protocol: str | int | None, port: int | None) -> bool:
        return _within(src, self.sources) and _within(dst, self.destinations) and self.carries(protocol, port)

    def answers(self, src: str, dst: str, protocol: str | int | None, port: int | None) -> bool:
        """Whether src -> dst:port is the reply of a connection this service authorises (dst -> src)."""
        if not (_within(src, self.destinations) and _within(dst, self.sources)):
            return False
        if self.protocol != "any" and protocol_of(protocol) != self.protocol:
            return False
        return port is None or port >= EPHEMERAL or not self.ports or self.has_port(port)

    def ports_text(self) -> str:
        ports = ",".join(str(lo) if lo == hi else f"{lo}-{hi}" for lo, hi in self.ports)
        return f"{self.protocol}/{ports}" if ports else self.protocol

    def __str__(self) -> str:
        return f"declared OOB service {self.name} ({self.ports_text()})"


def _within(prefix: str, nets: Sequence[Network]) -> bool:
    return inside(prefix, nets) is not None


@dataclass(frozen=True)
class OobServices:
    services: tuple[AuthorisedService, ...] = ()

    @classmethod
    def of(cls, intent: Intent) -> OobServices:
        oob = intent.tiers.oob
        if not isinstance(oob, OobTier):
            return cls()
        return cls(
            tuple(
                AuthorisedService(
                    s.name,
                    tuple(networks_of(s.sources)),
                    tuple(networks_of(s.destinations)),
                    s.protocol,
                    tuple(s.ports),
                )
                for s in oob.services
            )
        )

    def __bool__(self) -> bool:
        return bool(self.services)

    def admitting(
        self, src: str, dst: str, protocol: str | int | None, port: int | None
    ) -> AuthorisedService | None:
        """The first declared service that authorises src -> dst:port/protocol, if any."""
        return next((s for s in self.services if s.admits(src, dst, protocol, port)), None)

    def answering(
        self, src: str, dst: str, protocol: str | int | None, port: int | None
    ) -> AuthorisedService | None:
        """The first declared service whose reply src -> dst:port/protocol is, if any."""
        return next((s for s in self.services if s.answers(src, dst, protocol, port)), None)

    def needs_route(self, prefix: str, local: Sequence[str]) -> AuthorisedService | None:
        """The declared service a route to OOB space carries: `prefix` inside the service's destinations,
        in a VRF or VPC whose own subnets/CIDRs (`local`) hold some of its sources (the SNMP pollers' VRF
        routing the BMC subnets). What else the route carries is for the filters to stop."""
        return next(
            (
                s
                for s in self.services
                if _within(prefix, s.destinations) and any(overlapping(c, s.sources) for c in local)
            ),
            None,
        )

    def covering(
        self, src: str, dst: str, protocol: str | int | None, port: int | None
    ) -> AuthorisedService | None:
        """A service authorising the flow, as a request or as a reply."""
        return self.admitting(src, dst, protocol, port) or self.answering(src, dst, protocol, port)
