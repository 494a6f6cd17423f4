"""T2-DNS-APPROVED-RESOLVERS: DNS goes only to the approved resolvers, by policy and in the flow logs.

Policies: per tenant namespace, egress must be in default deny, and no egress allow rule may open a
DNS port (53/udp+tcp, 853 DoT/DoQ; a rule without ports opens them too) to anything but an approved
resolver or an in-cluster peer (CoreDNS by selector: its own upstreams show in the flow logs).
Flow logs: no ACCEPTed conversation to port 53 or 853 of an address that is not an approved
resolver, except from the resolvers themselves (they forward upstream).
"""

from __future__ import annotations

import ipaddress
from collections import defaultdict
from collections.abc import Iterable

from auditor.enums import FactKind, Severity, Tier
from auditor.facts import FlowConversation, FlowLogStats
from checks.base import Check, CheckContext, CheckMeta, Finding
from checks.flows import conversations
from checks.k8s_semantics import allow_rules, default_deny
from checks.tier2._egress import DNS_PORTS, Destinations, address_offense
from checks.tier2._k8s_scope import NEEDS, Cluster, PolicyOffenses, facts_of, problems_of, tenant_clusters

FLOW_NEEDS = frozenset({FactKind.FLOW_CONVERSATION})
_PROTOCOLS = {6: "TCP", 17: "UDP"}


class DnsApprovedResolvers(Check):
    meta = CheckMeta(
        id="T2-DNS-APPROVED-RESOLVERS",
        title="DNS only to the approved resolvers",
        tier=Tier.FRONTEND,
        severity=Severity.HIGH,
        needs=NEEDS | FLOW_NEEDS,
        rationale=(
            "DNS to arbitrary servers is an exfiltration and command-and-control channel that bypasses "
            "the egress proxy (data encoded in queries, DoT to an attacker's resolver). Only the approved "
            "resolvers, which log and filter, may answer tenant workloads."
        ),
        remediation=(
            "Allow egress on 53/853 only to the approved resolvers' addresses (or to CoreDNS by selector) "
            "and deny egress by default; block 53/853 to any other address at the VPC (security groups, "
            "NACLs, DNS firewall) and investigate the accepted flows listed."
        ),
    )

    def evaluate(self, ctx: CheckContext) -> Iterable[Finding]:
        frontend = ctx.intent.tiers.frontend
        assert frontend is not None
        if not frontend.dns_resolvers:
            yield self.not_assessed(
                "DNS resolvers",
                "the intent names no approved resolver; declare intent.tiers.frontend.dns_resolvers",
            )
            return
        resolvers = Destinations.resolvers(frontend)
        expected = f"DNS (53, 853) only to {resolvers.text()} or in-cluster resolvers"
        if any(t.kind == "kubernetes" for t in ctx.targets):
            clusters, gaps = tenant_clusters(self, ctx)
            yield from gaps
            for cluster in clusters:
                yield from self._policies(cluster, resolvers, expected)
        flow_targets = [t for t in ctx.targets if t.kind == "flow-logs"]
        ready, gaps = self.split_assessable(ctx, flow_targets, FLOW_NEEDS)
        yield from gaps
        yield from self._flows(ctx, {t.name for t in ready}, frontend.dns_resolvers, expected)

    def _policies(self, cluster: Cluster, resolvers: Destinations, expected: str) -> Iterable[Finding]:
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
                found = f"egress is not denied by default ({verdict.reason}): DNS may go to any server"
                yield self.failed(rec.subject(), expected, found, ns, *facts_of(applying), target=ns.target)
            for view, rule in allow_rules(rec.name, rec.labels, "Egress", applying):
                if not any(rule.opens(proto, port) for proto, port in DNS_PORTS):
                    continue
                for peer in rule.peers:
                    why = address_offense(peer, rule, resolvers)
                    if why is not None:
                        text = f"{rule.where} opens DNS ({rule.ports_text()}) to {peer.text}"
                        offenses.add(view, text)
                        bad = True
            if not bad:
                clean.append((ns, applying))
        yield from offenses.findings(self, expected, cluster.target)
        for ns, applying in clean:
            found = "egress denied by default; no allow rule opens 53/853 to an unapproved destination"
            yield self.passed(ns.record.subject(), expected, found, ns, *facts_of(applying), target=ns.target)

    def _flows(
        self, ctx: CheckContext, names: set[str], approved: list[str], expected: str
    ) -> Iterable[Finding]:
        resolvers = {ipaddress.ip_address(a) for a in approved}
        counted: dict[str, int] = defaultdict(int)
        failed: set[str] = set()
        for conv in conversations(ctx.facts.of(FlowConversation), names):
            if conv.action != "ACCEPT":
                continue
            proto = _PROTOCOLS.get(conv.protocol or -1)
            if proto is None or conv.dst_port is None or (proto, conv.dst_port) not in DNS_PORTS:
                continue
            counted[conv.target] += 1
            try:
                src, dst = ipaddress.ip_address(conv.src_addr), ipaddress.ip_address(conv.dst_addr)
            except ValueError:
                continue
            if dst in resolvers or src in resolvers:
                continue
            found = f"accepted DNS to {conv.dst_addr}:{conv.dst_port}/{proto}: {conv.counts()}"
            failed.add(conv.target)
            yield self.failed(conv.subject(), expected, found, *conv.facts, target=conv.target)
        stats = [s for s in ctx.facts.of(FlowLogStats) if s.target in names]
        for name in sorted(names - failed):
            found = f"{counted[name]} accepted DNS conversation(s), all to approved resolvers"
            evidence = [s for s in stats if s.target == name]
            yield self.passed(f"flow logs {name}", expected, found, *evidence, target=name)
