"""Where tenant egress may go: the declared proxies (host:port), the DNS resolvers (53, 853) and the
cluster DNS; and the egress each tenant's pods get by explicit rules, as the engine evaluates it.

Shared by T2-EGRESS-PROXY-ONLY and T2-DNS-APPROVED-RESOLVERS: egress to an address is acceptable only
inside a declared host and on that host's ports; named destinations (FQDN rules) and addresses the
evidence does not hold (CIDR groups, cloud groups) are never a declared host.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable
from dataclasses import dataclass, field

from auditor.config.models import FrontendTier
from checks.k8s.cluster_dns import ClusterDns, find_cluster_dns
from checks.k8s.connlist import describe
from checks.k8s.ir import Action, Peer, PeerKind, Policy, Rule
from checks.k8s.questions import Reached, explicit_egress
from checks.lateral.addresses import IPSet
from checks.lateral.conns import ConnSet
from checks.tier2._k8s_scope import Cluster

DNS_PORTS: frozenset[tuple[str, int]] = frozenset({("UDP", 53), ("TCP", 53), ("TCP", 853), ("UDP", 853)})
DNS_CONNS = (
    ConnSet.ports("UDP", 53, 53)
    .union(ConnSet.ports("TCP", 53, 53))
    .union(ConnSet.ports("TCP", 853, 853))
    .union(ConnSet.ports("UDP", 853, 853))
)
NAMED_KINDS = frozenset({PeerKind.FQDN, PeerKind.UNKNOWN})


@dataclass(frozen=True)
class Host:
    addresses: IPSet
    conns: ConnSet
    role: str


def dns_name(name: str) -> str:
    """A DNS name as compared: lower case, without the root's trailing dot."""
    return name.lower().rstrip(".")


@dataclass
class Destinations:
    """The declared egress destinations of the frontend tier: proxies and resolvers by address, and
    proxies declared by DNS name (`names`: name -> the proxy's ports), which FQDN rules may name."""

    hosts: list[Host] = field(default_factory=list)
    names: dict[str, ConnSet] = field(default_factory=dict)

    @classmethod
    def proxies_and_resolvers(cls, frontend: FrontendTier) -> Destinations:
        out = cls()
        for item in frontend.egress_proxy:
            host, _, port = item.rpartition(":")
            conns = ConnSet.ports("TCP", int(port), int(port))
            try:
                addr = ipaddress.ip_address(host.strip("[]"))
            except ValueError:  # a proxy declared by name: FQDN rules naming exactly it reach it
                name = dns_name(host)
                out.names[name] = out.names[name].union(conns) if name in out.names else conns
                continue
            out.hosts.append(Host(IPSet.parse(str(addr)), conns, f"proxy {item}"))
        out.hosts += cls.resolvers(frontend).hosts
        return out

    def named_proxy(self, peer: Peer, conns: ConnSet) -> bool:
        """Does an FQDN peer name only declared proxies, exactly (no wildcard), on their ports only?"""
        if peer.kind != PeerKind.FQDN or not peer.names:
            return False
        allowed = ConnSet()
        for raw in peer.names:
            name = dns_name(raw)
            if "*" in name or name not in self.names:
                return False
            allowed = allowed.union(self.names[name])
        return bool(conns) and conns.issubset(allowed)

    @classmethod
    def resolvers(cls, frontend: FrontendTier) -> Destinations:
        out = cls()
        for item in frontend.dns_resolvers:
            out.hosts.append(Host(IPSet.parse(item), DNS_CONNS, f"resolver {item}"))
        return out

    def with_cluster_dns(self, dns: ClusterDns) -> Destinations:
        if not dns.addresses:
            return self
        return Destinations([*self.hosts, Host(dns.addresses, DNS_CONNS, dns.text())], dict(self.names))

    def conns_for(self, block: IPSet) -> ConnSet | None:
        """What may go to every address of `block`, or None when it is not inside a declared host."""
        found: ConnSet | None = None
        for host in self.hosts:
            if block.issubset(host.addresses):
                found = host.conns if found is None else found.union(host.conns)
        return found

    def blocks(self) -> list[IPSet]:
        return [h.addresses for h in self.hosts]

    def text(self) -> str:
        roles = [h.role for h in self.hosts]
        roles += [f"proxy {name} ({describe(conns)})" for name, conns in self.names.items()]
        return ", ".join(roles) or "none declared"


def service_addresses(cluster: Cluster) -> IPSet:
    """In-cluster destinations, never "the internet": the cluster IPs of the cluster's Services and the
    nodes' addresses (those of its host-network pods: kube-apiserver, kubelet, the CNI agents), which
    Cilium's `host`/`remote-node`/`kube-apiserver` entities name too."""

    def build() -> list[IPSet]:
        ips = [s.record.cluster_ip for s in cluster.model.services if s.record.cluster_ip]
        for pods in (cluster.model.pods or {}).values():
            for pod in pods:
                rec = pod.record
                if rec.host_network and rec.phase not in ("Succeeded", "Failed"):
                    ips += [*rec.ips, *([rec.ip] if rec.ip else [])]
        return [IPSet.parse(*[ip for ip in ips if ip and ip != "None"])]

    return cluster.model.cached(("service-ips", ""), build)[0]


def tenant_egress(cluster: Cluster, namespace: str, frontend: FrontendTier) -> dict[tuple[str, str], Reached]:
    """What explicit egress rules let the namespace's pods reach, per rule, outside the Services. The
    address ranges are cut at every declared host (proxies, resolvers, cluster DNS), so one answer
    serves both egress checks (shared through the cluster model)."""

    def build() -> list[dict[tuple[str, str], Reached]]:
        dns = find_cluster_dns(cluster.model, frontend.cluster_dns.service)
        hosts = Destinations.proxies_and_resolvers(frontend).with_cluster_dns(dns).blocks()
        in_cluster = service_addresses(cluster)
        pods = [w for w, _, _ in cluster.model.subjects(namespace)]
        reached = explicit_egress(cluster.model.engine, pods, extra=hosts)
        for item in reached.values():
            item.addresses = item.addresses.subtract(in_cluster)  # Services are in-cluster peers
        return [{k: v for k, v in reached.items() if v.addresses}]

    return cluster.model.cached(("tenant-egress", namespace), build)[0]


def named_egress(cluster: Cluster, namespace: str) -> list[tuple[Policy, Rule, Peer]]:
    """Egress allow rules, of policies selecting the namespace's pods, to names or unknown addresses."""
    out = []
    for policy in cluster.selecting(namespace):
        for rule in policy.egress:
            if rule.action == Action.ALLOW:
                out += [(policy, rule, p) for p in rule.peers or () if p.kind in NAMED_KINDS]
    return out


def what(peer: Peer) -> str:
    if peer.kind == PeerKind.FQDN:
        return "named hosts, resolved at run time: not exactly a proxy declared by name on its ports"
    return "addresses not in the evidence"


def offending(
    reached: Iterable[Reached], allowed: Destinations, only: ConnSet | None = None
) -> list[tuple[Reached, str]]:
    """(rule, why) for every rule that opens more than the declared hosts' ports (within `only`)."""
    out = []
    for item in reached:
        conns = item.conns if only is None else item.conns.intersect(only)
        if not conns:
            continue
        bad = IPSet()
        for cidr in item.addresses.cidrs():
            block = IPSet.parse(cidr)
            ok = allowed.conns_for(block)
            if ok is None or not conns.issubset(ok):
                bad = bad.union(block)
        if bad:
            out.append((item, bad.describe()))
    return out
