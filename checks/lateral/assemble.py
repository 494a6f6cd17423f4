"""Build the whole zone graph from one run's facts, and answer "which sources reach which tier, how".

Only facts of assessable targets go in (the check reports the others as NOT_ASSESSED). Zones of every
family are registered before any link is computed, so a walk leaving one family (a TGW attachment to
on-premises) can land in another (the device VRF that holds the addresses).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TypeVar

from auditor.config.models import Intent
from auditor.enums import Tier
from auditor.facts import (
    Acl,
    AclBinding,
    AwsGateway,
    AwsNetworkAcl,
    AwsNetworkInterface,
    AwsRouteTable,
    AwsSecurityGroup,
    AwsSubnet,
    AwsTgwAttachment,
    AwsTgwRouteTable,
    AwsVpc,
    Device,
    FactRecord,
    Interface,
    K8sNamespace,
    K8sNetworkPolicy,
    K8sPod,
    K8sService,
    Route,
    Vrf,
)
from auditor.store.reader import StoredFact
from checks.lateral.graph import INTERNET, Link, Zone, ZoneGraph, paths_to, tier_node, walk
from checks.lateral.model import TARGET_TIERS, ModelContext
from checks.lateral.net_aws import AwsFacts, AwsNetwork
from checks.lateral.net_devices import DeviceFacts, DeviceNetwork
from checks.lateral.net_k8s import ClusterFacts, KubernetesNetwork

R = TypeVar("R", bound=FactRecord)
FactSource = Callable[[type[R]], list[StoredFact[R]]]


@dataclass(frozen=True)
class Scope:
    """Which targets' facts to use, and what is known about them."""

    devices: frozenset[str] = frozenset()
    device_tiers: tuple[tuple[str, Tier | None], ...] = ()
    aws: frozenset[str] = frozenset()
    kubernetes: frozenset[str] = frozenset()
    pods_covered: frozenset[str] = frozenset()  # kubernetes targets whose evidence covers pods


def build(
    intent: Intent, facts: Callable[[type[FactRecord]], list[StoredFact[FactRecord]]], scope: Scope
) -> ModelContext:
    ctx = ModelContext(intent, extra_space=tagged_space(intent, facts, scope.aws))
    ctx.graph.add_zone(Zone(INTERNET, "internet", source=bool(scope.aws)))

    def of(model: type[R], targets: Iterable[str]) -> list[StoredFact[R]]:
        wanted = set(targets)
        return [f for f in facts(model) if f.target in wanted]  # type: ignore[misc]

    builders: list[DeviceNetwork | AwsNetwork | KubernetesNetwork] = []
    if scope.devices:
        d = scope.devices
        tiers = dict(scope.device_tiers)
        for dev in of(Device, d):
            if dev.record.tier is not None:
                tiers.setdefault(dev.record.device, dev.record.tier)
        device_facts = DeviceFacts(
            of(Interface, d), of(Route, d), of(Acl, d), of(AclBinding, d), of(Device, d), of(Vrf, d)
        )
        builders.append(DeviceNetwork(ctx, device_facts, tiers))
    if scope.aws:
        a = scope.aws
        builders.append(
            AwsNetwork(
                ctx,
                AwsFacts(
                    of(AwsSubnet, a),
                    of(AwsVpc, a),
                    of(AwsRouteTable, a),
                    of(AwsGateway, a),
                    of(AwsSecurityGroup, a),
                    of(AwsNetworkAcl, a),
                    of(AwsNetworkInterface, a),
                    of(AwsTgwAttachment, a),
                    of(AwsTgwRouteTable, a),
                ),
            )
        )
    for target in sorted(scope.kubernetes):
        namespaces = of(K8sNamespace, [target])
        policies = of(K8sNetworkPolicy, [target])
        pods = of(K8sPod, [target]) if target in scope.pods_covered else None
        services = of(K8sService, [target])  # toServices / Calico `services` peers resolve through them
        clusters = sorted({n.record.cluster for n in namespaces} | {p.record.cluster for p in policies})
        for cluster in clusters:
            builders.append(
                KubernetesNetwork(
                    ctx,
                    ClusterFacts(
                        cluster,
                        [n for n in namespaces if n.record.cluster == cluster],
                        [p for p in policies if p.record.cluster == cluster],
                        None if pods is None else [p for p in pods if p.record.cluster == cluster],
                        [s for s in services if s.record.cluster == cluster],
                    ),
                )
            )
    for builder in builders:
        builder.build_links()
    return ctx


