"""Workloads: netpol-analyzer's nodes, and the pods every policy question is asked about.

A workload is the owner of a set of pods with the same labels and ports (a Deployment, a DaemonSet, a
ReplicaSet whose owner is unknown, or a bare Pod), drawn `namespace/name[Kind]`. Policies see only a
pod's namespace, labels, service account, ports and addresses, so workloads with the same `class_key`
get the same verdicts (the engine caches on it).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from checks.lateral.addresses import NO_ADDRESSES, IPSet

NAMESPACE_NAME_LABEL = "kubernetes.io/metadata.name"
DEFAULT_SERVICE_ACCOUNT = "default"
Labels = tuple[tuple[str, str], ...]


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
    ips: IPSet = NO_ADDRESSES  # pod IPs when known: address rules (Calico nets, ANP networks) match them
    service_account: str = DEFAULT_SERVICE_ACCOUNT
    ref: object = field(default=None, compare=False, hash=False)  # the fact(s) it came from
    # True: `ips` is the space the pod's one address lies somewhere in (a pod that may be scheduled),
    # not its addresses: an address rule matches it only when it holds that whole space
    somewhere: bool = False

    def inside(self, block: IPSet) -> bool:
        """Is the pod's address surely in `block` (Calico nets, ANP networks select it)?"""
        return bool(self.ips) and self.ips.issubset(block)

    def excluded_by(self, block: IPSet) -> bool:
        """Does `block` surely hold one of the pod's addresses (Calico notNets leave it out)? A pod
        somewhere in a space is left out only when the block holds the whole space."""
        if not self.ips or not block:
            return False
        return self.ips.issubset(block) if self.somewhere else self.ips.overlaps(block)

    @property
    def label_map(self) -> dict[str, str]:
        return dict(self.labels)

    def node_id(self) -> str:
        """netpol-analyzer's name for the node."""
        return f"{self.namespace}/{self.name}[{self.kind}]"

    def class_key(self) -> tuple[object, ...]:
        """Workloads with the same key get the same verdicts: policies see only these."""
        return (self.namespace, self.labels, self.ports, self.ips, self.service_account, self.somewhere)

    def resolve(self, port_name: str) -> NamedPort | None:
        return next((p for p in self.ports if p.name == port_name), None)


SERVICE_ACCOUNT_KEY = "@serviceaccount"  # in a witness: the service account (no label key has an @)


def with_service_account(witness: Labels | None, account: str | None) -> Labels | None:
    """A witness that also needs a service account (Cilium's serviceaccount label, Calico's
    serviceAccounts), so the representative pod built from it is selected."""
    if witness is None or not account:
        return witness
    return tuple(
        sorted((*[(k, v) for k, v in witness if k != SERVICE_ACCOUNT_KEY], (SERVICE_ACCOUNT_KEY, account)))
    )


def from_witness(namespace: str, witness: Labels, space: IPSet = NO_ADDRESSES) -> Workload:
    """The minimal pod of a namespace a selector picks: the witness's labels and service account, its
    address somewhere in `space` (the cluster's pod addresses as far as they are known)."""
    labels = tuple((k, v) for k, v in witness if k != SERVICE_ACCOUNT_KEY)
    account = next((v for k, v in witness if k == SERVICE_ACCOUNT_KEY), DEFAULT_SERVICE_ACCOUNT)
    return Workload(namespace, "any-pod", "Pod", labels, (), space, account, somewhere=bool(space))


def describe_witness(witness: Labels) -> str:
    labels = ", ".join(f"{k}={v}" for k, v in witness if k != SERVICE_ACCOUNT_KEY) or "no labels"
    account = next((v for k, v in witness if k == SERVICE_ACCOUNT_KEY), None)
    return labels + (f", service account {account}" if account else "")


def representative(namespace: str, labels: dict[str, str] | None = None, why: str = "") -> Workload:
    """A pod that may be scheduled in `namespace` with exactly these labels (no ports, no address)."""
    name = why or (
        "any-pod" if not labels else "pod{" + ",".join(f"{k}={v}" for k, v in sorted(labels.items())) + "}"
    )
    return Workload(namespace, name, "Pod", freeze(labels or {}))
