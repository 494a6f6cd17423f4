"""The Kubernetes side of the model: workloads (netpol-analyzer's nodes) and compiled policies.

A workload is what netpol-analyzer draws as one node, `namespace/name[Kind]`: the owner of a set of
pods with the same labels and ports (a Deployment, a DaemonSet, a ReplicaSet whose owner is unknown, or
a bare Pod). Policies are compiled once from the K8sNetworkPolicy facts into forms that answer
"does this rule match that peer, on which ports" without re-parsing.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from auditor.facts.kubernetes import LabelSelector
from checks.lateral.addresses import NO_ADDRESSES, IPSet

NAMESPACE_NAME_LABEL = "kubernetes.io/metadata.name"
Labels = tuple[tuple[str, str], ...]
Action = Literal["Allow", "Deny", "Pass"]


def freeze(labels: dict[str, str]) -> Labels:
    return tuple(sorted(labels.items()))


@dataclass(frozen=True)
class NamedPort:
    """A container port; `name` resolves named ports in policy rules that select this workload."""

    port: int
    protocol: str = "TCP"
    name: str | None = None


@dataclass(frozen=True)
class Workload:
    namespace: str
    name: str
    kind: str
    labels: Labels = ()
    ports: tuple[NamedPort, ...] = ()
    ips: IPSet = NO_ADDRESSES  # pod IPs when known: they place the workload in a network zone
    ref: object = field(default=None, compare=False, hash=False)  # the fact(s) it came from

    @property
    def label_map(self) -> dict[str, str]:
        return dict(self.labels)

    def node_id(self) -> str:
        """netpol-analyzer's name for the node."""
        return f"{self.namespace}/{self.name}[{self.kind}]"

    def class_key(self) -> tuple[str, Labels, tuple[NamedPort, ...]]:
        """Workloads with the same key get the same verdicts: policies see only these."""
        return (self.namespace, self.labels, self.ports)

    def resolve(self, port_name: str) -> NamedPort | None:
        return next((p for p in self.ports if p.name == port_name), None)


@dataclass(frozen=True)
class PortSpec:
    """One `ports` item: a number or range, a named port, or (port None and name None) all ports."""

    protocol: str | None  # None: the protocol of the resolved named port (ANP namedPort)
    lo: int | None = None
    hi: int | None = None
    name: str | None = None


@dataclass(frozen=True)
class PeerSpec:
    """A `from`/`to` item. Selectors None mean "not constrained" except as noted per flavor."""

    kind: Literal["pods", "ip", "nodes"]
    namespaces: LabelSelector | None = None  # None with kind=pods: the policy's own namespace (NP)
    pods: LabelSelector | None = None  # None: all pods of the selected namespaces
    block: IPSet = NO_ADDRESSES
    same_namespace_as: str | None = None  # NP peer without namespaceSelector


@dataclass(frozen=True)
class RuleSpec:
    peers: tuple[PeerSpec, ...] | None  # None: every peer (an NP rule without from/to)
    ports: tuple[PortSpec, ...] | None  # None: every port
    action: Action = "Allow"
    name: str = ""


@dataclass(frozen=True)
class NetPol:
    """A networking.k8s.io/v1 NetworkPolicy: isolates its pods per direction; rules are a union."""

    namespace: str
    name: str
    selector: LabelSelector
    ingress_isolated: bool
    egress_isolated: bool
    ingress: tuple[RuleSpec, ...]
    egress: tuple[RuleSpec, ...]
    ref: object = field(default=None, compare=False, hash=False)

    def label(self) -> str:
        return f"NetworkPolicy {self.namespace}/{self.name}"


@dataclass(frozen=True)
class AdminPol:
    """An AdminNetworkPolicy (baseline=False) or the BaselineAdminNetworkPolicy: ordered rules read as-is."""

    name: str
    baseline: bool
    priority: int
    subject_namespaces: LabelSelector
    subject_pods: LabelSelector | None  # None: every pod of the selected namespaces
    ingress: tuple[RuleSpec, ...]
    egress: tuple[RuleSpec, ...]
    ref: object = field(default=None, compare=False, hash=False)

    def label(self) -> str:
        kind = (
            "BaselineAdminNetworkPolicy"
            if self.baseline
            else f"AdminNetworkPolicy (priority {self.priority})"
        )
        return f"{kind} {self.name}"
