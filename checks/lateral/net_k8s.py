"""Kubernetes zones (one per frontend namespace) and their egress into tier-1/3 space.

The policies are compiled and evaluated by the project's one Kubernetes policy engine (checks/k8s),
the same that the tier-2 checks and `auditor reach k8s` use. Which pods: the K8sPod facts of the
cluster when its evidence covers pods (one class per distinct labels, service account and ports);
otherwise representative pods, since the policies must hold for any pod that may be scheduled (see
checks/k8s/cluster.py). Each class's egress is evaluated against the tier CIDRs cut by the policies'
address blocks. The pods' own network is not in the evidence unless their addresses fall in a known
zone; the allowed traffic is then delivered to the zones holding the addresses (through their
filters; the source taken as the frontend CIDRs), and to the tier node for the rest, marked as assumed.
A namespace whose verdicts hang on something the engine cannot evaluate is not linked at all: its
zone is recorded as unassessed (naming the kind), never treated as allow-all.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from auditor.enums import Tier
from auditor.facts import K8sNamespace, K8sNetworkPolicy, K8sPod, K8sService
from auditor.store.reader import StoredFact
from checks.k8s.cluster import ClusterModel
from checks.k8s.connlist import describe, external_blocks, ip_atoms
from checks.k8s.engine import Because
from checks.k8s.workloads import Workload
from checks.lateral.addresses import IPSet, union_all
from checks.lateral.conns import ConnSet
from checks.lateral.graph import Hop, Zone
from checks.lateral.model import ModelContext


@dataclass(frozen=True)
class ClusterFacts:
    cluster: str
    namespaces: Sequence[StoredFact[K8sNamespace]]
    policies: Sequence[StoredFact[K8sNetworkPolicy]]
    pods: Sequence[StoredFact[K8sPod]] | None  # None: pods not in the evidence
    services: Sequence[StoredFact[K8sService]] = ()


class KubernetesNetwork:
    def __init__(self, ctx: ModelContext, cluster: ClusterFacts) -> None:
        self.ctx = ctx
        self.cluster = cluster
        frontend = ctx.intent.tiers.frontend
        ranges = [IPSet.parse(c) for c in frontend.cidrs] if frontend is not None else []
        self.model = ClusterModel.build(
            cluster.cluster, cluster.namespaces, cluster.policies, cluster.pods, cluster.services, ranges
        )
        self.zones: dict[str, StoredFact[K8sNamespace]] = {}
        selector = frontend.namespaces if frontend is not None else None
        for ns in cluster.namespaces:
            if selector is not None and selector.selects(ns.record.name, dict(ns.record.labels)):
                zone = Zone(ns.record.subject(), "kubernetes", IPSet(), Tier.FRONTEND, (ns,), source=True)
                ctx.add_zone(zone)
                self.zones[ns.record.name] = ns
                gaps = self.model.compiled.gaps_for([ns.record.name])
                if gaps:
                    kinds = ", ".join(sorted({g.kind for g in gaps}))
                    reason = f"{ns.record.subject()}: cannot evaluate {kinds}: " + "; ".join(
                        g.text for g in gaps
                    )
                    ctx.unassessed[zone.id] = reason

    def classes(self, namespace: str) -> list[tuple[Workload, str, tuple[object, ...]]]:
        """(workload class, how it was chosen, facts) for a namespace."""
        return self.model.lateral_subjects(namespace)

    def build_links(self) -> None:
        _, egress_blocks = external_blocks(self.model.compiled)
        frontend = self.ctx.intent.tiers.frontend
        pod_sources = IPSet.parse(*frontend.cidrs) if frontend is not None else IPSet.everything()
        atoms_by_tier = {
            tier: [a for a in ip_atoms([*egress_blocks, space]) if a.issubset(space)]
            for tier, space in self.ctx.tier_space.items()
        }
        engine = self.model.engine
        for name, ns in sorted(self.zones.items()):
            origin = ns.record.subject()
            if origin in self.ctx.unassessed:
                continue
            for workload, how, facts in self.classes(name):
                for atoms in atoms_by_tier.values():
                    reached, conns, because = IPSet(), ConnSet(), list[tuple[object, object]]()
                    for atom in atoms:
                        verdict = engine.direction(workload, atom, ingress=False)
                        if verdict.conns:
                            reached = reached.union(atom)
                            conns = conns.union(verdict.conns)
                            because.extend(b for b in verdict.because if b not in because)
                    if not reached:
                        continue
                    hops = [
                        Hop(f"{origin}: {how}", (ns, *facts)),
                        self._why(name, workload, tuple(because), reached, conns),  # type: ignore[arg-type]
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
        self, namespace: str, workload: Workload, because: Because, reached: IPSet, conns: ConnSet
    ) -> Hop:
        policies = [p for p, _ in because if p is not None]
        if policies:
            names = ", ".join(dict.fromkeys(p.label for p in policies))
            refs = tuple({id(p.ref): p.ref for p in policies if p.ref is not None}.values())
            return Hop(f"{names} allow(s) egress {describe(conns)} to {reached.describe()}", refs)
        ns_policies = tuple(p for p in self.cluster.policies if p.record.namespace == namespace)
        isolating = self.model.engine.isolating(workload, "Egress")
        if not isolating:
            return Hop(
                f"no policy of {namespace} selects these pods for egress: all egress allowed, "
                f"including {reached.describe()}",
                ns_policies,
            )
        return Hop(f"admin or baseline policies leave egress to {reached.describe()} open", ns_policies)
