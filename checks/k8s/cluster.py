"""One cluster's evidence as the engine sees it: compiled policies, the engine, and the pods to ask about.

Which pods: the K8sPod facts when the evidence covers pods (one per distinct class: namespace, labels,
service account, ports, addresses); and, since policies must hold for any pod that may be scheduled,
representatives: a pod with no labels (selected only by catch-all policies) and, per policy that may
select pods of the namespace, one that minimally matches its selector. Checks about a namespace's own
pods use both; the peers of a rule add the pods its selectors name (`peer_representatives`).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TypeVar

from auditor.facts import K8sNamespace, K8sNetworkPolicy, K8sPod, K8sService
from auditor.store.reader import StoredFact
from checks.k8s.compile import ClusterPolicies, compile_policies
from checks.k8s.engine import PolicyEngine
from checks.k8s.ir import PeerKind
from checks.k8s.workloads import (
    NAMESPACE_NAME_LABEL,
    NamedPort,
    Workload,
    describe_witness,
    freeze,
    from_witness,
)
from checks.lateral.addresses import IPSet

Subject = tuple[Workload, str, tuple[object, ...]]  # (pod class, how it was chosen, facts)
T = TypeVar("T")


def pod_workload(rec: K8sPod, ref: object = None) -> Workload:
    return Workload(
        rec.namespace,
        rec.owner or rec.name,
        "Pod",
        freeze(dict(rec.labels)),
        tuple(NamedPort(p.port, p.protocol.upper(), p.name) for p in rec.ports),
        IPSet.parse(*rec.ips, *([rec.ip] if rec.ip else [])),
        rec.service_account,
        ref,
    )


def pod_space(ranges: Sequence[IPSet], pods: Sequence[StoredFact[K8sPod]]) -> IPSet:
    """Where a pod that may be scheduled gets its address: the ranges holding the evidence's pods
    (running or pending, not host-network), or every range when none does."""
    seen = IPSet()
    for pod in pods:
        if pod.record.phase not in ("Succeeded", "Failed") and not pod.record.host_network:
            seen = seen.union(IPSet.parse(*pod.record.ips, *([pod.record.ip] if pod.record.ip else [])))
    holding = [r for r in ranges if r.overlaps(seen)]
    out = IPSet()
    for r in holding or ranges:
        out = out.union(r)
    return out


@dataclass
class ClusterModel:
    name: str
    namespaces: dict[str, dict[str, str]]
    compiled: ClusterPolicies
    engine: PolicyEngine
    pods: dict[str, list[StoredFact[K8sPod]]] | None  # None: pods are not in the evidence
    services: list[StoredFact[K8sService]] = field(default_factory=list)
    pod_space: IPSet = field(default_factory=IPSet)  # where pods that may be scheduled get addresses
    _memo: dict[tuple[str, str], list[object]] = field(default_factory=dict, repr=False)

    def cached(self, key: tuple[str, str], build: Callable[[], list[T]]) -> list[T]:
        if key not in self._memo:
            self._memo[key] = list(build())
        return self._memo[key]  # type: ignore[return-value]

    @classmethod
    def build(
        cls,
        name: str,
        namespaces: Sequence[StoredFact[K8sNamespace]],
        policies: Sequence[StoredFact[K8sNetworkPolicy]],
        pods: Sequence[StoredFact[K8sPod]] | None = None,
        services: Sequence[StoredFact[K8sService]] = (),
        pod_ranges: Sequence[IPSet] = (),
    ) -> ClusterModel:
        """`pod_ranges`: where the cluster's pods may have addresses (the frontend tier's CIDRs); the
        ranges holding a pod of the evidence, when there are such pods, else all of them."""
        labels = {n.record.name: dict(n.record.labels) for n in namespaces}
        for n, ns_labels in labels.items():
            ns_labels.setdefault(NAMESPACE_NAME_LABEL, n)
        compiled = compile_policies(((p.record, p) for p in policies), [s.record for s in services])
        by_ns: dict[str, list[StoredFact[K8sPod]]] | None = None
        if pods is not None:
            by_ns = defaultdict(list)
            for pod in pods:
                by_ns[pod.record.namespace].append(pod)
        space = pod_space(pod_ranges, pods or ())
        return cls(name, labels, compiled, PolicyEngine(labels, compiled), by_ns, list(services), space)

    def _actual(self, namespace: str) -> list[Subject]:
        """One workload per pod class of the namespace (running or pending pods)."""
        seen: dict[object, Subject] = {}
        for pod in (self.pods or {}).get(namespace, []):
            if pod.record.phase in ("Succeeded", "Failed") or pod.record.host_network:
                continue  # finished pods open nothing; host-network pods are the node's
            w = pod_workload(pod.record, pod)
            seen.setdefault(w.class_key(), (w, f"pod {pod.record.name}", (pod,)))
        return list(seen.values())

    def _representatives(self, namespace: str) -> list[Subject]:
        """Pods that may be scheduled: one without labels, one per selector of a policy that may apply."""
        out: dict[object, Subject] = {}
        base = from_witness(namespace, (), self.pod_space)
        out[base.class_key()] = (base, "a pod with no labels", ())
        for policy in self.compiled.all():
            if policy.namespace not in (None, namespace):
                continue
            for labels in policy.witnesses:
                w = from_witness(namespace, labels, self.pod_space)
                out.setdefault(w.class_key(), (w, f"a pod with {describe_witness(labels)}", ()))
        return list(out.values())

    def _peer_representatives(self, namespace: str) -> list[Workload]:
        """Pods of the namespace that rule peers name: a minimal pod per pod selector of a peer."""
        out: dict[object, Workload] = {}
        by_ns = self._witnesses()
        for labels in [*by_ns.get(None, ()), *by_ns.get(namespace, ())]:
            w = from_witness(namespace, labels, self.pod_space)
            out.setdefault(w.class_key(), w)
        return list(out.values())

    def _witnesses(self) -> dict[str | None, list[tuple[tuple[str, str], ...]]]:
        """Pod labels of every rule peer with a pod selector, by the namespace the peer is confined to."""

        def build() -> list[dict[str | None, list[tuple[tuple[str, str], ...]]]]:
            found: dict[str | None, dict[tuple[tuple[str, str], ...], None]] = {}
            for policy in self.compiled.all():
                for rule in (*policy.ingress, *policy.egress):
                    for peer in rule.peers or ():
                        if peer.witness is not None:
                            found.setdefault(peer.namespace, {}).setdefault(peer.witness, None)
            return [{k: list(v) for k, v in found.items()}]

        return self.cached(("witnesses", ""), build)[0]

    def _subjects(self, namespace: str) -> list[Subject]:
        """The pods checks judge: every actual pod class and every representative. Pods that differ only
        in their addresses are one class unless some rule matches pods by address (Calico nets, ANP
        networks)."""
        by_address = self._address_sensitive()
        out: dict[object, Subject] = {}
        for s in [*self.actual(namespace), *self.representatives(namespace)]:
            w = s[0]
            key = w.class_key() if by_address else (w.namespace, w.labels, w.ports, w.service_account)
            out.setdefault(key, s)
        return list(out.values())

    def _address_sensitive(self) -> bool:
        def build() -> list[bool]:
            for policy in self.compiled.all():
                for rule in (*policy.ingress, *policy.egress):
                    if rule.local is not None:
                        return [True]
                    for peer in rule.peers or ():
                        if peer.selects_pods or peer.not_block or (peer.kind == PeerKind.PODS and peer.block):
                            return [True]
            return [bool(self.compiled.profiles)]

        return self.cached(("address-sensitive", ""), build)[0]

    def lateral_subjects(self, namespace: str) -> list[Subject]:
        """The lateral model's sources: the actual pods when in the evidence, else representatives."""
        return self.actual(namespace) if self.pods is not None else self.representatives(namespace)

    def _everyone(self, namespace: str) -> list[Workload]:
        """Pods that may be in the namespace, as peers: subjects and what rule peers name."""
        out = {s[0].class_key(): s[0] for s in self.subjects(namespace)}
        for w in self.peer_representatives(namespace):
            out.setdefault(w.class_key(), w)
        return list(out.values())

    # --- memoized views (checks ask them per namespace, many times) ---------------------------

    def actual(self, namespace: str) -> list[Subject]:
        return self.cached(("actual", namespace), lambda: self._actual(namespace))

    def representatives(self, namespace: str) -> list[Subject]:
        return self.cached(("representatives", namespace), lambda: self._representatives(namespace))

    def peer_representatives(self, namespace: str) -> list[Workload]:
        return self.cached(("peer_representatives", namespace), lambda: self._peer_representatives(namespace))

    def subjects(self, namespace: str) -> list[Subject]:
        return self.cached(("subjects", namespace), lambda: self._subjects(namespace))

    def everyone(self, namespace: str) -> list[Workload]:
        return self.cached(("everyone", namespace), lambda: self._everyone(namespace))