def tagged_space(
    intent: Intent, facts: Callable[[type[FactRecord]], list[StoredFact[FactRecord]]], aws: Iterable[str]
) -> dict[Tier, list[str]]:
    """Per tier, the CIDRs of the AWS VPCs and subnets its `aws` tags select: tier space whether or not
    the intent lists them (an OOB VPC known by its tag is OOB space for routes leaving the evidence too)."""
    targets = set(aws)
    out: dict[Tier, list[str]] = {}
    for tier in (Tier.OOB, Tier.FRONTEND, Tier.BACKEND):
        ti = intent.tiers.get(tier)
        tags = ti.aws if ti is not None else None
        if tags is None or not targets:
            continue
        cidrs: list[str] = []
        for v in facts(AwsVpc):
            rec = v.record
            if v.target in targets and isinstance(rec, AwsVpc) and _selects(rec.tags, tags.vpc_tags):
                cidrs += rec.cidrs
        for s in facts(AwsSubnet):
            rec_s = s.record
            if (
                s.target in targets
                and isinstance(rec_s, AwsSubnet)
                and rec_s.cidr
                and _selects(rec_s.tags, tags.subnet_tags)
            ):
                cidrs.append(rec_s.cidr)
        if cidrs:
            out[tier] = cidrs
    return out


def _selects(tags: dict[str, str], wanted: dict[str, str]) -> bool:
    return bool(wanted) and all(tags.get(k) == v for k, v in wanted.items())


@dataclass(frozen=True)
class Reach:
    source: Zone
    tier: Tier
    path: list[Link]  # empty: no path


def answer(ctx: ModelContext) -> list[Reach]:
    """For every source zone and every declared tier-1/3: the shortest path, or none."""
    graph: ZoneGraph = ctx.graph
    sources = sorted((z for z in graph.zones() if z.source), key=lambda z: (z.id != INTERNET, z.id))
    out: list[Reach] = []
    for tier in TARGET_TIERS:
        if tier not in ctx.tier_space:
            continue
        # zones in the evidence first: a path that lands on a known zone beats one onto the assumed tier node
        targets = [
            *sorted(z.id for z in graph.zones() if z.tier == tier and z.family != "tier"),
            tier_node(tier),
        ]
        nxt = paths_to(graph, targets, avoid=[INTERNET])
        depth = _depths(nxt)
        for zone in sources:
            if zone.tier == tier:
                continue
            if zone.id == INTERNET:
                path = _from_internet(graph, nxt, depth)
            else:
                path = walk(graph, zone.id, nxt) if zone.id in nxt else []
            out.append(Reach(zone, tier, path))
    return out


def _depths(nxt: dict[str, str | None]) -> dict[str, int]:
    depth: dict[str, int] = {}

    def of(node: str) -> int:
        trail = []
        while node not in depth:
            following = nxt[node]
            if following is None:
                depth[node] = 0
                break
            trail.append(node)
            node = following
        base = depth[node]
        for i, n in enumerate(reversed(trail), start=1):
            depth[n] = base + i
        return depth[trail[0]] if trail else base

    for node in nxt:
        of(node)
    return depth


def _from_internet(graph: ZoneGraph, nxt: dict[str, str | None], depth: dict[str, int]) -> list[Link]:
    if INTERNET not in graph.graph:
        return []
    entries = sorted((depth[s], s) for s in set(graph.graph.successors(INTERNET)) if s in nxt)
    if not entries:
        return []
    first = entries[0][1]
    return [graph.best_link(INTERNET, first), *walk(graph, first, nxt)]
