"""The one compiled form every policy flavor is read into, and how its parts match endpoints.

An endpoint is a workload (pods), an address range outside the cluster, or GENERIC: "a peer nothing
names", which only rules open to every peer match (the question behind default deny). A `Peer` is one
`from`/`to` item of any flavor; a `Rule` is an ordered (action, peers, ports) entry; a `Policy` says
which pods it selects, which directions it isolates, and where it stands in the precedence: the admin
layer (AdminNetworkPolicy), the NetworkPolicy layer (Kubernetes, Cilium, Calico) and the baseline
(BaselineAdminNetworkPolicy). The engine (engine.py) is the only place that combines them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from enum import IntEnum, StrEnum
from typing import Literal

from checks.k8s.workloads import Workload
from checks.lateral.addresses import NO_ADDRESSES, IPSet
from checks.lateral.conns import ConnSet

Direction = Literal["Ingress", "Egress"]
DIRECTIONS: tuple[Direction, ...] = ("Ingress", "Egress")
NsLabels = Callable[[str], Mapping[str, str]]  # namespace name -> its labels
ALL_V4 = IPSet.all_v4()


class Generic:
    """A peer no rule names: not a pod anyone selects, not an address inside any block but 0.0.0.0/0."""

    def __repr__(self) -> str:
        return "GENERIC"


GENERIC = Generic()
Endpoint = Workload | IPSet | Generic


class Action(StrEnum):
    ALLOW = "Allow"
    DENY = "Deny"
    PASS = "Pass"  # noqa: S105 (an action, not a password): the next layer or tier decides
    LOG = "Log"  # Calico: no verdict, evaluation goes on


class Layer(IntEnum):
    ADMIN = 0
    NETPOL = 1
    BASELINE = 2


class PeerKind(StrEnum):
    ANY = "any"  # every endpoint, in the cluster and outside it
    PODS = "pods"  # pods of some namespaces (label, namespace and service-account selectors)
    ADDRESSES = "addresses"  # an address block (ipBlock, toCIDR, nets, networks, network sets)
    WORLD = "world"  # everything outside the cluster (Cilium `world`)
    NODES = "nodes"  # nodes, host networking, the API server: in the cluster, no tenant pods
    SERVICE = "service"  # a Service, matched through its selector's pods and its cluster IP
    FQDN = "fqdn"  # names resolved at run time (Cilium toFQDNs, Calico domains, ANP domainNames)
    UNKNOWN = "unknown"  # addresses the evidence does not hold (cidrGroupRef, toGroups)


PodMatch = Callable[[Workload, NsLabels], bool]
NsMatch = Callable[[str, Mapping[str, str]], bool]  # namespace name and labels


@dataclass(frozen=True)
class Peer:
    """One `from`/`to` item. `pods` decides PODS (and Calico's composite) peers; `block` ADDRESSES."""

    kind: PeerKind
    text: str
    pods: PodMatch | None = field(default=None, compare=False)
    all_namespaces: bool = False  # PODS: may match pods of any namespace (no namespace restriction)
    all_pods: bool = False  # PODS: every pod of the namespaces it matches
    namespace: str | None = None  # PODS/SERVICE: confined to this namespace
    block: IPSet = NO_ADDRESSES  # ADDRESSES: the addresses it matches (exceptions removed)
    selects_pods: bool = False  # ADDRESSES: also matches pods whose addresses are inside
    not_block: IPSet = NO_ADDRESSES  # Calico notNets: never matches these
    witness: tuple[tuple[str, str], ...] | None = None  # labels of a pod it matches (representatives)
    names: tuple[str, ...] = ()  # FQDN names, SERVICE name
    key: str = ""  # what makes two peers equal (texts may differ in spelling)
    in_namespace: NsMatch | None = field(
        default=None, compare=False
    )  # a fast filter: may it match pods there?

    def may_match_in(self, namespace: str, ns_labels: NsLabels) -> bool:
        """False only when no pod of the namespace can match (lets callers skip whole namespaces)."""
        if self.kind in (PeerKind.WORLD, PeerKind.NODES, PeerKind.FQDN, PeerKind.UNKNOWN):
            return False
        if self.kind == PeerKind.ADDRESSES and not self.selects_pods:
            return False
        if self.namespace is not None and self.kind == PeerKind.PODS:
            return namespace == self.namespace
        return self.in_namespace is None or self.in_namespace(namespace, ns_labels(namespace))

    def matches(self, other: Endpoint, ns_labels: NsLabels) -> bool:
        if isinstance(other, Generic):
            return self.is_everything()
        if isinstance(other, Workload):
            return self._matches_pod(other, ns_labels)
        return self._matches_block(other)

    def is_everything(self) -> bool:
        if self.kind == PeerKind.ANY:
            return not self.not_block and self.pods is None
        return (
            self.kind == PeerKind.ADDRESSES
            and self.selects_pods
            and ALL_V4.issubset(self.block)
            and not self.not_block
        )

    def _matches_pod(self, pod: Workload, ns_labels: NsLabels) -> bool:
        if self.not_block and pod.excluded_by(self.not_block):
            return False
        if self.kind == PeerKind.ANY:
            return self.pods is None or self.pods(pod, ns_labels)
        if self.kind in (PeerKind.PODS, PeerKind.SERVICE):
            return self.pods is not None and self.pods(pod, ns_labels)
        if self.kind == PeerKind.ADDRESSES and self.selects_pods:
            if self.pods is not None:  # Calico: the entity's criteria decide, addresses included
                return self.pods(pod, ns_labels)
            return pod.inside(self.block)
        return False

    def _matches_block(self, block: IPSet) -> bool:
        if not block or (self.not_block and block.overlaps(self.not_block)):
            return False
        if self.kind in (PeerKind.ANY, PeerKind.WORLD):
            return True
        if self.kind in (PeerKind.ADDRESSES, PeerKind.SERVICE, PeerKind.PODS):
            return bool(self.block) and block.issubset(self.block)  # PODS: Calico network sets
        return False


@dataclass(frozen=True)
class PortSpec:
    """One port item: a number or range, a named port, or all ports of the protocol.
    protocol None: TCP, UDP and SCTP (or, with a name, the named port's own protocol)."""

    protocol: str | None
    lo: int | None = None
    hi: int | None = None
    name: str | None = None
    other: bool = False  # ICMP and other protocols without ports

    def conns(self, dst: Endpoint) -> ConnSet:
        if self.other:
            return ConnSet(other=True)
        if self.name is None:
            if self.protocol is None:
                return _all_protocols(self.lo, self.hi)
            return ConnSet.ports(self.protocol, self.lo, self.hi)
        if not isinstance(dst, Workload):
            return ConnSet()  # named ports are defined by pods, never by address blocks
        port = dst.resolve(self.name)
        if port is None or (self.protocol is not None and port.protocol.upper() != self.protocol.upper()):
            return ConnSet()
        return ConnSet.ports(port.protocol, port.port, port.port)

    def text(self) -> str:
        if self.other:
            return str(self.protocol or "ICMP")
        proto = self.protocol or "any"
        if self.name is not None:
            return f"{proto} {self.name}"
        if self.lo is None:
            return f"{proto} all ports"
        return f"{proto} {self.lo}" if self.hi in (None, self.lo) else f"{proto} {self.lo}-{self.hi}"


def _all_protocols(lo: int | None, hi: int | None) -> ConnSet:
    out = ConnSet()
    for proto in ("TCP", "UDP", "SCTP"):
        out = out.union(ConnSet.ports(proto, lo, hi))
    return out


@dataclass(frozen=True)
class Rule:
    action: Action
    peers: tuple[Peer, ...] | None  # None: every peer
    ports: tuple[PortSpec, ...] | None  # None: every port of every protocol
    where: str  # e.g. "egress[1]" or "ingress[0] 'allow-dns'"
    not_ports: tuple[PortSpec, ...] = ()  # Calico notPorts / notProtocol
    local: PodMatch | None = field(default=None, compare=False)  # Calico: the subject side's own criteria
    everything_peers: bool = False  # the peers together cover every pod and every address

    def matches(self, other: Endpoint, subject: Workload, ns_labels: NsLabels) -> bool:
        if self.local is not None and not self.local(subject, ns_labels):
            return False
        if self.peers is None:
            return True
        if isinstance(other, Generic) and self.everything_peers:
            return True
        return any(p.matches(other, ns_labels) for p in self.peers)

    def conns(self, dst: Endpoint) -> ConnSet:
        if self.ports is None:
            out = ConnSet.everything()
        else:
            out = ConnSet()
            for spec in self.ports:
                out = out.union(spec.conns(dst))
        for spec in self.not_ports:
            out = out.subtract(spec.conns(dst))
        return out

    def peers_text(self) -> str:
        return "any peer" if self.peers is None else ", ".join(p.text for p in self.peers) or "nothing"

    def ports_text(self) -> str:
        if self.ports is None and not self.not_ports:
            return "all ports"
        text = "all ports" if self.ports is None else ", ".join(p.text() for p in self.ports)
        if self.not_ports:
            text += " except " + ", ".join(p.text() for p in self.not_ports)
        return text

    def text(self) -> str:
        return f"{self.where}: {self.action.value} {self.peers_text()} on {self.ports_text()}"


SelectFn = Callable[[Workload, NsLabels], bool]


@dataclass(frozen=True)
class Policy:
    """One policy (or one rule set of a Cilium `specs` list) as the engine evaluates it."""

    label: str  # e.g. "NetworkPolicy team-a/default-deny"
    kind: str  # the API kind: NetworkPolicy, CiliumNetworkPolicy, GlobalNetworkPolicy, ...
    layer: Layer
    order: float  # ANP priority, Calico order; lower applies first
    namespace: str | None  # namespaced policies select pods of their own namespace only
    selects: SelectFn = field(compare=False)
    isolates: frozenset[Direction] = frozenset()
    ingress: tuple[Rule, ...] = ()
    egress: tuple[Rule, ...] = ()
    witnesses: tuple[tuple[tuple[str, str], ...], ...] = ()  # labels of pods it selects
    ref: object = field(default=None, compare=False, hash=False)  # the fact it was read from
    flavor: str = "kubernetes"  # "kubernetes", "cilium", "calico", "admin", "baseline"
    tier: str = "default"  # Calico tier

    def rules(self, direction: Direction) -> tuple[Rule, ...]:
        return self.ingress if direction == "Ingress" else self.egress

    def applies(self, pod: Workload, ns_labels: NsLabels) -> bool:
        if self.namespace is not None and pod.namespace != self.namespace:
            return False
        return self.selects(pod, ns_labels)


@dataclass(frozen=True)
class NetworkSet:
    """A Calico NetworkSet (namespaced) or GlobalNetworkSet: labelled addresses rule selectors match."""

    name: str
    namespace: str | None
    labels: Mapping[str, str]
    block: IPSet


@dataclass(frozen=True)
class Profile:
    """A Calico Profile's rules, applied to endpoints no policy decides (kns.<ns>, ksa.<ns>.<sa>)."""

    name: str
    ingress: tuple[Rule, ...]
    egress: tuple[Rule, ...]
    labels_to_apply: Mapping[str, str] = field(default_factory=dict)
    ref: object = field(default=None, compare=False, hash=False)

    def rules(self, direction: Direction) -> tuple[Rule, ...]:
        return self.ingress if direction == "Ingress" else self.egress
