"""T2-DNS-APPROVED-RESOLVERS: DNS goes only to the approved resolvers, by policy, by the cluster DNS's
forwarding and in the flow logs.

Policies, asked of the one policy engine (checks/k8s) for every pod a tenant namespace may hold:
egress must be in default deny, and what explicit allow rules open on a DNS port (53/udp+tcp, 853
DoT/DoQ; a rule without ports opens them too) may reach only an approved resolver or the cluster DNS
(its Service's cluster IP and its pods: the approved in-cluster resolver path, found in the evidence
from `intent.tiers.frontend.cluster_dns.service`). A rule naming a DNS port towards pods other than the
cluster DNS's (a resolver run inside a tenant namespace) fails too.
Cluster DNS: the Corefile (`cluster_dns.corefile`, kube-system/coredns by default) may forward only to
approved resolvers; forwarding to the node's resolv.conf is NOT_ASSESSED (its content is not in the
evidence), as is a cluster whose Corefile is not in the evidence.
Flow logs: no ACCEPTed conversation to port 53 or 853 of an address that is not an approved
resolver, except from the resolvers themselves (they forward upstream).
"""

from __future__ import annotations

import ipaddress
from collections import defaultdict
from collections.abc import Iterable

from auditor.config.models import FrontendTier
from auditor.enums import FactKind, Severity, Tier
from auditor.facts import FlowConversation, FlowLogStats, K8sDnsConfig
from checks.base import Check, CheckContext, CheckMeta, Finding
from checks.flows import conversations
from checks.k8s.cluster_dns import ClusterDns, find_cluster_dns
from checks.k8s.connlist import describe
from checks.k8s.ir import GENERIC, Action, PeerKind, Policy
from checks.k8s.questions import NARROW, default_deny, named_ports
from checks.text import listing
from checks.tier2._egress import (
    DNS_CONNS,
    DNS_PORTS,
    Destinations,
    named_egress,
    offending,
    tenant_egress,
    what,
)
from checks.tier2._k8s_scope import NEEDS, Cluster, PolicyOffenses, facts_of, tenant_clusters

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
                dns = find_cluster_dns(cluster.model, frontend.cluster_dns.service)
                yield from self._policies(cluster, resolvers.with_cluster_dns(dns), dns, expected, frontend)
                yield from self._corefile(ctx, cluster, frontend, dns)
        flow_targets = [t for t in ctx.targets if t.kind == "flow-logs"]
        ready, gaps = self.split_assessable(ctx, flow_targets, FLOW_NEEDS)
        yield from gaps
        yield from self._flows(ctx, {t.name for t in ready}, frontend.dns_resolvers, expected)

    def _policies(
        self,
        cluster: Cluster,
        resolvers: Destinations,
        dns: ClusterDns,
        expected: str,
        frontend: FrontendTier,
    ) -> Iterable[Finding]:
        offenses = PolicyOffenses()
        clean = []
        named = named_ports(cluster.model.compiled)
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
                    found = (
                        f"egress of {how} is not denied by default ({verdict.reason}): DNS may go anywhere"
                    )
                    facts = facts_of(cluster.selecting(rec.name))
                    yield self.failed(rec.subject(), expected, found, ns, *facts, target=ns.target)
                    bad = True
                    break
            reached = tenant_egress(cluster, rec.name, frontend).values()
            for item, where in offending(reached, resolvers, only=DNS_CONNS):
                opened = describe(item.conns.intersect(DNS_CONNS))
                offenses.add(item.policy, f"{item.where} opens DNS ({opened}) to {where}")
                bad = True
            for policy, rule, peer in named_egress(cluster, rec.name):
                if rule.conns(GENERIC).intersect(DNS_CONNS):
                    offenses.add(policy, f"{rule.where} opens DNS to {peer.text} ({what(peer)})")
                    bad = True
            for policy, text in self._pod_resolvers(cluster, rec.name, dns):
                offenses.add(policy, text)
                bad = True
            if not bad:
                clean.append(ns)
        yield from offenses.findings(self, expected, cluster.target)
        for ns in clean:
            found = f"egress denied by default; DNS only to approved resolvers or the {dns.text()}"
            facts = facts_of(cluster.selecting(ns.record.name))
            yield self.passed(ns.record.subject(), expected, found, ns, *facts, target=ns.target)

    @staticmethod
    def _pod_resolvers(cluster: Cluster, namespace: str, dns: ClusterDns) -> list[tuple[Policy, str]]:
        """Rules that name a DNS port towards pods other than the cluster DNS's."""
        ns_labels = cluster.model.engine.namespace_labels
        out: list[tuple[Policy, str]] = []
        for policy in cluster.selecting(namespace):
            for rule in policy.egress:
                if rule.action != Action.ALLOW or not _names_dns(rule.ports):
                    continue
                for peer in rule.peers or ():
                    if peer.kind not in (PeerKind.PODS, PeerKind.ANY, PeerKind.SERVICE):
                        continue
                    strays = sorted(
                        {
                            w.namespace
                            for n in cluster.model.namespaces
                            if peer.may_match_in(n, ns_labels)
                            for w in cluster.model.everyone(n)
                            if not dns.is_dns_pod(w) and peer.matches(w, ns_labels)
                        }
                    )
                    if strays:
                        out.append(
                            (
                                policy,
                                f"{rule.where} opens DNS to {peer.text}: pods of {listing(strays)} "
                                f"that are not the {dns.text()}",
                            )
                        )
        return out

    def _corefile(
        self, ctx: CheckContext, cluster: Cluster, frontend: FrontendTier, dns: ClusterDns
    ) -> Iterable[Finding]:
        approved = {ipaddress.ip_address(a) for a in frontend.dns_resolvers}
        subject = f"{cluster.target}: cluster DNS forwarding"
        expected = (
            f"the cluster DNS forwards only to approved resolvers ({', '.join(frontend.dns_resolvers)})"
        )
        if not ctx.facts.covered(cluster.target, FactKind.K8S_DNS_CONFIG):
            reason = (
                f"{cluster.target}: the Corefile ConfigMap ({frontend.cluster_dns.corefile}) is not in "
                "the evidence; add it (kubectl -n kube-system get configmap coredns -o yaml) to judge where "
                "DNS forwards"
            )
            yield self.not_assessed(subject, reason, target=cluster.target, expected=expected)
            return
        ns, _, name = frontend.cluster_dns.corefile.partition("/")
        configs = [c for c in ctx.facts.of(K8sDnsConfig) if c.target == cluster.target]
        chosen = [c for c in configs if (c.record.namespace, c.record.name) == (ns, name)] or configs
        if not chosen:
            reason = (
                f"{cluster.target}: no Corefile ConfigMap ({frontend.cluster_dns.corefile}) in the evidence"
            )
            yield self.not_assessed(subject, reason, target=cluster.target, expected=expected)
            return
        for config in chosen:
            rec = config.record
            bad, unknown, good = [], [], []
            for fwd in rec.forwards:
                for upstream in fwd.upstreams:
                    addr = _upstream_address(upstream)
                    text = f"zone {fwd.zone} -> {upstream}"
                    if addr is None:
                        unknown.append(text)
                    elif addr in approved:
                        good.append(text)
                    else:
                        bad.append(text)
            if bad:
                found = "forwards to unapproved resolvers: " + ", ".join(bad)
                yield self.failed(rec.subject(), expected, found, config, target=config.target)
            elif unknown:
                reason = (
                    f"{rec.subject()}: forwards to {', '.join(unknown)}, whose resolvers are not in the "
                    "evidence (the node's resolv.conf): declare explicit upstreams in the Corefile"
                )
                yield self.not_assessed(rec.subject(), reason, target=config.target, expected=expected)
            else:
                found = (
                    ("forwards only to " + ", ".join(good))
                    if good
                    else "forwards nowhere (answers cluster names only)"
                )
                yield self.passed(rec.subject(), expected, found, config, target=config.target)

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


def _names_dns(ports: tuple[object, ...] | None) -> bool:
    """Does the rule name a DNS port explicitly (a narrow range holding 53 or 853)?"""
    for spec in ports or ():
        lo, hi = getattr(spec, "lo", None), getattr(spec, "hi", None)
        if lo is None:
            continue
        top = hi if hi is not None else lo
        if top - lo < NARROW and (lo <= 53 <= top or lo <= 853 <= top):
            return True
    return False


def _upstream_address(upstream: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    """`dns://10.0.0.2:53`, `tls://1.1.1.1`, `[2001:db8::1]:53` -> the address; a path -> None."""
    text = upstream.split("://", 1)[-1]
    if text.startswith("["):
        text = text[1:].split("]", 1)[0]
    elif text.count(":") == 1:
        text = text.split(":", 1)[0]
    try:
        return ipaddress.ip_address(text)
    except ValueError:
        return None
