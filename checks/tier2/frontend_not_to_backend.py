"""T2-FRONTEND-NOT-TO-BACKEND: nothing in the frontend routes or allows traffic to backend or OOB space.

Three places are read, each where its evidence exists:
- devices (frontend or unassigned tier): routes and interface addresses in the frontend VRFs
  (`intent.tiers.frontend.vrfs`, device spellings made canonical: checks/vrf_names.py; on a frontend
  switch its default VRF too, the global table that carries its underlay) inside a
  backend or OOB CIDR; and route-target leaks, read from the fabric-wide route-target graph
  (checks/route_targets.py): a frontend VRF that imports an RT a backend or OOB VRF exports (the same
  leak T3-NO-ROUTE-LEAK reports from the backend side), named with a count and the first few VRFs, and
  leak statements that hand a backend or OOB VRF's routes to a frontend VRF;
- AWS: route tables of the frontend VPCs (`frontend.aws.vpc_tags`) with an active route inside one;
- Kubernetes: egress allow rules of tenant namespaces that let their pods reach backend or OOB
  addresses, as the one policy engine (checks/k8s) evaluates them (an address block overlapping them
  minus its exceptions, any peer, Cilium `world`, Calico nets or network sets).
Routes count when they are as specific as the backend/OOB space or more: a default route or an
aggregate is not, by itself, a path there (the lateral-movement check follows those). Host routes to
declared jump hosts are allowed (they are how operators reach the OOB network).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

from auditor.config.models import OobTier
from auditor.enums import FactKind, Severity, Tier
from auditor.facts import AwsRouteTable, AwsVpc, Device, Interface, Route, Vrf
from auditor.store.reader import StoredFact
from checks.base import Check, CheckContext, CheckMeta, Finding
from checks.k8s.connlist import describe, external_blocks
from checks.k8s.questions import address_atoms, explicit_egress
from checks.lateral.addresses import IPSet
from checks.netutil import Network, inside, networks_of
from checks.route_targets import RouteTargetGraph, VrfNode
from checks.route_targets import describe as describe_flows
from checks.text import clauses, listing
from checks.tier2._aws_scope import tags_match
from checks.tier2._k8s_scope import NEEDS as K8S_NEEDS
from checks.tier2._k8s_scope import PolicyOffenses, tenant_clusters
from checks.tier3._leaks import leak_receiver, leak_vrfs
from checks.vrf_names import VrfNames

DEVICE_NEEDS = frozenset({FactKind.ROUTE, FactKind.INTERFACE, FactKind.VRF})
AWS_NEEDS = frozenset({FactKind.AWS_VPC, FactKind.AWS_ROUTE_TABLE})


class Forbidden:
    """Backend and OOB space, minus the jump hosts."""

    def __init__(self, ctx: CheckContext) -> None:
        tiers = ctx.intent.tiers
        self.nets: list[tuple[Network, str]] = []
        if tiers.backend is not None:
            self.nets += [(n, "backend") for n in tiers.backend.networks()]
        jumps: list[str] = []
        if tiers.oob is not None:
            self.nets += [(n, "OOB") for n in tiers.oob.networks()]
            jumps = tiers.oob.jump_hosts if isinstance(tiers.oob, OobTier) else []
        self.jumps = networks_of(jumps)

    def route_hit(self, prefix: str) -> str | None:
        if inside(prefix, self.jumps):
            return None
        for net, tier in self.nets:
            if inside(prefix, [net]):
                return f"{tier} {net}"
        return None

    def block_hits(self, block: IPSet) -> str | None:
        """The backend/OOB ranges an address set reaches."""
        hits = [f"{tier} {net}" for net, tier in self.nets if block.overlaps(IPSet.of_network(net))]
        return ", ".join(hits) or None

    def text(self) -> str:
        return ", ".join(f"{tier} {net}" for net, tier in self.nets)


class FrontendNotToBackend(Check):
    meta = CheckMeta(
        id="T2-FRONTEND-NOT-TO-BACKEND",
        title="The frontend neither routes nor allows traffic to backend or OOB space",
        tier=Tier.FRONTEND,
        severity=Severity.CRITICAL,
        needs=DEVICE_NEEDS | AWS_NEEDS | K8S_NEEDS,
        rationale=(
            "Tenant workloads and the internet-facing frontend must not reach the RDMA fabric (where "
            "GPU memory and storage traffic flow unencrypted) or the BMCs and switch management of the "
            "OOB network. A route or an allow rule towards them is the first step of such a path."
        ),
        remediation=(
            "Remove static routes, route leaks and interface addresses for backend/OOB prefixes from the "
            "frontend VRFs and the frontend VPCs' route tables; narrow egress ipBlocks and add `except` "
            "entries for the backend and OOB ranges."
        ),
    )

    def evaluate(self, ctx: CheckContext) -> Iterable[Finding]:
        forbidden = Forbidden(ctx)
        if not forbidden.nets:
            yield self.not_assessed("backend and OOB CIDRs", "the intent declares no backend or OOB CIDR")
            return
        expected = f"no route or allow rule to {forbidden.text()} (jump hosts excepted)"
        yield from self._devices(ctx, forbidden, expected)
        yield from self._aws(ctx, forbidden, expected)
        if any(t.kind == "kubernetes" for t in ctx.targets):
            yield from self._kubernetes(ctx, forbidden, expected)

    def _devices(self, ctx: CheckContext, forbidden: Forbidden, expected: str) -> Iterable[Finding]:
        frontend = ctx.intent.tiers.frontend
        assert frontend is not None
        candidates = [t for t in ctx.targets if t.kind == "device" and t.tier in (Tier.FRONTEND, None)]
        if not candidates:
            return
        if not frontend.vrfs:
            yield self.not_assessed(
                "frontend VRFs", "the intent names no frontend VRF; declare intent.tiers.frontend.vrfs"
            )
            return
        ready, gaps = self.split_assessable(ctx, candidates, DEVICE_NEEDS)
        yield from gaps
        names = {t.name for t in ready}
        vrfs = set(frontend.vrfs)
        canonical = VrfNames.of(ctx).canonical
        own = {t.name for t in ready if t.tier == Tier.FRONTEND}  # their global table is frontend too

        def judged(target: str, vrf: str) -> bool:
            name = canonical(target, vrf)
            return name in vrfs or (name == "default" and target in own)

        bad: dict[str, list[tuple[str, str, StoredFact[Route] | StoredFact[Interface] | StoredFact[Vrf]]]] = (
            defaultdict(list)
        )
        counted: dict[str, int] = defaultdict(int)
        for r in ctx.facts.of(Route):
            if r.target in names and judged(r.target, r.record.vrf):
                counted[r.target] += 1
                hit = forbidden.route_hit(r.record.prefix)
                if hit:
                    via = r.record.next_hop or r.record.interface or "?"
                    what = f"{r.record.protocol} route {r.record.prefix} via {via}"
                    bad[r.target].append((f"{r.target}: {what}", f"{what} in vrf {r.record.vrf} ({hit})", r))
        for i in ctx.facts.of(Interface):
            if i.target in names and judged(i.target, i.record.vrf):
                for addr in [*i.record.ipv4, *i.record.ipv4_virtual, *i.record.ipv6]:
                    counted[i.target] += 1
                    hit = forbidden.route_hit(addr)
                    if hit:
                        what = f"{i.record.name} has {addr}"
                        bad[i.target].append(
                            (f"{i.target}: {what}", f"{what} in vrf {i.record.vrf} ({hit})", i)
                        )
        graph = RouteTargetGraph.of(ctx)
        for v in ctx.facts.of(Vrf):
            if v.target in names and judged(v.target, v.record.name):
                node = graph.node(v)
                flows = graph.inbound(node, _protected)
                texts = describe_flows(node, flows)
                texts += _leaks_in(ctx, v)
                if texts:
                    text = clauses(texts)
                    bad[v.target].append((v.record.subject(), f"{text}: their routes reach the frontend", v))
        devices = {d.target: d for d in ctx.facts.of(Device)}
        for name in sorted(names):
            for subject, text, fact in bad[name]:
                yield self.failed(subject, expected, text, fact, target=name)
            if not bad[name]:
                judged_vrfs = sorted(vrfs | ({"default"} if name in own else set()))
                found = (
                    f"none among {counted[name]} route(s) and address(es) in vrf(s) "
                    f"{', '.join(judged_vrfs)}, and no route-target imported from a backend or OOB VRF"
                )
                yield self.passed(
                    name, expected, found, *([devices[name]] if name in devices else []), target=name
                )

    def _aws(self, ctx: CheckContext, forbidden: Forbidden, expected: str) -> Iterable[Finding]:
        clouds = [t for t in ctx.targets if t.kind == "aws"]
        if not clouds:
            return
        frontend = ctx.intent.tiers.frontend
        assert frontend is not None
        if frontend.aws is None or not frontend.aws.vpc_tags:
            yield self.not_assessed(
                "frontend VPCs", "the intent names no frontend VPC tags; declare frontend.aws.vpc_tags"
            )
            return
        ready, gaps = self.split_assessable(ctx, clouds, AWS_NEEDS)
        yield from gaps
        names = {t.name for t in ready}
        vpcs = {
            (v.target, v.record.vpc_id)
            for v in ctx.facts.of(AwsVpc)
            if v.target in names and tags_match(v.record.tags, frontend.aws.vpc_tags)
        }
        for table in ctx.facts.of(AwsRouteTable):
            rec = table.record
            if (table.target, rec.vpc_id) not in vpcs:
                continue
            bad = []
            for r in rec.routes:
                hit = forbidden.route_hit(r.destination) if r.state != "blackhole" else None
                if hit:
                    bad.append(
                        f"{r.destination} -> {r.target_type} {r.target_id or ''}".rstrip() + f" ({hit})"
                    )
            if bad:
                yield self.failed(rec.subject(), expected, "; ".join(bad), table, target=table.target)
            else:
                found = f"none among {len(rec.routes)} route(s)"
                yield self.passed(rec.subject(), expected, found, table, target=table.target)

    def _kubernetes(self, ctx: CheckContext, forbidden: Forbidden, expected: str) -> Iterable[Finding]:
        clusters, gaps = tenant_clusters(self, ctx)
        yield from gaps
        space = IPSet.parse(*[str(n) for n, _ in forbidden.nets])
        for cluster in clusters:
            _, blocks = external_blocks(cluster.model.compiled)
            atoms = [a for a in address_atoms([*blocks, space]) if a.issubset(space)]
            offenses = PolicyOffenses()
            unread = False
            for ns in cluster.tenants:
                rec = ns.record
                gap = cluster.gaps(rec.name)
                if gap is not None:
                    unread = True
                    reason = f"{rec.subject()}: {gap}"
                    yield self.not_assessed(rec.subject(), reason, target=ns.target, expected=expected)
                    continue
                pods = [w for w, _, _ in cluster.model.subjects(rec.name)]
                for reached in explicit_egress(cluster.model.engine, pods, atoms).values():
                    hit = forbidden.block_hits(reached.addresses)
                    if hit:
                        text = (
                            f"{reached.where} allows {describe(reached.conns)} to "
                            f"{reached.addresses.describe()}: {hit}"
                        )
                        offenses.add(reached.policy, text)
            yield from offenses.findings(self, expected, cluster.target)
            if not offenses and not unread:
                found = f"no egress allow rule of {len(cluster.tenants)} tenant namespace(s) covers them"
                yield self.passed(
                    f"{cluster.target}: tenant egress policies", expected, found, target=cluster.target
                )


def _leaks_in(ctx: CheckContext, vrf: StoredFact[Vrf]) -> list[str]:
    """Leak statements handing a backend or OOB VRF's routes to this frontend VRF (tier3/_leaks.py)."""
    names = VrfNames.of(ctx)
    target = ctx.target(vrf.target)
    tier = target.tier if target else None
    own = names.canonical(vrf.target, vrf.record.name)
    out = []
    for leak in vrf.record.leaks:
        receiver = leak_receiver(leak)
        if receiver is None or names.canonical(vrf.target, receiver) != own:
            continue
        sources = [n for n in leak_vrfs(leak) if names.tier(vrf.target, n, tier) in (Tier.BACKEND, Tier.OOB)]
        if sources:
            out.append(f"leak from vrf {listing(sorted(sources))}: {leak}")
    return out


def _protected(node: VrfNode) -> bool:
    """A VRF of the backend or the OOB network: its routes must not reach the frontend."""
    return node.tier in (Tier.BACKEND, Tier.OOB)
