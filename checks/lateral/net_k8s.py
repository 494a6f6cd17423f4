"""Kubernetes zones (one per frontend namespace) and their egress into tier-1/3 space.

Which pods: the K8sPod facts of the cluster when its evidence covers pods (one class per distinct
labels and ports); otherwise representative pods, since the policies must hold for any pod that may be
scheduled: one with no labels (selected only by catch-all policies) and, per egress-isolating policy,
one that minimally matches its selector. Each class's egress is evaluated against the tier CIDRs cut
by the policies' ipBlocks (the same semantics as `auditor reach k8s`). The pods' own network is not
in the evidence unless their addresses fall in a known zone; the allowed traffic is then delivered to
the zones holding the addresses (through their filters; the source taken as the frontend CIDRs), and
to the tier node for the rest, marked as assumed.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

from auditor.enums import Tier
from auditor.facts import K8sNamespace, K8sNetworkPolicy, K8sPod
from auditor.facts.kubernetes import LabelSelector
from auditor.store.reader import StoredFact
from checks.lateral.addresses import IPSet, union_all
from checks.lateral.conns import ConnSet
from checks.lateral.graph import Hop, Zone
from checks.lateral.k8s_connlist import external_blocks, ip_atoms
from checks.lateral.k8s_eval import PolicyEngine
from checks.lateral.k8s_model import NamedPort, NetPol, Workload, freeze
from checks.lateral.k8s_policies import CompiledPolicies, compile_policies
from checks.lateral.model import ModelContext


@dataclass(frozen=True)
class ClusterFacts:
    cluster: str
    namespaces: Sequence[StoredFact[K8sNamespace]]
    policies: Sequence[StoredFact[K8sNetworkPolicy]]
    pods: Sequence[StoredFact[K8sPod]] | None  # None: pods not in the evidence


def minimal_labels(selector: LabelSelector) -> dict[str, str]:
    """Labels of a pod that the selector selects, with nothing else (None-safe for odd selectors)."""
    labels = dict(selector.match_labels)
    for req in selector.match_expressions:
        if req.operator == "In" and req.values and req.key not in labels:
            labels[req.key] = req.values[0]
        elif req.operator == "Exists" and req.key not in labels:
            labels[req.key] = "present"
    return labels


def _describe(selector: LabelSelector) -> str:
    terms = [f"{k}={v}" for k, v in sorted(selector.match_labels.items())]
    terms += [f"{r.key} {r.operator} {','.join(r.values)}".strip() for r in selector.match_expressions]
    return ", ".join(terms) or "all pods"


class KubernetesNetwork:
    def __init__(self, ctx: ModelContext, cluster: ClusterFacts) -> None:
        self.ctx = ctx
        self.cluster = cluster
        self.compiled: CompiledPolicies = compile_policies((p.record, p) for p in cluster.policies)
        ns_labels = {n.record.name: dict(n.record.labels) for n in cluster.namespaces}
        self.engine = PolicyEngine(ns_labels, self.compiled)
        self.zones: dict[str, StoredFact[K8sNamespace]] = {}
        frontend = ctx.intent.tiers.frontend
        selector = frontend.namespaces if frontend is not None else None
        for ns in cluster.namespaces:
            if selector is not None and selector.selects(ns.record.name, dict(ns.record.labels)):
                zone = Zone(ns.record.subject(), "kubernetes", IPSet(), Tier.FRONTEND, (ns,), source=True)
                ctx.add_zone(zone)
                self.zones[ns.record.name] = ns
        self.pods: dict[str, list[StoredFact[K8sPod]]] = defaultdict(list)
        for pod in cluster.pods or ():
            self.pods[pod.record.namespace].append(pod)

    def classes(self, namespace: str) -> list[tuple[Workload, str, tuple[object, ...]]]:
        """(workload class, how it was chosen, facts) for a namespace."""
        if self.cluster.pods is not None:
            seen: dict[object, tuple[Workload, str, tuple[object, ...]]] = {}
            for pod in self.pods.get(namespace, []):
                rec = pod.record
                if rec.phase in ("Succeeded", "Failed"):
                    continue  # a finished pod holds no address and opens no connection
                w = Workload(
                    namespace,
                    rec.owner or rec.name,
                    "Pod",
                    freeze(dict(rec.labels)),
                    tuple(NamedPort(p.port, p.protocol.upper(), p.name) for p in rec.ports),
                    IPSet.parse(*rec.ips, *([rec.ip] if rec.ip else [])),
                )
                seen.setdefault(w.class_key(), (w, f"pod {rec.name}", (pod,)))
            return list(seen.values())
        reps: dict[object, tuple[Workload, str, tuple[object, ...]]] = {}
        base = Workload(namespace, "any-pod", "Pod")
        reps[base.class_key()] = (base, "a pod with no labels (pods are not in the evidence)", ())
        for policy in self._policies(namespace):
            labels = minimal_labels(policy.selector)
            w = Workload(namespace, "any-pod", "Pod", freeze(labels))
            reps.setdefault(w.class_key(), (w, f"a pod with {_describe(policy.selector)}", ()))
        return list(reps.values())

    def _policies(self, namespace: str) -> list[NetPol]:
        return [p for p in self.compiled.netpols if p.namespace == namespace and p.egress_isolated]

    def build_links(self) -> None:
        _, egress_blocks = external_blocks(self.compiled)
        frontend = self.ctx.intent.tiers.frontend
        pod_sources = IPSet.parse(*frontend.cidrs) if frontend is not None else IPSet.everything()
        atoms_by_tier = {
            tier: [a for a in ip_atoms([*egress_blocks, space]) if a.issubset(space)]
            for tier, space in self.ctx.tier_space.items()
        }
        for name, ns in sorted(self.zones.items()):
            origin = ns.record.subject()
            for workload, how, facts in self.classes(name):
                for atoms in atoms_by_tier.values():
                    reached, conns, because = IPSet(), ConnSet(), list[object]()
                    for atom in atoms:
                        verdict = self.engine.direction(workload, atom, ingress=False)
                        if verdict.conns:
                            reached = reached.union(atom)
                            conns = conns.union(verdict.conns)
                            because.extend(b for b in verdict.because if b not in because)
                    if not reached:
                        continue
                    hops = [
                        Hop(f"{origin}: {how}", (ns, *facts)),
                        self._why(name, workload, because, reached, conns),
                    ]
                    src = union_all([workload.ips]) or pod_sources
                    self.ctx.deliver(
                        origin,
                        src,
                        reached,
                        conns,
                        hops,
                        f"cluster {self.cluster.cluster} pod network (not in the evidence)",
                    )

    def _why(
        self, namespace: str, workload: Workload, because: list[object], reached: IPSet, conns: ConnSet
    ) -> Hop:
        policies = [b for b in because if isinstance(b, NetPol)]
        if policies or because:
            names = ", ".join(b.label() for b in because if hasattr(b, "label"))
            refs = tuple(getattr(b, "ref", None) for b in because)
            return Hop(
                f"{names} allow(s) egress {conns.describe()} to {reached.describe()}",
                tuple(r for r in refs if r is not None),
            )
        isolating = self.engine.isolating(workload, ingress=False)
        ns_policies = tuple(p for p in self.cluster.policies if p.record.namespace == namespace)
        if not isolating:
            return Hop(
                f"no NetworkPolicy of {namespace} selects these pods for egress: all egress allowed, "
                f"including {reached.describe()}",
                ns_policies,
            )
        return Hop(f"admin policies leave egress to {reached.describe()} open", ns_policies)
