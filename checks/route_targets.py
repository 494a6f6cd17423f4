"""One fabric-wide graph of VRF route-target exports and imports, read by every check about route leaks.

Nodes are the VRFs of every audited device and the route-target values they use; an edge runs from a
VRF to each RT it exports and from each RT to each VRF that imports it. Routes flow along
VRF -> RT -> VRF: a VRF receives the routes of every VRF that exports an RT it imports. A leak is such
a flow between two *domains*: a VRF's domain is its tier (the tier whose `vrfs` declare its canonical
name; the device's own tier for `default`) and, in the backend, its tenant (the port manifest's tenant
of that VRF, else the VRF itself). So:
- the same VRF on many leaves sharing its own RT, `route-target both` on itself, and RTs shared only
  between VRFs of one tier and tenant (a shared-services design inside a tenant) are not leaks;
- a VRF importing an RT that another tier's or tenant's VRF exports is one, seen from both ends.
RT values are compared without their address family ("evpn 65000:1" = "65000:1"); `auto` RTs are
derived per VRF from its own VNI and never shared. Only IP-VRF route-targets are in Vrf facts: the RTs
of EVPN MAC-VRFs (per VLAN/VNI) carry bridged traffic of one VLAN and are not routes between VRFs.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

import networkx as nx

from auditor.config.segmentation import vrf_tenants
from auditor.enums import Tier
from auditor.facts import Vrf
from auditor.store.reader import StoredFact
from checks.base import CheckContext
from checks.text import bounded
from checks.vrf_names import VrfNames


@dataclass(frozen=True)
class VrfNode:
    """One VRF on one device, with the domain it belongs to."""

    fact: StoredFact[Vrf]
    vrf: str  # canonical (declared) name
    tier: Tier | None  # None: a VRF no tier declares
    tenant: str

    @property
    def target(self) -> str:
        return self.fact.target

    @property
    def domain(self) -> tuple[Tier | None, str]:
        return (self.tier, self.tenant if self.tier == Tier.BACKEND else self.vrf)

    def label(self) -> str:
        tier = self.tier.value if self.tier else "undeclared"
        tenant = f", tenant {self.tenant}" if self.tier == Tier.BACKEND and self.tenant != self.vrf else ""
        return f"{self.fact.record.subject()} ({tier}{tenant})"


@dataclass(frozen=True)
class Flow:
    """Routes of `source` reach `sink` through route-target `rt`."""

    rt: str
    source: VrfNode
    sink: VrfNode


def rt_values(values: Iterable[str]) -> set[str]:
    """RT values with the address family dropped ("evpn 65000:1" -> "65000:1"), `auto` left out."""
    out = {v.split()[-1] for v in values if v.strip()}
    return {v for v in out if v.lower() != "auto"}


Key = tuple[str, ...]
Pick = Callable[[VrfNode], bool]


class RouteTargetGraph:
    """The graph over every audited VRF (built once per run: RouteTargetGraph.of).

    The VRFs on each side of an RT are also kept grouped by (tier, VRF, tenant): every question the
    checks ask of the other end depends on those alone, so on a fleet where one RT is shared by the same
    VRF on 2,000 leaves a question is asked once per group, not once per leaf."""

    def __init__(self, ctx: CheckContext) -> None:
        names = VrfNames.of(ctx)
        tenants = vrf_tenants(ctx.intent)
        device_tier = {t.name: t.tier for t in ctx.targets}
        self.graph: nx.DiGraph[Key] = nx.DiGraph()
        self.nodes: dict[Key, VrfNode] = {}
        for v in ctx.facts.of(Vrf):
            canonical = names.canonical(v.target, v.record.name)
            tier = names.tier(v.target, v.record.name, device_tier.get(v.target))
            node = VrfNode(v, canonical, tier, tenants.get(canonical, canonical))
            key = _key(node)
            self.nodes[key] = node
            self.graph.add_node(key)
            for rt in rt_values(v.record.route_targets_export):
                self.graph.add_edge(key, ("rt", rt))
            for rt in rt_values(v.record.route_targets_import):
                self.graph.add_edge(("rt", rt), key)
        self._exporters: dict[Key, dict[tuple[object, ...], list[Key]]] = {}
        self._importers: dict[Key, dict[tuple[object, ...], list[Key]]] = {}
        for rt_node in [k for k in self.graph if k[0] == "rt"]:
            self._exporters[rt_node] = self._grouped(self.graph.predecessors(rt_node))
            self._importers[rt_node] = self._grouped(self.graph.successors(rt_node))

    @classmethod
    def of(cls, ctx: CheckContext) -> RouteTargetGraph:
        return ctx.derived("route_target_graph", lambda: cls(ctx))

    def node(self, fact: StoredFact[Vrf]) -> VrfNode:
        return self.nodes[("vrf", fact.target, fact.record.name)]

    def inbound(self, node: VrfNode, pick: Pick | None = None) -> list[Flow]:
        """Flows into `node`: every other VRF (that `pick` picks) exporting an RT it imports."""
        key = _key(node)
        out = []
        for rt in self.graph.predecessors(key):
            for src in self._picked(self._exporters[rt], pick, key):
                out.append(Flow(rt[1], self.nodes[src], node))
        return out

    def outbound(self, node: VrfNode, pick: Pick | None = None) -> list[Flow]:
        """Flows out of `node`: every other VRF (that `pick` picks) importing an RT it exports."""
        key = _key(node)
        out = []
        for rt in self.graph.successors(key):
            for dst in self._picked(self._importers[rt], pick, key):
                out.append(Flow(rt[1], node, self.nodes[dst]))
        return out

    def leaks(self, node: VrfNode, foreign: Pick) -> list[Flow]:
        """Flows between `node` and VRFs that `foreign` picks, both directions."""
        return self.inbound(node, foreign) + self.outbound(node, foreign)

    def _grouped(self, keys: Iterable[Key]) -> dict[tuple[object, ...], list[Key]]:
        groups: dict[tuple[object, ...], list[Key]] = defaultdict(list)
        for k in keys:
            n = self.nodes[k]
            groups[(n.tier, n.vrf, n.tenant)].append(k)
        return dict(groups)

    def _picked(self, groups: dict[tuple[object, ...], list[Key]], pick: Pick | None, own: Key) -> list[Key]:
        out: list[Key] = []
        for members in groups.values():
            if pick is None or pick(self.nodes[members[0]]):
                out += [m for m in members if m != own]
        return out


def _key(node: VrfNode) -> Key:
    return ("vrf", node.target, node.fact.record.name)


def describe(node: VrfNode, flows: Sequence[Flow]) -> list[str]:
    """Bounded texts, one per (direction, RT): the count of VRFs on the other end and the first few."""
    groups: dict[tuple[str, str], list[VrfNode]] = defaultdict(list)
    for f in flows:
        if f.sink is node:
            groups[("imports", f.rt)].append(f.source)
        else:
            groups[("exports", f.rt)].append(f.sink)
    texts = []
    for (direction, rt), others in sorted(groups.items()):
        verb = "exported by" if direction == "imports" else "imported by"
        texts.append(f"{direction} route-target {rt}, {verb} {bounded([o.label() for o in others])}")
    return texts
