"""T2-NS-DEFAULT-DENY: every tenant namespace denies ingress and egress by default, whatever the CNI.

Asked of the project's one policy engine (checks/k8s), for every pod the namespace may hold (its pods
in the evidence, a pod with no labels, and a pod per selector of a policy that may apply): a direction
is in default deny when the generic connection (a peer no rule names, on a port no rule names) is
denied. So an AdminNetworkPolicy that denies everything passes and one that allows everything fails;
a Kubernetes NetworkPolicy `podSelector: {}` with the direction in policyTypes, a Cilium policy with a
non-empty ingress/egress (or *Deny) section, a Calico policy or GlobalNetworkPolicy selecting every pod
(by `order`, Pass, end-of-tier deny) all isolate; a rule allowing every peer on every port re-opens;
a BaselineAdminNetworkPolicy denying everything covers pods nothing above isolates. A policy selecting
only some pods leaves the others open (the pod with no labels shows it).
"""

from __future__ import annotations

from collections.abc import Iterable

from auditor.enums import Severity, Tier
from auditor.facts import FactRecord
from auditor.store.reader import StoredFact
from checks.base import Check, CheckContext, CheckMeta, Finding
from checks.k8s.ir import DIRECTIONS
from checks.k8s.questions import DenyVerdict, default_deny, named_ports
from checks.text import clauses
from checks.tier2._k8s_scope import NEEDS, facts_of, tenant_clusters

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
            named = named_ports(cluster.model.compiled)
            engine = cluster.model.engine
            for ns in cluster.tenants:
                rec = ns.record
                subject = rec.subject()
                gap = cluster.gaps(rec.name)
                if gap is not None:
                    yield self.not_assessed(subject, f"{subject}: {gap}", target=ns.target, expected=EXPECTED)
                    continue
                failures: list[str] = []
                reasons: dict[str, DenyVerdict] = {}
                deciding: list[object] = []
                for direction in DIRECTIONS:
                    for pod, how, _ in cluster.model.subjects(rec.name):
                        verdict = default_deny(engine, pod, direction, named)
                        deciding.extend(verdict.because)
                        if not verdict.denied:
                            failures.append(f"{direction.lower()} of {how}: {verdict.reason}")
                            break
                        reasons.setdefault(direction, verdict)
                facts: list[StoredFact[FactRecord]] = [ns, *facts_of(deciding)]  # type: ignore[arg-type]
                if not failures:
                    found = "; ".join(f"{d.lower()}: {v.reason}" for d, v in reasons.items())
                    yield self.passed(subject, EXPECTED, found, *facts, target=ns.target)
                    continue
                applying = cluster.selecting(rec.name)
                found = clauses(failures) + f" ({len(applying)} policy(ies) select pods here)"
                others = [f for f in facts_of(applying) if f not in facts]
                yield self.failed(subject, EXPECTED, found, *facts, *others, target=ns.target)
