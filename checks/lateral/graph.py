"""The zone graph: where traffic can originate or land, and the links that say who reaches whom.

A zone is a place hosts live and an attacker can act from: the internet, a Kubernetes namespace, an
AWS subnet, a device VRF. A link A -> B says "a host in A can open some connection to some address in
B", and carries the hops that allow it (route, filter, policy), each with the facts behind it. Links
are computed by forwarding walks (`net_devices`, `net_aws`, `net_k8s`); transit devices and gateways
appear as hops, not as zones. Lateral movement is then plain reachability: a compromised zone is a new
source (pivot), so a path is any chain of links. Tier nodes `tier:oob` / `tier:backend` stand for the
declared tier-1/3 address space where no zone in the evidence holds it.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

import networkx as nx

from auditor.enums import Tier
from checks.lateral.addresses import NO_ADDRESSES, IPSet
from checks.lateral.conns import ConnSet

INTERNET = "internet"


def tier_node(tier: Tier) -> str:
    return f"tier:{tier.value}"


@dataclass(frozen=True)
class Hop:
    """One step of a path: what allows it, in words, and the facts (StoredFact) it rests on."""

    text: str
    facts: tuple[object, ...] = ()


@dataclass(frozen=True)
class Link:
    src: str
    dst: str
    addresses: IPSet  # the addresses of dst that can be reached
    conns: ConnSet
    hops: tuple[Hop, ...]


@dataclass
class Zone:
    id: str
    family: str  # internet, kubernetes, aws, device, tier
    addresses: IPSet = NO_ADDRESSES
    tier: Tier | None = None
    facts: tuple[object, ...] = ()
    source: bool = False  # a declared frontend zone (or the internet): the check asks from here


@dataclass
class ZoneGraph:
    """Zones and links in a networkx MultiDiGraph (node attr `zone`, edge attr `link`)."""

    graph: nx.MultiDiGraph[str] = field(default_factory=nx.MultiDiGraph)

    def add_zone(self, zone: Zone) -> Zone:
        if zone.id in self.graph:
            existing: Zone = self.graph.nodes[zone.id]["zone"]
            return existing
        self.graph.add_node(zone.id, zone=zone)
        return zone

    def zone(self, zone_id: str) -> Zone:
        found: Zone = self.graph.nodes[zone_id]["zone"]
        return found

    def zones(self) -> Iterator[Zone]:
        for _, data in self.graph.nodes(data=True):
            yield data["zone"]

    def add_link(self, link: Link) -> None:
        if link.src == link.dst or not link.addresses or not link.conns:
            return
        self.graph.add_edge(link.src, link.dst, link=link)

    def links_from(self, zone_id: str) -> list[Link]:
        return [data["link"] for _, _, data in self.graph.out_edges(zone_id, data=True)]

    def best_link(self, src: str, dst: str) -> Link:
        """The link with the fewest hops between two adjacent zones. Ties go to the smallest text, not to
        the first added: links arrive in evidence completion order, and identical evidence must name
        the same link in every run."""
        links: list[Link] = [data["link"] for data in self.graph.get_edge_data(src, dst).values()]
        return min(links, key=link_key)


def link_key(link: Link) -> tuple[int, tuple[str, ...], str, str]:
    """A total, run-independent order on parallel links: fewest hops first, then by what they say."""
    return (
        len(link.hops),
        tuple(h.text for h in link.hops),
        link.conns.describe(),
        link.addresses.describe(),
    )


def paths_to(graph: ZoneGraph, targets: Iterable[str], *, avoid: Iterable[str] = ()) -> dict[str, str | None]:
    """Reverse breadth-first search from the targets: for every zone that reaches one, the next zone on
    a shortest path (None for the targets themselves). Zones in `avoid` are neither entered nor left
    (the internet is never a pivot for other sources: its own finding covers what it reaches).
    Predecessors are visited in sorted order, so among equally short paths the choice depends on the
    targets' order and zone ids only, never on the order links were added (collection order)."""
    blocked = set(avoid)
    nxt: dict[str, str | None] = {}
    queue: deque[str] = deque()
    for target in targets:
        if target in graph.graph and target not in nxt:
            nxt[target] = None
            queue.append(target)
    while queue:
        node = queue.popleft()
        for pred in sorted(graph.graph.predecessors(node)):
            if pred in nxt or pred in blocked:
                continue
            nxt[pred] = node
            queue.append(pred)
    return nxt


def walk(graph: ZoneGraph, start: str, nxt: dict[str, str | None]) -> list[Link]:
    """The links from `start` to a target, following `paths_to`'s next pointers."""
    out: list[Link] = []
    node = start
    seen = {node}
    while (following := nxt.get(node)) is not None:
        out.append(graph.best_link(node, following))
        node = following
        if node in seen:  # cannot happen with BFS pointers; guards against a corrupted map
            break
        seen.add(node)
    return out
