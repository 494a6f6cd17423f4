"""What a network policy of any flavor means, in one small vocabulary the tier-2 checks share.

Every flavor (Kubernetes NetworkPolicy, Cilium CNP/CCNP, Calico NetworkPolicy/GlobalNetworkPolicy,
AdminNetworkPolicy/BaselineAdminNetworkPolicy) is read into a `PolicyView` (see k8s_flavors): which
namespaces' pods it applies to, which directions it isolates, and its rules as (action, peers,
ports). The checks ask questions at namespace level ("is every pod of team-a in default deny for
egress?", "does any allow rule reach another tenant's namespace?"); pod-level reachability is the
lateral-movement analysis' job (checks/lateral).

Precedence follows the APIs (policy.networking.k8s.io, docs.cilium.io, docs.tigera.io):
AdminNetworkPolicies by priority, first matching rule wins (Allow/Deny final, Pass goes on); then the
NetworkPolicy layer (Kubernetes, Cilium and Calico policies; Cilium deny rules beat allows, Calico
policies apply by `order`); then the BaselineAdminNetworkPolicy for pods no NetworkPolicy isolates.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import IntEnum, StrEnum
from typing import Literal

from auditor.facts import K8sNetworkPolicy
from auditor.store.reader import StoredFact
from checks.netutil import Network, network

Direction = Literal["Ingress", "Egress"]
Tri = bool | None  # True: every pod; False: none; None: some, depending on pod labels
NamespacePredicate = Callable[[str, Mapping[str, str]], Tri]
ALL_PORTS = (0, 65535)


class Action(StrEnum):
    ALLOW = "allow"
    DENY = "deny"
    PASS = "pass"  # noqa: S105 (an action, not a password). ANP/Calico: no verdict here, the next layer/tier decides


class Layer(IntEnum):
    ADMIN = 0
    NETPOL = 1
    BASELINE = 2


class PeerKind(StrEnum):
    ANY = "any"  # every address, in the cluster and outside it
    PODS = "pods"  # pods of the namespaces `namespaces` picks
    CIDR = "cidr"  # an address block, minus its exceptions
    WORLD = "world"  # everything outside the cluster (Cilium `world`)
    CLUSTER_HOSTS = "cluster-hosts"  # nodes, the API server, host networking: in-cluster, no tenant pods
    SERVICE = "service"  # an in-cluster service by name or selector
    FQDN = "fqdn"  # names resolved at run time (Cilium toFQDNs, Calico domains, ANP domainNames)
    EXTERNAL = "external"  # addresses the evidence does not hold (cidrGroupRef, toGroups)


IN_CLUSTER = frozenset({PeerKind.PODS, PeerKind.CLUSTER_HOSTS, PeerKind.SERVICE})


@dataclass(frozen=True)
class NamespaceScope:
    """Which namespaces a pod peer's pods live in. `everything`: any namespace, present or future."""

    text: str
    everything: bool = False
    same: str | None = None
    predicate: NamespacePredicate | None = field(default=None, compare=False)
    required: tuple[str, str] | None = None  # a label every matching namespace carries (an index key)

    def matches(self, name: str, labels: Mapping[str, str]) -> bool:
        """May pods of this namespace be among the peer's pods?"""
        if self.everything:
            return True
        if self.same is not None:
            return name == self.same
        return self.predicate is not None and self.predicate(name, labels) is not False


@dataclass(frozen=True)
class Peer:
    kind: PeerKind
    text: str
    namespaces: NamespaceScope | None = None  # PODS (and SERVICE when namespaced)
    all_pods: bool = True  # PODS: every pod of those namespaces, or only pods a selector picks
    cidr: str | None = None  # CIDR
    except_: tuple[str, ...] = ()

    @property
    def in_cluster(self) -> bool:
        return self.kind in IN_CLUSTER

    def net(self) -> Network | None:
        return network(self.cidr) if self.cidr else None


@dataclass(frozen=True)
class PortRange:
    """Destination ports. protocol None: any protocol; start None: every port; name: a named port."""

    protocol: str | None = None
    start: int | None = None
    end: int | None = None
    name: str | None = None

    def includes(self, protocol: str, port: int) -> bool:
        """Named ports resolve to container ports of in-cluster pods only, so never to an address."""
        if self.name is not None:
            return False
        if self.protocol is not None and self.protocol.upper() != protocol.upper():
            return False
        if self.start is None:
            return True
        return self.start <= port <= (self.end if self.end is not None else self.start)

    def text(self) -> str:
        proto = self.protocol or "any"
        if self.name is not None:
            return f"{self.name}/{proto}"
        if self.start is None:
            return f"all/{proto}"
        span = f"{self.start}-{self.end}" if self.end not in (None, self.start) else str(self.start)
        return f"{span}/{proto}"


