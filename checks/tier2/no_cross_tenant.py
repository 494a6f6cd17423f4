"""T2-NO-CROSS-TENANT: no policy admits traffic between tenants' namespaces.

For every allow rule (ingress and egress, every flavor) of every policy selecting pods of a tenant
namespace, the rule's peers must not include pods of another tenant: a namespace selector matching
another tenant's namespace, a selector over every namespace (`namespaceSelector: {}`, Cilium entity
`cluster`/`all`, Calico `all()`, a GlobalNetworkPolicy rule without namespaceSelector), or a rule
without peers. Tenants are the namespaces the intent selects, grouped by `tenant_label` when set.

Address blocks (ipBlock, toCIDR, nets) are judged against other tenants' pods only when pod IPs are
in the evidence (K8sPod.ip); without them an ipBlock is not read as reaching pods, because the
Kubernetes API leaves ipBlock matching of pod IPs to the CNI. T2-EGRESS-PROXY-ONLY still fails broad
egress blocks.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

from auditor.enums import Severity, Tier
from auditor.facts import K8sNamespace, K8sPod
from auditor.store.reader import StoredFact
from checks.base import Check, CheckContext, CheckMeta, Finding
from checks.k8s_semantics import Direction, NamespaceScope, Peer, PeerKind, allow_rules
from checks.netutil import network
from checks.tier2._k8s_scope import NEEDS, Cluster, PolicyOffenses, facts_of, problems_of, tenant_clusters
from checks.tier2._pod_addresses import PodAddresses

_DIRECTIONS: tuple[Direction, ...] = ("Ingress", "Egress")


class NoCrossTenant(Check):
    meta = CheckMeta(
        id="T2-NO-CROSS-TENANT",
        title="No policy admits traffic between tenants",
        tier=Tier.FRONTEND,
        severity=Severity.HIGH,
        needs=NEEDS,
        rationale=(
            "Tenants on a shared GPU cluster must not reach each other's pods: one compromised or "
            "malicious workload would otherwise read another tenant's models, data and tokens "
            "(east-west isolation, NIST SP 800-207 micro-segmentation)."
        ),
        remediation=(
            "Allow peers by selectors confined to the tenant's own namespaces (or shared platform "
            "namespaces such as the ingress controller); replace `namespaceSelector: {}` and rules without "
            "`from`/`to` by explicit selectors."
        ),
    )

    def evaluate(self, ctx: CheckContext) -> Iterable[Finding]:
        clusters, gaps = tenant_clusters(self, ctx)
        yield from gaps
        pods: dict[str, list[StoredFact[K8sPod]]] = defaultdict(list)
        for p in ctx.facts.of(K8sPod):
            pods[p.target].append(p)  # pods without addresses are never in a block: the index skips them
        for cluster in clusters:
            yield from self._cluster(cluster, PodAddresses(pods.get(cluster.target, [])))

    def _cluster(self, cluster: Cluster, pods: PodAddresses) -> Iterable[Finding]:
        tenants = {ns.record.name: cluster.tenant_of(ns.record) for ns in cluster.tenants}
        expected = f"allow rules reach only the tenant's own namespaces (tenants: {_groups(tenants)})"
        offenses = PolicyOffenses()
        clean = []
        index = _Index([ns.record for ns in cluster.tenants])
        for ns in cluster.tenants:
            rec = ns.record
            applying = cluster.applying(rec)
            problems = problems_of(applying)
            if problems:
                reason = f"{rec.subject()}: policies could not be read in full: {'; '.join(problems)}"
                yield self.not_assessed(rec.subject(), reason, target=ns.target, expected=expected)
                continue
            others = {o.record.name for o in cluster.tenants if tenants[o.record.name] != tenants[rec.name]}
            bad = False
            for direction in _DIRECTIONS:
                for view, rule in allow_rules(rec.name, rec.labels, direction, applying):
                    for peer in rule.peers:
                        reached = _reaches(peer, others, index, pods)
                        if reached is None:
                            continue
                        verb = "admits" if direction == "Ingress" else "opens egress to"
                        into = "into" if direction == "Ingress" else "from"
                        text = f"{rule.where} {verb} {peer.text}: {reached} {into} {rec.name}"
                        offenses.add(view, text)
                        bad = True
            if not bad:
                clean.append((ns, applying))
        yield from offenses.findings(self, expected, cluster.target)
        for ns, applying in clean:
            n = sum(len(allow_rules(ns.record.name, ns.record.labels, d, applying)) for d in _DIRECTIONS)
            found = f"{n} allow rule(s) from {len(applying)} policy(ies); none reaches another tenant"
            yield self.passed(ns.record.subject(), expected, found, ns, *facts_of(applying), target=ns.target)


class _Index:
    """Tenant namespaces by label, so a selector requiring `k=v` tests only the namespaces carrying it."""

    def __init__(self, namespaces: list[K8sNamespace]) -> None:
        self.all = namespaces
        self.by_label: dict[tuple[str, str], list[K8sNamespace]] = defaultdict(list)
        for ns in namespaces:
            for item in ns.labels.items():
                self.by_label[item].append(ns)

    def candidates(self, scope: NamespaceScope) -> list[K8sNamespace]:
        if scope.same is not None:
            return [ns for ns in self.all if ns.name == scope.same]
        return self.by_label.get(scope.required, []) if scope.required else self.all


def _reaches(peer: Peer, others: set[str], index: _Index, pods: PodAddresses) -> str | None:
    """What of other tenants this peer covers, or None."""
    if peer.kind == PeerKind.ANY:
        return "every peer, so every tenant"
    scope = peer.namespaces
    if peer.kind in (PeerKind.PODS, PeerKind.SERVICE) and scope is not None:
        if scope.everything:
            return "every namespace, so every tenant"
        hit = sorted(
            o.name for o in index.candidates(scope) if o.name in others and scope.matches(o.name, o.labels)
        )
        return f"namespace(s) {', '.join(hit)} of other tenant(s)" if hit else None
    if peer.kind == PeerKind.CIDR and peer.cidr:
        return _pods_in_block(peer, others, pods)
    return None


def _pods_in_block(peer: Peer, others: set[str], pods: PodAddresses) -> str | None:
    net = network(peer.cidr or "")
    if net is None:
        return None
    excepts = [n for n in (network(e) for e in peer.except_) if n is not None]
    hit = [
        f"{pod.record.namespace}/{pod.record.name} ({addr})"
        for pod, addr in pods.in_block(net, excepts, others)
    ]
    if not hit:
        return None
    more = f" and {len(hit) - 3} more" if len(hit) > 3 else ""
    return f"pod(s) {', '.join(hit[:3])}{more} of other tenant(s)"


def _groups(tenants: dict[str, str]) -> str:
    groups: dict[str, list[str]] = defaultdict(list)
    for ns, tenant in sorted(tenants.items()):
        groups[tenant].append(ns)
    return "; ".join(f"{t}: {', '.join(ns)}" if ns != [t] else t for t, ns in sorted(groups.items()))
