"""T2-EGRESS-PROXY-ONLY: tenant egress goes only to the declared proxy, the resolvers and the cluster.

Per tenant namespace, asked of the one policy engine (checks/k8s) for every pod the namespace may
hold: egress must be in default deny (else every destination is open), and what explicit allow rules
(any flavor, ANP/BANP Allow included, after every deny and precedence) let the pods reach outside the
cluster's pods and Services must lie inside a declared proxy host (on its port), a resolver (53/853)
or the cluster DNS. Any peer, `world`, a block covering other space (0.0.0.0/0 first of all), FQDN
rules and cloud or CIDR groups fail, as does a rule opening more ports to the proxy than declared.
A proxy may also be declared by DNS name (`egress_proxy: [proxy.example.com:3128]`): an FQDN rule
(Cilium `toFQDNs`, Calico `domains`) naming exactly such names (case and a trailing dot aside; a
wildcard pattern never does) on no port but theirs is the proxy path; a name is never matched to an
address rule, nor an address to an FQDN rule (declare both spellings when policies use both).
"""

from __future__ import annotations

from collections.abc import Iterable

from auditor.enums import Severity, Tier
from checks.base import Check, CheckContext, CheckMeta, Finding
from checks.k8s.cluster_dns import find_cluster_dns
from checks.k8s.connlist import describe
from checks.k8s.ir import GENERIC
from checks.k8s.questions import default_deny, named_ports
from checks.tier2._egress import Destinations, named_egress, offending, tenant_egress, what
from checks.tier2._k8s_scope import NEEDS, PolicyOffenses, facts_of, tenant_clusters


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
        declared = Destinations.proxies_and_resolvers(frontend)
        expected = f"egress denied by default; allowed only to {declared.text()} and in-cluster peers"
        clusters, gaps = tenant_clusters(self, ctx)
        yield from gaps
        for cluster in clusters:
            allowed = declared.with_cluster_dns(find_cluster_dns(cluster.model, frontend.cluster_dns.service))
            named = named_ports(cluster.model.compiled)
            offenses = PolicyOffenses()
            clean = []
            for ns in cluster.tenants:
                rec = ns.record
                gap = cluster.gaps(rec.name)
                if gap is not None:
                    reason = f"{rec.subject()}: {gap}"
                    yield self.not_assessed(rec.subject(), reason, target=ns.target, expected=expected)
                    continue
                bad = False
                for pod, how, _ in cluster.model.subjects(rec.name):
                    verdict = default_deny(cluster.model.engine, pod, "Egress", named)
                    if not verdict.denied:
                        found = f"egress of {how} is not denied by default ({verdict.reason}): all is open"
                        facts = [ns, *facts_of(cluster.selecting(rec.name))]
                        yield self.failed(rec.subject(), expected, found, *facts, target=ns.target)
                        bad = True
                        break
                for item, where in offending(tenant_egress(cluster, rec.name, frontend).values(), allowed):
                    offenses.add(
                        item.policy,
                        f"{item.where} allows {describe(item.conns)} to {where} "
                        f"(not a declared {allowed.text()})",
                    )
                    bad = True
                for policy, rule, peer in named_egress(cluster, rec.name):
                    if allowed.named_proxy(peer, rule.conns(GENERIC)):
                        continue  # exactly a proxy declared by name, on its ports
                    offenses.add(policy, f"{rule.where} allows {peer.text} ({what(peer)})")
                    bad = True
                if not bad:
                    clean.append(ns)
            yield from offenses.findings(self, expected, cluster.target)
            for ns in clean:
                found = "egress denied by default; explicit egress reaches only declared or in-cluster peers"
                facts = facts_of(cluster.selecting(ns.record.name))
                yield self.passed(ns.record.subject(), expected, found, ns, *facts, target=ns.target)
