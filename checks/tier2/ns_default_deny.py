"""T2-NS-DEFAULT-DENY: every tenant namespace denies ingress and egress by default, whatever the CNI.

A direction is in default deny when the first policy layer that decides the generic connection (any
peer, any port) denies it for every pod of the namespace (checks/k8s_semantics.default_deny):
- an AdminNetworkPolicy rule that denies everything (an ANP that allows everything re-opens it);
- or NetworkPolicy-layer isolation of all pods: a Kubernetes NetworkPolicy with `podSelector: {}` and
  the direction in policyTypes; a Cilium CNP/CCNP whose endpointSelector covers the namespace and has a
  non-empty ingress/egress (or *Deny) section; a Calico NetworkPolicy/GlobalNetworkPolicy whose
  selector is true for every pod (`all()`, or a namespace test) with the direction in `types`; unless
  a rule of that layer allows everything first (Kubernetes `ingress: [{}]`, Cilium entity `all`,
  Calico Allow with no peer restriction, by Calico `order`; deny wins ties and always wins in Cilium);
- or a BaselineAdminNetworkPolicy rule that denies everything, for pods nothing above isolates.
"""

from __future__ import annotations

from collections.abc import Iterable

from auditor.enums import Severity, Tier
from auditor.facts import FactRecord
from auditor.store.reader import StoredFact
from checks.base import Check, CheckContext, CheckMeta, Finding
from checks.k8s_semantics import Direction, default_deny
from checks.tier2._k8s_scope import NEEDS, facts_of, problems_of, tenant_clusters

EXPECTED = "every pod denied by default for ingress and for egress (nothing above the deny allows everything)"


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
            "`policyTypes: [Ingress, Egress]` and no rules (or the CNI's equivalent: a Cilium policy "
            "with `endpointSelector: {}` and `ingress: [{}]`/`egress: [{}]`, a Calico policy with "
            "`selector: all()` and both types, a BaselineAdminNetworkPolicy denying all), then allow "
            "the needed flows explicitly. Remove policies whose rules allow every peer on every port."
        ),
    )

    def evaluate(self, ctx: CheckContext) -> Iterable[Finding]:
        clusters, gaps = tenant_clusters(self, ctx)
        yield from gaps
        for cluster in clusters:
            for ns in cluster.tenants:
                rec = ns.record
                applying = cluster.applying(rec)
                own = [
                    *cluster.namespaced(rec.name),
                    *cluster.namespaced(None),
                ]  # unreadable ones select nothing
                problems = problems_of({id(v): v for v in [*applying, *own]}.values())
                subject = rec.subject()
                if problems:
                    reason = f"{subject}: policies could not be read in full: {'; '.join(problems)}"
                    yield self.not_assessed(subject, reason, target=ns.target, expected=EXPECTED)
                    continue
                verdicts = {d: default_deny(rec.name, rec.labels, d, applying) for d in _DIRECTIONS}
                found = "; ".join(f"{d.lower()}: {v.reason}" for d, v in verdicts.items())
                deciding = facts_of(p for v in verdicts.values() for p in v.because)
                facts: list[StoredFact[FactRecord]] = [ns, *deciding]
                if all(v.denied for v in verdicts.values()):
                    yield self.passed(subject, EXPECTED, found, *facts, target=ns.target)
                    continue
                others = [f for f in facts_of(applying) if f.id not in {d.id for d in deciding}]
                found += f" ({len(applying)} policy(ies) select pods here)"
                yield self.failed(subject, EXPECTED, found, *facts, *others, target=ns.target)


_DIRECTIONS: tuple[Direction, ...] = ("Ingress", "Egress")
