"""The Kubernetes part every tenant-namespace check shares: which clusters can be assessed, which of
their namespaces are tenants, and the cluster model (checks/k8s: compiled policies and the engine)
that answers for them."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from auditor.config.models import NamespaceSelector
from auditor.enums import FactKind
from auditor.facts import FactRecord, K8sNamespace, K8sNetworkPolicy, K8sPod, K8sService
from auditor.store.reader import StoredFact
from checks.base import Check, CheckContext, Finding
from checks.k8s.cluster import ClusterModel
from checks.k8s.ir import Policy
from checks.lateral.addresses import IPSet
from checks.text import clauses

NEEDS = frozenset({FactKind.K8S_NAMESPACE, FactKind.K8S_NETWORK_POLICY})


@dataclass
class Cluster:
    """One live cluster's tenant namespaces and its model."""

    target: str
    selector: NamespaceSelector
    model: ClusterModel
    namespaces: list[StoredFact[K8sNamespace]] = field(default_factory=list)
    tenants: list[StoredFact[K8sNamespace]] = field(default_factory=list)

    def tenant_of(self, ns: K8sNamespace) -> str:
        return self.selector.tenant_of(ns.name, ns.labels)

    def gaps(self, *namespaces: str) -> str | None:
        """Why verdicts about pods of these namespaces cannot be trusted (kinds named), or None."""
        gaps = self.model.compiled.gaps_for(namespaces)
        if not gaps:
            return None
        kinds = ", ".join(sorted({g.kind for g in gaps}))
        return f"cannot evaluate {kinds}: " + "; ".join(g.text for g in gaps)

    def selecting(self, namespace: str) -> list[Policy]:
        """The policies that select some pod the checks judge in this namespace."""
        found: dict[int, Policy] = {}
        for w, _, _ in self.model.subjects(namespace):
            for p in self.model.engine.selecting(w):
                found.setdefault(id(p), p)
        return list(found.values())


def tenant_clusters(check: Check, ctx: CheckContext) -> tuple[list[Cluster], list[Finding]]:
    """Assessable live clusters with their tenants, and NOT_ASSESSED findings for what cannot be judged.

    Only targets of kind `kubernetes` are live clusters: declared policies (kind `declared`, see
    collectors/declared) are compared by X-DECLARED-VS-LIVE, never assessed as if they were in force.
    """
    frontend = ctx.intent.tiers.frontend
    assert frontend is not None
    if frontend.namespaces is None:
        reason = "the intent names no tenant namespaces; declare intent.tiers.frontend.namespaces"
        return [], [check.not_assessed("tenant namespaces", reason)]
    selector = frontend.namespaces
    ready, gaps = check.split_assessable(ctx, [t for t in ctx.targets if t.kind == "kubernetes"], NEEDS)
    names = {t.name for t in ready}
    namespaces: dict[str, list[StoredFact[K8sNamespace]]] = {n: [] for n in names}
    policies: dict[str, list[StoredFact[K8sNetworkPolicy]]] = {n: [] for n in names}
    pods: dict[str, list[StoredFact[K8sPod]]] = {n: [] for n in names}
    services: dict[str, list[StoredFact[K8sService]]] = {n: [] for n in names}
    for ns_fact in ctx.facts.of(K8sNamespace):
        namespaces.get(ns_fact.target, []).append(ns_fact)
    for policy in ctx.facts.of(K8sNetworkPolicy):
        policies.get(policy.target, []).append(policy)
    for pod in ctx.facts.of(K8sPod):
        pods.get(pod.target, []).append(pod)
    for svc in ctx.facts.of(K8sService):
        services.get(svc.target, []).append(svc)
    ranges = [IPSet.parse(c) for c in frontend.cidrs]  # tenant pods have frontend addresses
    out: list[Cluster] = []
    for name in sorted(names):
        tenants = [ns for ns in namespaces[name] if selector.selects(ns.record.name, ns.record.labels)]
        if not tenants:
            gaps.append(
                check.not_assessed(
                    name, f"{name}: no namespace matches the declared tenant selector", target=name
                )
            )
            continue
        covered = ctx.facts.covered(name, FactKind.K8S_POD)
        model = ctx.derived(  # one model per cluster, shared by every check that asks
            f"k8s-cluster-model:{name}",
            lambda n=name, c=covered: ClusterModel.build(  # type: ignore[misc]
                n, namespaces[n], policies[n], pods[n] if c else None, services[n], ranges
            ),
        )
        out.append(Cluster(name, selector, model, namespaces[name], tenants))
    return out, gaps


def facts_of(policies: Iterable[Policy | None]) -> list[StoredFact[FactRecord]]:
    seen: dict[int, StoredFact[FactRecord]] = {}
    for p in policies:
        if p is not None and isinstance(p.ref, StoredFact):
            seen.setdefault(p.ref.id, p.ref)
    return list(seen.values())


def subject_of(policy: Policy) -> str:
    ref = policy.ref
    return ref.record.subject() if isinstance(ref, StoredFact) else policy.label


class PolicyOffenses:
    """Offending rules grouped by the policy that holds them, so each policy is one FAIL listing what it
    opens (texts in the order first found, each once), however many tenant namespaces it applies to."""

    def __init__(self) -> None:
        self._texts: dict[str, list[str]] = {}
        self._policies: dict[str, Policy] = {}

    def add(self, policy: Policy, text: str) -> None:
        key = subject_of(policy)
        texts = self._texts.setdefault(key, [])
        if text not in texts:
            texts.append(text)
        self._policies.setdefault(key, policy)

    def __bool__(self) -> bool:
        return bool(self._texts)

    def findings(self, check: Check, expected: str, target: str) -> Iterator[Finding]:
        for key, texts in self._texts.items():
            policy = self._policies[key]
            found = clauses(texts, 12)
            yield check.failed(key, expected, found, *facts_of([policy]), target=target)
