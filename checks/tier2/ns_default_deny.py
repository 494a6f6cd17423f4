"""T2-NS-DEFAULT-DENY: every tenant namespace denies ingress and egress by default."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from typing import Literal

from auditor.enums import FactKind, Severity, Tier
from auditor.facts import FactRecord, K8sNamespace, K8sNetworkPolicy, PolicyFlavor
from auditor.store.reader import StoredFact
from checks.base import Check, CheckContext, CheckMeta, Finding

NEEDS = frozenset({FactKind.K8S_NAMESPACE, FactKind.K8S_NETWORK_POLICY})
Direction = Literal["Ingress", "Egress"]


def isolates(policy: K8sNetworkPolicy, direction: Direction) -> bool:
    """Does this policy put every pod of its namespace in default deny for `direction`, allowing nothing
    broad?

    Kubernetes: a policy selecting all pods (empty podSelector) with the direction in policyTypes isolates
    them; a rule with no peers and no ports would re-open everything, so it does not count as a deny.
    Cilium: an empty endpointSelector with an ingress/egress section enables default deny the same way.
    """
    if not policy.pod_selector.is_empty():
        return False
    if policy.flavor == PolicyFlavor.KUBERNETES:
        rules = policy.ingress if direction == "Ingress" else policy.egress
        return direction in policy.policy_types and not any(r.allows_everything() for r in rules)
    if policy.flavor == PolicyFlavor.CILIUM:
        key = "ingress" if direction == "Ingress" else "egress"
        cilium_rules = policy.spec.get(key)
        deny = policy.spec.get(f"{key}Deny")
        empty_rules = isinstance(cilium_rules, list) and all(
            isinstance(r, dict) and not r for r in cilium_rules
        )
        return empty_rules or bool(deny)
    return False


class NamespaceDefaultDeny(Check):
    meta = CheckMeta(
        id="T2-NS-DEFAULT-DENY",
        title="Tenant namespaces deny ingress and egress by default",
        tier=Tier.FRONTEND,
        severity=Severity.HIGH,
        needs=NEEDS,
        rationale=(
            "Without a default-deny policy every pod accepts connections from, and opens connections to, "
            "anything the cluster network reaches: other tenants, BMCs, the backend fabric. Zero trust "
            "(NIST SP 800-207) starts from deny."
        ),
        remediation=(
            "Add to each tenant namespace a NetworkPolicy with `podSelector: {}` and "
            "`policyTypes: [Ingress, Egress]` and no rules, then allow the needed flows explicitly."
        ),
    )

    def evaluate(self, ctx: CheckContext) -> Iterable[Finding]:
        frontend = ctx.intent.tiers.frontend
        assert frontend is not None
        if frontend.namespaces is None:
            yield self.not_assessed(
                "tenant namespaces",
                "the intent names no tenant namespaces; declare intent.tiers.frontend.namespaces",
            )
            return
        selector = frontend.namespaces
        clusters, gaps = self.split_assessable(ctx, [t for t in ctx.targets if t.kind == "kubernetes"], NEEDS)
        yield from gaps
        names = {c.name for c in clusters}
        policies: dict[tuple[str, str], list[StoredFact[K8sNetworkPolicy]]] = defaultdict(list)
        for p in ctx.facts.of(K8sNetworkPolicy):
            if p.record.namespace is not None:
                policies[(p.target, p.record.namespace)].append(p)
        tenants = [
            ns
            for ns in ctx.facts.of(K8sNamespace)
            if ns.target in names and selector.selects(ns.record.name, ns.record.labels)
        ]
        for cluster in sorted(names):
            if not any(ns.target == cluster for ns in tenants):
                yield self.not_assessed(
                    cluster, f"{cluster}: no namespace matches the declared tenant selector", target=cluster
                )
        expected = "a policy selecting all pods that denies Ingress and one that denies Egress"
        for ns in tenants:
            own = policies[(ns.target, ns.record.name)]
            ingress = [p for p in own if isolates(p.record, "Ingress")]
            egress = [p for p in own if isolates(p.record, "Egress")]
            subject = ns.record.subject()
            facts: list[StoredFact[FactRecord]] = [ns, *ingress, *egress]
            if ingress and egress:
                found = (
                    f"ingress denied by {', '.join(p.record.name for p in ingress)}; "
                    f"egress denied by {', '.join(p.record.name for p in egress)}"
                )
                yield self.passed(subject, expected, found, *facts, target=ns.target)
                continue
            missing = [d for d, ok in (("ingress", ingress), ("egress", egress)) if not ok]
            found = f"no default deny for {' and '.join(missing)} among {len(own)} policy(ies)"
            if own:
                found += f": {', '.join(p.record.name for p in own)}"
            yield self.failed(subject, expected, found, *facts, *own, target=ns.target)
