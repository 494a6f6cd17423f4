"""Sets of connections: ports per transport protocol, plus the protocols that have no ports.

TCP, UDP and SCTP carry port intervals over 1-65535 (port 0 is not a destination anyone listens on).
`other` stands for every protocol without ports (ICMP, GRE, ESP...) as one block: the lateral-movement
question is "can anything get through", so finer ICMP types are not worth modelling.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from checks.lateral.intervals import EMPTY, IntervalSet

PORT_MIN, PORT_MAX = 1, 65535
ALL_PORTS = IntervalSet.of((PORT_MIN, PORT_MAX))
PORT_PROTOCOLS = ("TCP", "UDP", "SCTP")
_IANA = {"6": "TCP", "17": "UDP", "132": "SCTP", "1": "ICMP", "58": "ICMPV6"}


def protocol_name(value: str | int | None) -> str:
    """`tcp`, `6`, `TCP` -> `TCP`; `-1`, `all`, `ip`, None -> `ALL`; anything else upper-cased."""
    if value is None:
        return "ALL"
    text = str(value).strip().upper()
    if text in {"-1", "ALL", "IP", "ANY"}:
        return "ALL"
    return _IANA.get(text, text)


@dataclass(frozen=True)
class ConnSet:
    tcp: IntervalSet = EMPTY
    udp: IntervalSet = EMPTY
    sctp: IntervalSet = EMPTY
    other: bool = False

    @classmethod
    def everything(cls) -> ConnSet:
        return cls(ALL_PORTS, ALL_PORTS, ALL_PORTS, True)

    @classmethod
    def ports(cls, protocol: str, lo: int | None = None, hi: int | None = None) -> ConnSet:
        """One protocol with a port range (None: all ports). `ALL` gives everything."""
        proto = protocol_name(protocol)
        if proto == "ALL":
            return cls.everything()
        if proto not in PORT_PROTOCOLS:
            return cls(other=True)
        if lo is None:
            ports = ALL_PORTS
        else:
            top = lo if hi is None else hi
            ports = IntervalSet.of((max(lo, PORT_MIN), min(top, PORT_MAX)))
        if proto == "TCP":
            return cls(tcp=ports)
        return cls(udp=ports) if proto == "UDP" else cls(sctp=ports)

    def __bool__(self) -> bool:
        return bool(self.tcp) or bool(self.udp) or bool(self.sctp) or self.other

    def union(self, o: ConnSet) -> ConnSet:
        return ConnSet(
            self.tcp.union(o.tcp), self.udp.union(o.udp), self.sctp.union(o.sctp), self.other or o.other
        )

    def intersect(self, o: ConnSet) -> ConnSet:
        return ConnSet(
            self.tcp.intersect(o.tcp),
            self.udp.intersect(o.udp),
            self.sctp.intersect(o.sctp),
            self.other and o.other,
        )

    def subtract(self, o: ConnSet) -> ConnSet:
        return ConnSet(
            self.tcp.subtract(o.tcp),
            self.udp.subtract(o.udp),
            self.sctp.subtract(o.sctp),
            self.other and not o.other,
        )

    def issubset(self, o: ConnSet) -> bool:
        return not self.subtract(o)

    def is_all_transport(self) -> bool:
        """All ports of TCP, UDP and SCTP: what netpol-analyzer prints as `All Connections`."""
        return self.tcp == ALL_PORTS and self.udp == ALL_PORTS and self.sctp == ALL_PORTS

    def transport_only(self) -> ConnSet:
        return ConnSet(self.tcp, self.udp, self.sctp, False)

    def describe(self) -> str:
        """netpol-analyzer's text: `All Connections`, or `SCTP 9090,TCP 80-81,UDP 1-65535` (sorted; a full
        port range inside a mixed set is written as the range)."""
        if self.is_all_transport():
            return "All Connections"
        parts = [
            f"{name} {_ports_text(ports)}"
            for name, ports in (("TCP", self.tcp), ("UDP", self.udp), ("SCTP", self.sctp))
            if ports
        ]
        if not parts:
            return "No Connections" if not self.other else "non-port protocols (ICMP, ...)"
        text = ",".join(sorted(parts))
        return text + ",other protocols" if self.other else text


def _ports_text(ports: IntervalSet) -> str:
    return ",".join(str(lo) if lo == hi else f"{lo}-{hi}" for lo, hi in ports.spans)


def union_all(sets: Iterable[ConnSet]) -> ConnSet:
    out = ConnSet()
    for s in sets:
        out = out.union(s)
    return out
