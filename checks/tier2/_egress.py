"""Where tenant egress may go: the declared proxies (host:port) and DNS resolvers (53, 853).

Shared by T2-EGRESS-PROXY-ONLY and T2-DNS-APPROVED-RESOLVERS: an egress allow rule's address peer is
acceptable only when it lies inside one declared host and opens only that host's ports.
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass, field

from auditor.config.models import FrontendTier
from checks.k8s_semantics import Peer, PeerKind, PortRange, Rule
from checks.netutil import Network, inside, network

DNS_PORTS: frozenset[tuple[str, int]] = frozenset({("UDP", 53), ("TCP", 53), ("TCP", 853), ("UDP", 853)})
EXTERNAL_KINDS = frozenset({PeerKind.ANY, PeerKind.WORLD, PeerKind.FQDN, PeerKind.EXTERNAL})


@dataclass(frozen=True)
class Host:
    net: Network
    ports: frozenset[tuple[str, int]]
    role: str


@dataclass
class Destinations:
    """The declared egress destinations of the frontend tier."""

    hosts: list[Host] = field(default_factory=list)

    @classmethod
    def proxies_and_resolvers(cls, frontend: FrontendTier) -> Destinations:
        out = cls()
        for item in frontend.egress_proxy:
            host, _, port = item.rpartition(":")
            addr = ipaddress.ip_address(host.strip("[]"))
            net = ipaddress.ip_network(addr)
            out.hosts.append(Host(net, frozenset({("TCP", int(port))}), f"proxy {item}"))
        out.hosts += cls.resolvers(frontend).hosts
        return out

    @classmethod
    def resolvers(cls, frontend: FrontendTier) -> Destinations:
        out = cls()
        for item in frontend.dns_resolvers:
            net = ipaddress.ip_network(ipaddress.ip_address(item))
            out.hosts.append(Host(net, DNS_PORTS, f"resolver {item}"))
        return out

    def ports_for(self, cidr: str) -> frozenset[tuple[str, int]] | None:
        """The ports allowed to every address of `cidr`, or None when it is not inside a declared host."""
        ports: set[tuple[str, int]] = set()
        found = False
        for host in self.hosts:
            if inside(cidr, [host.net]):
                ports |= host.ports
                found = True
        return frozenset(ports) if found else None

    def text(self) -> str:
        return ", ".join(h.role for h in self.hosts) or "none declared"


def _range_within(p: PortRange, allowed: frozenset[tuple[str, int]]) -> bool:
    if p.name is not None:
        return True  # named ports resolve on pods only, never on an address block
    protocols = [p.protocol.upper()] if p.protocol else ["TCP", "UDP"]
    if p.start is None:
        return False
    end = p.end if p.end is not None else p.start
    if end - p.start > 1024:
        return False
    return all((proto, port) in allowed for proto in protocols for port in range(p.start, end + 1))


def address_offense(peer: Peer, rule: Rule, allowed: Destinations) -> str | None:
    """Why an egress allow to this address peer is not to a declared host on its ports, or None."""
    if peer.kind in EXTERNAL_KINDS:
        return f"{peer.text} ({_what(peer)})"
    if peer.kind != PeerKind.CIDR or peer.cidr is None:
        return None
    net = network(peer.cidr)
    if net is None:
        return f"{peer.text} (not an address block)"
    ports = allowed.ports_for(peer.cidr)
    if ports is None:
        public = "public address space" if _public(net) else "an address block"
        return f"{peer.text} ({public}, not a declared {allowed.text()})"
    if rule.ports is None or not all(_range_within(p, ports) for p in rule.ports):
        want = ", ".join(sorted(f"{port}/{proto}" for proto, port in ports))
        return f"{peer.text} on {rule.ports_text()} (only {want} declared for it)"
    return None


def _what(peer: Peer) -> str:
    return {
        PeerKind.ANY: "every destination",
        PeerKind.WORLD: "everything outside the cluster",
        PeerKind.FQDN: "named hosts, bypassing the proxy",
        PeerKind.EXTERNAL: "addresses not in the evidence",
    }.get(peer.kind, peer.kind.value)


def _public(net: Network) -> bool:
    if net.prefixlen == 0:
        return True
    return not (net.is_private or net.is_reserved or net.is_link_local or net.is_loopback)
