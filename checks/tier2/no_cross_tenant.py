"""T2-NO-CROSS-TENANT: no policy admits traffic between tenants' namespaces.

Asked of the project's one policy engine (checks/k8s): for every pod a tenant namespace may hold (its
pods in the evidence and representatives) and every pod another tenant's namespace may hold (its pods,
representatives, and a pod per selector a rule peer names), is egress to it, or ingress from it,
allowed by an explicit rule (any flavor, with every precedence: a Calico Deny ordered first, a Cilium
deny, an admin Deny all stop it)? Each such rule's policy fails once, listing what it opens. Traffic
allowed only because nothing isolates a pod is T2-NS-DEFAULT-DENY's finding, not this one. Tenants
are the namespaces the intent selects, grouped by `tenant_label` when set.

Kubernetes ipBlocks are read as netpol-analyzer reads them (never the cluster's own pods); so, when pod
IPs are in the evidence (K8sPod.ip), an allow rule whose address block holds another tenant's pod
addresses is reported as well: CNIs differ on whether such blocks match pods. Not in a cluster that
enforces Cilium policies: Cilium never matches its own endpoints by CIDR (ipBlock, toCIDR, toCIDRSet
select addresses outside the cluster only, docs.cilium.io "Layer 3 policies"), so such a block admits
no pod there.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

from auditor.enums import Severity, Tier
from auditor.facts import K8sPod
from auditor.store.reader import StoredFact
from checks.base import Check, CheckContext, CheckMeta, Finding
from checks.k8s.cluster_dns import ClusterDns, find_cluster_dns
from checks.k8s.ir import Action, Peer, PeerKind, Policy
from checks.k8s.questions import allowed_by
from checks.k8s.workloads import Workload
from checks.netutil import network
from checks.tier2._k8s_scope import NEEDS, Cluster, PolicyOffenses, facts_of, tenant_clusters
from checks.tier2._pod_addresses import PodAddresses


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
        frontend = ctx.intent.tiers.frontend
        assert frontend is not None
        for cluster in clusters:
            dns = find_cluster_dns(cluster.model, frontend.cluster_dns.service)
            yield from self._cluster(cluster, PodAddresses(pods.get(cluster.target, [])), dns)

    def _cluster(self, cluster: Cluster, pods: PodAddresses, dns: ClusterDns) -> Iterable[Finding]:
        tenants = {ns.record.name: cluster.tenant_of(ns.record) for ns in cluster.tenants}
        expected = f"allow rules reach only the tenant's own namespaces (tenants: {_groups(tenants)})"
        offenses = PolicyOffenses()
        clean = []
        # a rule peer naming the cluster DNS's pods (`namespaceSelector: {}` + `k8s-app: kube-dns`) is the
        # resolver path, not another tenant: representatives carrying those labels are left out
        peers_of = {
            name: [w for w in cluster.model.everyone(name) if w.ref is not None or not dns.is_dns_pod(w)]
            for name in tenants
        }
        for ns in cluster.tenants:
            rec = ns.record
            others = sorted(o for o in tenants if tenants[o] != tenants[rec.name])
            gap = cluster.gaps(rec.name, *others)
            if gap is not None:
                reason = f"{rec.subject()}: {gap}"
                yield self.not_assessed(rec.subject(), reason, target=ns.target, expected=expected)
                continue
            bad = False
            subjects = [w for w, _, _ in cluster.model.subjects(rec.name)]
            for pod in subjects:
                for policy, _where, text in self._offenses(cluster, pod, others, peers_of):
                    offenses.add(policy, text)
                    bad = True
            by_address = (
                [] if cluster.model.compiled.mode == "cilium" else self._address_rules(cluster, subjects)
            )
            for policy, rule, peer in by_address:
                reached = _pods_in_block(peer, set(others), pods)
                if reached is not None:
                    offenses.add(policy, f"{rule} allows {peer.text}: {reached} from/into {rec.name}")
                    bad = True
            if not bad:
                clean.append(ns)
        yield from offenses.findings(self, expected, cluster.target)
        for ns in clean:
            applying = cluster.selecting(ns.record.name)
            found = (
                f"{len(applying)} policy(ies) select its pods; none allows another tenant's pods in or out"
            )
            yield self.passed(ns.record.subject(), expected, found, ns, *facts_of(applying), target=ns.target)

    @staticmethod
    def _offenses(
        cluster: Cluster, pod: Workload, others: list[str], peers_of: dict[str, list[Workload]]
    ) -> list[tuple[Policy, str, str]]:
        """(policy, rule, text) for every explicit allow between this pod and another tenant's pods.

        Only pairs some allow rule of a policy selecting the pod may match are asked of the engine
        (whole namespaces are skipped by the rule's namespace filter); the engine then applies every
        precedence (a Deny ordered first, a Cilium deny, an admin Deny)."""
        engine = cluster.model.engine
        ns = engine.namespace_labels
        out: list[tuple[Policy, str, str]] = []
        asked: set[tuple[object, bool]] = set()
        reachable = cluster.model.cached(("rule-namespaces", ""), lambda: [dict[int, set[str]]()])[0]
        for policy in engine.selecting(pod):
            for direction in ("Ingress", "Egress"):
                ingress = direction == "Ingress"
                for rule in policy.rules(direction):
                    if rule.action != Action.ALLOW:
                        continue
                    if id(rule) not in reachable:
                        reachable[id(rule)] = {
                            o
                            for o in peers_of
                            if rule.peers is None or any(p.may_match_in(o, ns) for p in rule.peers)
                        }
                    for other in others:
                        if other not in reachable[id(rule)]:
                            continue
                        for them in peers_of[other]:
                            key = (them.class_key(), ingress)
                            if key in asked:
                                continue
                            if rule.peers is not None and not any(p.matches(them, ns) for p in rule.peers):
                                continue
                            asked.add(key)
                            verdict = (
                                engine.direction(them, pod, ingress=True)
                                if ingress
                                else engine.direction(pod, them, ingress=False)
                            )
                            if not verdict.explicit:
                                continue
                            for allowing, where, _ in allowed_by(verdict, pod if ingress else them):
                                text = (
                                    f"{where} admits {_pods(them)} into {pod.namespace}"
                                    if ingress
                                    else f"{where} opens egress to {_pods(them)} from {pod.namespace}"
                                )
                                out.append((allowing, where, text))
        return out

    @staticmethod
    def _address_rules(cluster: Cluster, subjects: list[Workload]) -> list[tuple[Policy, str, Peer]]:
        out = []
        found: dict[int, Policy] = {}
        for w in subjects:
            for p in cluster.model.engine.selecting(w):
                found.setdefault(id(p), p)
        for policy in found.values():
            for direction in ("Ingress", "Egress"):
                for rule in policy.rules(direction):
                    if rule.action != Action.ALLOW:
                        continue
                    for peer in rule.peers or ():
                        if peer.kind == PeerKind.ADDRESSES and not peer.selects_pods:
                            out.append((policy, rule.where, peer))
        return out


def _pods(pod: Workload) -> str:
    labels = ", ".join(f"{k}={v}" for k, v in pod.labels)
    who = f"pod {pod.name}" if pod.ref is not None else (f"pods with {labels}" if labels else "any pod")
    return f"{who} of namespace {pod.namespace} (another tenant)"


def _pods_in_block(peer: Peer, others: set[str], pods: PodAddresses) -> str | None:
    hit: list[str] = []
    for net in peer.block.cidrs():
        parsed = network(net)
        if parsed is None:
            continue
        hit += [
            f"{pod.record.namespace}/{pod.record.name} ({addr})"
            for pod, addr in pods.in_block(parsed, [], others)
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
