"""The Kubernetes part every tenant-namespace check shares: which clusters can be assessed, which of
their namespaces are tenants, and their policies read into PolicyViews (checks/k8s_semantics)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from auditor.config.models import NamespaceSelector
from auditor.enums import FactKind
from auditor.facts import K8sNamespace, K8sNetworkPolicy
from auditor.store.reader import StoredFact
from checks.base import Check, CheckContext, Finding
from checks.k8s_flavors import read_policies
from checks.k8s_semantics import PolicyView

NEEDS = frozenset({FactKind.K8S_NAMESPACE, FactKind.K8S_NETWORK_POLICY})


@dataclass
class Cluster:
    """One live cluster's tenant namespaces and every policy of it, read."""

    target: str
    selector: NamespaceSelector
    namespaces: list[StoredFact[K8sNamespace]] = field(default_factory=list)
    tenants: list[StoredFact[K8sNamespace]] = field(default_factory=list)
    views: list[PolicyView] = field(default_factory=list)
    _by_namespace: dict[str | None, list[PolicyView]] = field(default_factory=dict)

    def tenant_of(self, ns: K8sNamespace) -> str:
        return self.selector.tenant_of(ns.name, ns.labels)

    def set_views(self, views: list[PolicyView]) -> None:
        """Namespaced policies only ever select pods of their own namespace: index them by it."""
        self.views = views
        self._by_namespace = {}
        for v in views:
            self._by_namespace.setdefault(v.fact.record.namespace, []).append(v)

    def namespaced(self, name: str | None) -> list[PolicyView]:
        return list(self._by_namespace.get(name, ()))

    def applying(self, ns: K8sNamespace) -> list[PolicyView]:
        """The policies that select at least some pods of the namespace."""
        candidates = [*self._by_namespace.get(ns.name, ()), *self._by_namespace.get(None, ())]
        return [v for v in candidates if v.selects(ns.name, ns.labels) is not False]


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
    clusters = {t.name: Cluster(t.name, selector) for t in ready}
    for ns in ctx.facts.of(K8sNamespace):
        cluster = clusters.get(ns.target)
        if cluster is not None:
            cluster.namespaces.append(ns)
            if selector.selects(ns.record.name, ns.record.labels):
                cluster.tenants.append(ns)
    by_target: dict[str, list[StoredFact[K8sNetworkPolicy]]] = {name: [] for name in clusters}
    for p in ctx.facts.of(K8sNetworkPolicy):
        if p.target in by_target:
            by_target[p.target].append(p)
    out: list[Cluster] = []
    for name in sorted(clusters):
        cluster = clusters[name]
        if not cluster.tenants:
            gaps.append(
                check.not_assessed(
                    name, f"{name}: no namespace matches the declared tenant selector", target=name
                )
            )
            continue
        cluster.set_views(read_policies(by_target[name]))
        out.append(cluster)
    return out, gaps


def problems_of(views: Iterable[PolicyView]) -> list[str]:
    """What could not be read in these policies, for a NOT_ASSESSED reason."""
    return [f"{v.label()}: {p}" for v in views for p in v.problems]


def facts_of(views: Iterable[PolicyView]) -> list[StoredFact[K8sNetworkPolicy]]:
    seen: dict[int, StoredFact[K8sNetworkPolicy]] = {}
    for v in views:
        seen.setdefault(v.fact.id, v.fact)
    return list(seen.values())


class PolicyOffenses:
    """Offending rules grouped by the policy that holds them, so each policy is one FAIL listing what it
    opens (texts in the order first found, each once), however many tenant namespaces it applies to."""

    def __init__(self) -> None:
        self._texts: dict[int, list[str]] = {}
        self._views: dict[int, PolicyView] = {}

    def add(self, view: PolicyView, text: str) -> None:
        texts = self._texts.setdefault(view.fact.id, [])
        if text not in texts:
            texts.append(text)
        self._views[view.fact.id] = view

    def findings(self, check: Check, expected: str, target: str) -> Iterator[Finding]:
        for fact_id, texts in self._texts.items():
            view = self._views[fact_id]
            yield check.failed(view.subject, expected, "; ".join(texts), view.fact, target=target)
