"""The allowed connections among workloads, in netpol-analyzer's `list` format.

`src => dst : connections`, one line per ordered pair with a non-empty set, sorted by source then
destination; a workload to itself is left out. Addresses outside the cluster appear as the disjoint
IPv4 ranges that the policies' address peers cut 0.0.0.0/0 into (ingress rules for sources, egress
rules for destinations), written `first-last[External]`; IPv6 is not listed (netpol-analyzer supports
IPv4 external peers only). Ingress and Route objects add `{ingress-controller} => ns/name[Kind] : TCP
port` lines: the ingress controller's pod is unknown, so a backend is reached on a Service target port
only when its ingress admits an arbitrary in-cluster pod there (netpol-analyzer's reading).
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from auditor.facts.kubernetes import K8sIngress, K8sService
from checks.k8s.compile import ClusterPolicies
from checks.k8s.engine import PolicyEngine
from checks.k8s.ir import Direction, Endpoint, Peer, PeerKind
from checks.k8s.workloads import Workload
from checks.lateral.addresses import V4_MAX, IPSet
from checks.lateral.conns import ALL_PORTS, ConnSet
from checks.lateral.intervals import IntervalSet

EXTERNAL = "[External]"
INGRESS_CONTROLLER = "{ingress-controller}"


@dataclass(frozen=True)
class Connection:
    src: str
    dst: str
    conn: str

    def line(self) -> str:
        return f"{self.src} => {self.dst} : {self.conn}"


def describe(conns: ConnSet) -> str:
    """netpol-analyzer's spelling: `All Connections`, else `SCTP 9090,TCP 80-81,UDP 1-65535` (sorted by
    protocol, a full port range written as the range)."""
    if conns.is_all_transport():
        return "All Connections"
    parts = [
        f"{name} " + ",".join(str(lo) if lo == hi else f"{lo}-{hi}" for lo, hi in ports.spans)
        for name, ports in (("TCP", conns.tcp), ("UDP", conns.udp), ("SCTP", conns.sctp))
        if ports
    ]
    return ",".join(sorted(parts)) if parts else "No Connections"


def ip_atoms(blocks: Iterable[IPSet]) -> list[IPSet]:
    """Cut 0.0.0.0-255.255.255.255 at every boundary of the blocks: each atom is inside or outside each."""
    cuts = {0, V4_MAX + 1}
    for block in blocks:
        for lo, hi in block.v4.spans:
            cuts.update((lo, hi + 1))
    points = sorted(cuts)
    return [IPSet(IntervalSet.of((a, b - 1))) for a, b in itertools.pairwise(points)]


def peer_blocks(peer: Peer) -> list[IPSet]:
    out = []
    if peer.kind in (PeerKind.ADDRESSES, PeerKind.PODS, PeerKind.SERVICE) and peer.block:
        out.append(peer.block)
    if peer.not_block:
        out.append(peer.not_block)
    return out


def external_blocks(compiled: ClusterPolicies) -> tuple[list[IPSet], list[IPSet]]:
    """The address blocks of ingress rules (sources) and of egress rules (destinations)."""
    found: dict[Direction, list[IPSet]] = {"Ingress": [], "Egress": []}
    policies = [*compiled.all()]
    for direction in ("Ingress", "Egress"):
        rules = [r for p in policies for r in p.rules(direction)]
        rules += [r for prof in compiled.profiles.values() for r in prof.rules(direction)]
        for rule in rules:
            for peer in rule.peers or ():
                found[direction].extend(peer_blocks(peer))
    return found["Ingress"], found["Egress"]


def _name(endpoint: Endpoint) -> str:
    if isinstance(endpoint, Workload):
        return endpoint.node_id()
    assert isinstance(endpoint, IPSet)
    return ", ".join(endpoint.v4_ranges()) + EXTERNAL


def connlist(
    engine: PolicyEngine,
    workloads: Sequence[Workload],
    extra_ingress: Sequence[IPSet] = (),
    extra_egress: Sequence[IPSet] = (),
    services: Sequence[K8sService] = (),
    ingresses: Sequence[K8sIngress] = (),
) -> list[Connection]:
    """`extra_*` cut the source / destination external ranges further (a diff of two configurations cuts
    each side by the blocks of both)."""
    if not workloads:
        return []
    ingress, egress = external_blocks(engine.compiled)
    src_atoms, dst_atoms = ip_atoms([*ingress, *extra_ingress]), ip_atoms([*egress, *extra_egress])
    sources: list[Endpoint] = [*src_atoms, *workloads]
    destinations: list[Endpoint] = [*dst_atoms, *workloads]
    out: list[Connection] = []
    for src in sources:
        for dst in destinations:
            if isinstance(src, IPSet) and isinstance(dst, IPSet):
                continue
            if isinstance(src, Workload) and isinstance(dst, Workload) and src.node_id() == dst.node_id():
                continue
            conns = engine.allowed(src, dst).conns.transport_only()
            if conns:
                out.append(Connection(_name(src), _name(dst), describe(conns)))
    out.extend(ingress_controller(engine, workloads, services, ingresses))
    out.sort(key=lambda c: (c.src, c.dst))
    return out


def ingress_controller(
    engine: PolicyEngine,
    workloads: Sequence[Workload],
    services: Sequence[K8sService],
    ingresses: Sequence[K8sIngress],
) -> list[Connection]:
    """`{ingress-controller} => backend` for every workload an Ingress or Route reaches through a
    Service of its namespace (with a selector), on the Service's target ports the backend's ingress
    admits from an arbitrary in-cluster pod."""
    by_name = {(s.namespace, s.name): s for s in services}
    reached: dict[str, ConnSet] = {}
    node: dict[str, Workload] = {}
    probe = Workload("{unknown}", "ingress-controller", "Pod")  # a pod no selector of a rule names
    for obj in ingresses:
        for backend in obj.backends:
            svc = by_name.get((obj.namespace, backend.service or ""))
            if svc is None or not svc.selector:
                continue
            for w in workloads:
                if w.namespace != svc.namespace or any(
                    w.label_map.get(k) != v for k, v in svc.selector.items()
                ):
                    continue
                wanted = _target_ports(svc, backend.port, w)
                if not wanted:
                    continue
                admitted = engine.direction(probe, w, ingress=True).conns.intersect(wanted)
                if admitted:
                    reached[w.node_id()] = reached.get(w.node_id(), ConnSet()).union(admitted)
                    node[w.node_id()] = w
    return [Connection(INGRESS_CONTROLLER, n, describe(c)) for n, c in sorted(reached.items())]


def _target_ports(svc: K8sService, port: int | str | None, w: Workload) -> ConnSet:
    """The pod TCP ports the Service port named by the backend (every port when unnamed) leads to."""
    out = ConnSet()
    for sp in svc.ports:
        if port is not None and not (
            port == sp.port or (sp.name and port == sp.name) or port == sp.target_port
        ):
            continue
        target = sp.target_port if sp.target_port is not None else sp.port
        if isinstance(target, str):
            named = w.resolve(target)
            if named is None or named.protocol.upper() != "TCP":
                continue
            target = named.port
        out = out.union(ConnSet(tcp=IntervalSet.of((target, target))))
        if port is not None:
            break
    return out if out.tcp.issubset(ALL_PORTS) else ConnSet()


def to_text(connections: Sequence[Connection]) -> str:
    return "".join(c.line() + "\n" for c in connections)


def to_json(connections: Sequence[Connection]) -> str:
    return json.dumps([{"src": c.src, "dst": c.dst, "conn": c.conn} for c in connections], indent=2) + "\n"
