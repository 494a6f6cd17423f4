"""Which sources an ACL lets reach a service: first-match semantics over Acl facts, read conservatively.

An entry is evaluated the way EOS and NX-OS do: in sequence order, the first matching entry decides,
and an implicit deny ends every ACL. To stay on the safe side of a compliance verdict:
- a permit entry counts when it *may* match (an unknown port name, an object-group or a non-contiguous
  wildcard is taken as matching, and reported as such);
- an earlier deny entry hides a later permit only when it *surely* covers it (same or wider protocol,
  port, source and destination).
So a reported admission can be a false alarm on exotic syntax, never a silent pass.
A TCP entry with `established` (EOS, IOS, NX-OS: ACK or RST set) matches only packets of connections
already open, never the SYN that opens one: it admits the replies to connections made from inside, not
a new session, so it admits no TCP service; as a deny it stops no new session either. Source ports
are not read (a client chooses its own).
"""

from __future__ import annotations

import ipaddress
from collections.abc import Sequence
from dataclasses import dataclass

from auditor.facts import Acl, AclEntry
from checks.netutil import Network

PORT_NAMES = {
    "ssh": 22,
    "telnet": 23,
    "smtp": 25,
    "domain": 53,
    "www": 80,
    "http": 80,
    "ntp": 123,
    "snmp": 161,
    "snmptrap": 162,
    "bgp": 179,
    "ldap": 389,
    "https": 443,
    "syslog": 514,
    "tftp": 69,
    "bootps": 67,
    "bootpc": 68,
    "tacacs": 49,
    "isakmp": 500,
    "non500-isakmp": 4500,
    "ldaps": 636,
    "radius": 1812,
    "ftp": 21,
    "ftp-data": 20,
}
_ALL_PROTOCOLS = {None, "ip", "ipv4", "ipv6", "any"}
_PROTOCOL_NUMBERS = {"tcp": "6", "udp": "17"}


@dataclass(frozen=True)
class Service:
    name: str
    protocol: str  # "tcp" or "udp"
    port: int

    def __str__(self) -> str:
        return f"{self.name} ({self.port}/{self.protocol})"


SSH = Service("SSH", "tcp", 22)
IPMI = Service("IPMI", "udp", 623)
HTTPS = Service("Redfish/HTTPS", "tcp", 443)
HTTP = Service("HTTP", "tcp", 80)
SNMP = Service("SNMP", "udp", 161)
PROTECTED = (SSH, IPMI, HTTPS)


@dataclass(frozen=True)
class Admission:
    """One permit entry that lets `source` reach `service`. `net` is None when the source is unresolved."""

    entry: AclEntry
    service: Service
    source: str
    net: Network | None

    def describe(self) -> str:
        what = f"{self.source} (not resolvable from the evidence)" if self.net is None else str(self.net)
        return f"{self.service} from {what} (`{self.entry.text.strip()}`)"


def address(spec: str | None, family: str) -> tuple[Network | None, bool]:
    """(network, resolved) for "any", "host A", "A/L" or "A WILDCARD"; (None, False) for names."""
    if spec is None or spec == "any":
        return ipaddress.ip_network("::/0" if family == "ipv6" else "0.0.0.0/0"), True
    text = spec[5:] if spec.startswith("host ") else spec
    base, _, wildcard = text.partition(" ")
    try:
        if wildcard:
            return ipaddress.ip_network(f"{base}/{_wildcard_length(wildcard)}", strict=False), True
        return ipaddress.ip_network(text, strict=False), True
    except ValueError:
        return None, False


def _wildcard_length(wildcard: str) -> int:
    """The prefix length of a contiguous IPv4 wildcard ("0.0.0.255" -> 24, "0.0.0.0" -> 32)."""
    bits = int(ipaddress.IPv4Address(wildcard))
    if bits & (bits + 1):
        raise ValueError(f"non-contiguous wildcard {wildcard}")
    return 32 - bits.bit_length()


def _port(word: str) -> int | None:
    return int(word) if word.isdigit() else PORT_NAMES.get(word)


def ports_match(spec: str | None, port: int, *, sure: bool) -> bool:
    """Does the port clause match `port`? Unknown syntax answers `not sure` (matches unless sure)."""
    if spec is None:
        return True
    op, *values = spec.split()
    numbers = [_port(v) for v in values]
    if not values or any(n is None for n in numbers):
        return not sure
    nums = [n for n in numbers if n is not None]
    if op == "eq":
        return port in nums
    if op == "neq":
        return port not in nums
    if op == "gt":
        return port > nums[0]
    if op == "lt":
        return port < nums[0]
    if op == "range" and len(nums) == 2:
        return nums[0] <= port <= nums[1]
    return not sure


def established_only(entry: AclEntry) -> bool:
    """A TCP entry that matches only packets of open connections (`established`): no new session."""
    words = entry.text.split()
    return "established" in words and (entry.protocol or "").lower() in ("tcp", "6")


def protocol_match(protocol: str | None, service: Service) -> bool:
    p = protocol.lower() if protocol else None
    return p in _ALL_PROTOCOLS or p in (service.protocol, _PROTOCOL_NUMBERS[service.protocol])


def _contains(outer: Network | None, inner: Network) -> bool:
    return outer is not None and outer.version == inner.version and inner.subnet_of(outer)  # type: ignore[arg-type]


def _may_reach(entry: AclEntry, family: str, destinations: Sequence[Network] | None) -> bool:
    if destinations is None:
        return True
    net, resolved = address(entry.destination, family)
    if not resolved or net is None:
        return True
    return any(net.version == d.version and net.overlaps(d) for d in destinations)


def _surely_covers(
    deny: AclEntry, family: str, service: Service, source: Network, destinations: Sequence[Network] | None
) -> bool:
    if not protocol_match(deny.protocol, service) or not ports_match(
        deny.destination_ports, service.port, sure=True
    ):
        return False
    if deny.source_ports is not None:
        return False
    src, _ = address(deny.source, family)
    if not _contains(src, source):
        return False
    dst, _ = address(deny.destination, family)
    if destinations is None:
        return dst is not None and dst.prefixlen == 0
    return all(_contains(dst, d) for d in destinations)


def admissions(acl: Acl, service: Service, destinations: Sequence[Network] | None = None) -> list[Admission]:
    """Every source this ACL may let reach `service` on `destinations` (None: wherever the ACL sits)."""
    if acl.family == "mac":
        return []
    found: list[Admission] = []
    denies: list[AclEntry] = []
    for entry in acl.entries:
        if entry.action == "remark":
            continue
        if not protocol_match(entry.protocol, service):
            continue
        if service.protocol == "tcp" and established_only(entry):
            continue  # matches no new session: neither admits one nor denies one
        if entry.action == "deny":
            denies.append(entry)
            continue
        if not ports_match(entry.destination_ports, service.port, sure=False):
            continue
        if not _may_reach(entry, acl.family, destinations):
            continue
        net, resolved = address(entry.source, acl.family)
        if (
            resolved
            and net is not None
            and any(_surely_covers(d, acl.family, service, net, destinations) for d in denies)
        ):
            continue
        found.append(Admission(entry, service, entry.source or "any", net if resolved else None))
    return found


def outside(found: Sequence[Admission], allowed: Sequence[Network]) -> list[Admission]:
    """The admissions whose source is not entirely inside `allowed` (unresolved sources included)."""
    return [a for a in found if a.net is None or not any(_contains(n, a.net) for n in allowed)]
