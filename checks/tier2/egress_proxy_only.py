"""T2-EGRESS-PROXY-ONLY: tenant egress goes only to the declared proxy, the resolvers and the cluster.

Per tenant namespace: egress must be in default deny (else every destination is open), and every
egress allow rule of every policy selecting its pods (any flavor, ANP/BANP Allow included) may reach
only in-cluster peers (pod/namespace selectors, services, nodes) or an address block inside a
declared proxy host (on its port) or resolver (53/udp+tcp, 853). Any peer, `world`, FQDNs, cloud
groups, or a block covering other space (0.0.0.0/0 first of all) fail, as does a rule opening more
ports to the proxy than the one declared.
"""

from __future__ import annotations

from collections.abc import Iterable

from auditor.enums import Severity, Tier
from checks.base import Check, CheckContext, CheckMeta, Finding
from checks.k8s_semantics import allow_rules, default_deny
from checks.tier2._egress import Destinations, address_offense
from checks.tier2._k8s_scope import NEEDS, PolicyOffenses, facts_of, problems_of, tenant_clusters


class EgressProxyOnly(Check):
    meta = CheckMeta(
        id="T2-EGRESS-PROXY-ONLY",
        title="Tenant egress only through the declared proxy, resolvers and in-cluster services",
        tier=Tier.FRONTEND,
        severity=Severity.HIGH,
        needs=NEEDS,
        rationale=(
            "Model weights, datasets and credentials leave through direct internet egress. Zero default "
            "egress, with the forward proxy / artifact mirror as the only way out, makes exfiltration and "
            "command-and-control visible and blockable at one point."
        ),
        remediation=(
            "Deny egress by default in every tenant namespace and allow only the proxy (ipBlock of the "
            "proxy host /32 on its port), the approved resolvers on 53/853 and in-cluster peers by "
            "selector. Remove ipBlock 0.0.0.0/0, `toEntities: [world]`, toFQDNs and rules without a "
            "destination."
        ),
    )

    def evaluate(self, ctx: CheckContext) -> Iterable[Finding]:
        frontend = ctx.intent.tiers.frontend
        assert frontend is not None
        allowed = Destinations.proxies_and_resolvers(frontend)
        expected = f"egress denied by default; allowed only to {allowed.text()} and in-cluster peers"
        clusters, gaps = tenant_clusters(self, ctx)
        yield from gaps
        for cluster in clusters:
            offenses = PolicyOffenses()
            clean = []
            for ns in cluster.tenants:
                rec = ns.record
                applying = cluster.applying(rec)
                problems = problems_of(applying)
                if problems:
                    reason = f"{rec.subject()}: policies could not be read in full: {'; '.join(problems)}"
                    yield self.not_assessed(rec.subject(), reason, target=ns.target, expected=expected)
                    continue
                verdict = default_deny(rec.name, rec.labels, "Egress", applying)
                bad = not verdict.denied
                if bad:
                    found = f"egress is not denied by default ({verdict.reason}): any destination is open"
                    facts = [ns, *facts_of(applying)]
                    yield self.failed(rec.subject(), expected, found, *facts, target=ns.target)
                for view, rule in allow_rules(rec.name, rec.labels, "Egress", applying):
                    for peer in rule.peers:
                        why = address_offense(peer, rule, allowed)
                        if why is not None:
                            text = f"{rule.where} allows {why}"
                            offenses.add(view, text)
                            bad = True
                if not bad:
                    clean.append((ns, applying))
            yield from offenses.findings(self, expected, cluster.target)
            for ns, applying in clean:
                n = sum(1 for _ in allow_rules(ns.record.name, ns.record.labels, "Egress", applying))
                found = (
                    f"egress denied by default; {n} egress allow rule(s), all to declared or in-cluster peers"
                )
                yield self.passed(
                    ns.record.subject(), expected, found, ns, *facts_of(applying), target=ns.target
                )