@dataclass(frozen=True)
class Rule:
    direction: Direction
    action: Action
    peers: tuple[Peer, ...]
    ports: tuple[PortRange, ...] | None  # None: every port of every protocol
    where: str  # e.g. "egress[1]" or "ingress[0] 'allow-dns'"
    everything: bool = False  # matches every peer on every port (flavor-aware; set by the reader)

    def opens(self, protocol: str, port: int) -> bool:
        return self.ports is None or any(p.includes(protocol, port) for p in self.ports)

    def ports_text(self) -> str:
        return "all ports" if self.ports is None else ", ".join(p.text() for p in self.ports)

    def text(self) -> str:
        peers = ", ".join(p.text for p in self.peers) or "nothing"
        return f"{self.where}: {self.action.value} {peers} on {self.ports_text()}"


@dataclass(frozen=True)
class PolicyView:
    """One policy as the checks reason about it."""

    fact: StoredFact[K8sNetworkPolicy]
    layer: Layer
    order: float  # ANP priority, Calico order; lower applies first
    rules: tuple[Rule, ...]
    isolates: frozenset[Direction]  # NetworkPolicy layer: directions its selected pods become isolated in
    applies: NamespacePredicate = field(compare=False)  # which pods of a namespace it selects
    problems: tuple[str, ...] = ()  # parts that could not be read (reported, never guessed)

    @property
    def name(self) -> str:
        return self.fact.record.name

    @property
    def subject(self) -> str:
        return self.fact.record.subject()

    def label(self) -> str:
        rec = self.fact.record
        where = f"{rec.namespace}/" if rec.namespace else ""
        return f"{rec.flavor.value} {where}{rec.name}"

    def selects(self, name: str, labels: Mapping[str, str]) -> Tri:
        return self.applies(name, labels)

    def rules_for(self, direction: Direction) -> list[Rule]:
        return [r for r in self.rules if r.direction == direction]


@dataclass(frozen=True)
class DenyVerdict:
    """Is every pod of a namespace in default deny for one direction, and because of which policies."""

    denied: bool
    reason: str
    because: tuple[PolicyView, ...] = ()


def default_deny(
    name: str, labels: Mapping[str, str], direction: Direction, policies: Sequence[PolicyView]
) -> DenyVerdict:
    """Decide for the 'generic' connection: any peer, any port. Specific rules do not decide it."""
    relevant = [(p, p.selects(name, labels)) for p in policies]
    relevant = [(p, s) for p, s in relevant if s is not False]
    admin = sorted((x for x in relevant if x[0].layer == Layer.ADMIN), key=lambda x: x[0].order)
    for policy, sel in admin:
        verdict = _first_everything(policy, direction, sel)
        if verdict is not None:
            return verdict
        if any(r.everything and r.action == Action.PASS for r in policy.rules_for(direction)):
            break  # Pass: skip the remaining admin policies, the NetworkPolicy layer decides
    netpol = [x for x in relevant if x[0].layer == Layer.NETPOL]
    explicit: list[tuple[float, int, PolicyView, Rule, Tri]] = []
    for policy, sel in netpol:
        for rule in policy.rules_for(direction):
            if rule.everything and rule.action != Action.PASS:
                rank = 0 if rule.action == Action.DENY else 1  # deny wins a tie (Cilium: always)
                explicit.append((policy.order, rank, policy, rule, sel))
    if explicit:
        _, _, policy, rule, sel = min(explicit, key=lambda x: (x[0], x[1]))
        if rule.action == Action.ALLOW:
            return DenyVerdict(False, f"{policy.label()} {rule.where} allows everything", (policy,))
        if sel is True:
            return DenyVerdict(True, f"{policy.label()} {rule.where} denies everything", (policy,))
    isolating = [p for p, sel in netpol if sel is True and direction in p.isolates]
    if isolating:
        names = ", ".join(p.label() for p in isolating)
        return DenyVerdict(True, f"isolated by {names}", tuple(isolating))
    for policy, sel in relevant:
        if policy.layer == Layer.BASELINE:
            verdict = _first_everything(policy, direction, sel)
            if verdict is not None:
                return verdict
    partial = [p for p, _ in netpol if direction in p.isolates]
    if partial:
        names = ", ".join(p.label() for p in partial)
        return DenyVerdict(False, f"only some pods are isolated ({names})", tuple(partial))
    return DenyVerdict(False, "no policy isolates its pods")


def _first_everything(policy: PolicyView, direction: Direction, sel: Tri) -> DenyVerdict | None:
    """Admin and baseline policies: rules in order, the first that matches everything decides."""
    for rule in policy.rules_for(direction):
        if not rule.everything:
            continue
        if rule.action == Action.ALLOW:
            return DenyVerdict(False, f"{policy.label()} {rule.where} allows everything", (policy,))
        if rule.action == Action.DENY and sel is True:
            return DenyVerdict(True, f"{policy.label()} {rule.where} denies everything", (policy,))
        return None
    return None


def allow_rules(
    name: str, labels: Mapping[str, str], direction: Direction, policies: Iterable[PolicyView]
) -> list[tuple[PolicyView, Rule]]:
    """Every allow rule of every policy selecting some pod of the namespace, in that direction."""
    out: list[tuple[PolicyView, Rule]] = []
    for policy in policies:
        if policy.selects(name, labels) is False:
            continue
        out.extend((policy, r) for r in policy.rules_for(direction) if r.action == Action.ALLOW)
    return out


def namespace_everything(text: str = "any namespace") -> NamespaceScope:
    return NamespaceScope(text, everything=True)
