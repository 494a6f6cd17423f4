"""Shared state of one model build: the graph, the declared tier space, and cross-domain exits.

Each domain builder (devices, AWS, Kubernetes) first registers its zones and how traffic is admitted
into them (`Admission`), then computes its links. When a forwarding walk leaves the evidence (a next
hop no device in the evidence owns, a transit gateway attachment to on-premises), `exit` decides where
the traffic lands:
- only a route specific to declared space is followed (its prefix inside the union of all declared tier
  CIDRs): a default or aggregate route out of the evidence says nothing about where tier space lives;
- it lands in the zones of the evidence that hold the addresses (through their admission filters);
- what no zone holds but lies in tier-1/3 CIDRs lands on the tier node, marked as assumed.

Declared OOB services (`intent.tiers.oob.services`, checks/oob_services.py) are authorised traffic, not
lateral movement: `services` holds them as boxes (from the service's sources to its destinations in OOB
space, on its ports; and the replies, from its destinations back to its sources in OOB space, on the
ephemeral ports and its own), which filters subtract from what they allow (`without_services`), and a
link from a zone whose hosts all lie inside a service's sources loses what the service carries. The
declared jump hosts are treated the same way: reaching a jump host is how operators enter OOB space, not
a path into tier 1 (as X-FLOWS-NO-CROSS-TIER and T1-OOB-FLOWS-AUTHORIZED read it). `public` is the
internet's address space as `intent.addressing` defines it (checks/address_space.py).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from auditor.config.models import Intent, OobTier
from auditor.enums import Tier
from checks.address_space import AddressSpace
from checks.lateral.addresses import IPSet, union_all
from checks.lateral.conns import PORT_MAX, ConnSet
from checks.lateral.filters import Box
from checks.lateral.graph import Hop, Link, Zone, ZoneGraph, tier_node
from checks.oob_services import EPHEMERAL

TARGET_TIERS = (Tier.OOB, Tier.BACKEND)
MAX_LANDINGS = 256  # pieces whose landing is kept; a piece's landing lists the zones overlapping it


@dataclass(frozen=True)
class Admitted:
    addresses: IPSet
    conns: ConnSet
    hops: tuple[Hop, ...]


# (source addresses, destination piece, connections) -> what the zone's own filters admit
Admission = Callable[[IPSet, IPSet, ConnSet], Admitted]


@dataclass
class ModelContext:
    intent: Intent
    graph: ZoneGraph = field(default_factory=ZoneGraph)
    admissions: dict[str, Admission] = field(default_factory=dict)
    owners: list[tuple[IPSet, str]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    unassessed: dict[str, str] = field(default_factory=dict)  # source zone id -> why it cannot be judged
    # tier space beyond the declared CIDRs: the CIDRs of AWS VPCs/subnets a tier's `aws` tags select
    extra_space: dict[Tier, list[str]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self._by_bucket: dict[int, list[int]] = {}
        self._landings: dict[IPSet, _Landing] = {}
        self.tier_space: dict[Tier, IPSet] = {}
        declared: list[IPSet] = []
        for tier in (Tier.OOB, Tier.FRONTEND, Tier.BACKEND):
            ti = self.intent.tiers.get(tier)
            if ti is None:
                continue
            space = IPSet.parse(*ti.cidrs, *self.extra_space.get(tier, []))
            declared.append(space)
            if tier in TARGET_TIERS and space:
                self.tier_space[tier] = space
                self.graph.add_zone(Zone(tier_node(tier), "tier", space, tier))
        self.declared = union_all(declared)
        self.public = IPSet.parse(*(str(n) for n in AddressSpace.from_intent(self.intent).public_networks()))
        self.services, self.service_replies = service_boxes(
            self.intent, self.tier_space.get(Tier.OOB, IPSet())
        )

    def without_services(self, boxes: Sequence[Box]) -> list[Box]:
        """`boxes` minus the traffic declared OOB services authorise (requests and replies)."""
        out = list(boxes)
        for service in self.services:
            out = [part for box in out for part in box.minus(service)]
        return out

    def add_zone(self, zone: Zone, admission: Admission | None = None) -> None:
        self.graph.add_zone(zone)
        self._landings.clear()
        if zone.addresses:
            index = len(self.owners)
            self.owners.append((zone.addresses, zone.id))
            for bucket in _buckets(zone.addresses):
                self._by_bucket.setdefault(bucket, []).append(index)
        if admission is not None:
            self.admissions[zone.id] = admission

    def owners_of(self, piece: IPSet) -> list[tuple[IPSet, str]]:
        """The zones whose addresses overlap `piece`, through a /16 bucket index (IPv6: a scan), by zone
        id: zones register in evidence completion order, and `deliver` lands on the first owner of each
        tier, so identical evidence must list them in the same order in every run."""
        buckets = _buckets(piece)
        if piece.v6 or len(buckets) > 4096:
            found = [o for o in self.owners if o[0].overlaps(piece)]
        else:
            hits = {i for b in buckets for i in self._by_bucket.get(b, ())}
            found = [self.owners[i] for i in hits if self.owners[i][0].overlaps(piece)]
        return sorted(found, key=lambda o: o[1])

    def pivots(self, zone_id: str) -> bool:
        """Whether walks start from this zone: not from tier-1/3 zones, since reaching one already fails
        (a path through tier 1 into tier 3 is reported as the tier-1 path it starts with)."""
        return self.graph.zone(zone_id).tier not in TARGET_TIERS

    def tier_of_addresses(self, addresses: IPSet) -> Tier | None:
        """The tier whose declared CIDRs contain all these addresses, if any."""
        if not addresses:
            return None
        for tier in (Tier.OOB, Tier.BACKEND, Tier.FRONTEND):
            ti = self.intent.tiers.get(tier)
            if ti is not None and ti.cidrs and addresses.issubset(IPSet.parse(*ti.cidrs)):
                return tier
        return None

    def link(self, src: str, dst: str, addresses: IPSet, conns: ConnSet, hops: Sequence[Hop]) -> None:
        if self.services:
            # the zone's hosts as sources (any address when unknown, e.g. the internet): a service
            # covering them all, or a jump host, takes its part away
            hosts = self.graph.zone(src).addresses if src in self.graph.graph else IPSet()
            left = self.without_services([Box(hosts or IPSet.everything(), addresses, conns)])
            if not left:
                return
            addresses = union_all(b.dst for b in left)
            conns = ConnSet()
            for b in left:
                conns = conns.union(b.conns)
        self.graph.add_link(Link(src, dst, addresses, conns, tuple(hops)))

    def to_tiers(self, src: str, piece: IPSet, conns: ConnSet, hops: Sequence[Hop], why: str) -> None:
        """Links from `src` to the tier nodes for the tier-1/3 part of `piece`."""
        for tier, space in self.tier_space.items():
            part = piece.intersect(space)
            if part:
                self.link(
                    src,
                    tier_node(tier),
                    part,
                    conns,
                    [*hops, Hop(f"{why}: {part.describe()} is {tier.value}")],
                )

    def exit(
        self,
        origin: str,
        src: IPSet,
        piece: IPSet,
        route_prefix: IPSet,
        conns: ConnSet,
        hops: Sequence[Hop],
        where: str,
    ) -> None:
        """Traffic for `piece` leaves the evidence at `where` by a route for `route_prefix`."""
        if not route_prefix.issubset(self.declared):
            return  # a default or aggregate route out of the evidence: not followed
        self.deliver(
            origin,
            src,
            piece,
            conns,
            hops,
            f"{where}: beyond the evidence, the route is specific to declared space",
        )

    def deliver(
        self, origin: str, src: IPSet, piece: IPSet, conns: ConnSet, hops: Sequence[Hop], where: str
    ) -> None:
        """Land `piece` in the zones that hold it (through their admission), the rest of tier space on
        the tier nodes (assumed: no zone in the evidence holds it)."""
        reached_tiers: set[Tier | None] = set()
        landing = self._landing(piece)
        if origin in landing.ids:
            rest = piece.subtract(union_all(a for a, o, _ in landing.owners if o != origin))
        else:
            rest = piece.subtract(landing.held)
        for i, (addresses, owner, tier) in enumerate(landing.owners):
            if all(last < i or t in reached_tiers for t, last in landing.last.items()):
                break  # every zone left is of a tier already landed in: each would be skipped below
            if owner == origin or tier in reached_tiers:
                continue  # one landing per tier-1/3 suffices: paths do not continue through them
            part = piece.intersect(addresses)
            if not part:
                continue
            hop = Hop(f"{where}; {owner} holds {part.describe()}")
            admit = self.admissions.get(owner)
            if admit is None:
                self.link(origin, owner, part, conns, [*hops, hop])
                if tier in TARGET_TIERS:
                    reached_tiers.add(tier)
                continue
            admitted = admit(src, part, conns)
            if admitted.addresses and admitted.conns:
                self.link(origin, owner, admitted.addresses, admitted.conns, [*hops, hop, *admitted.hops])
                if tier in TARGET_TIERS:
                    reached_tiers.add(tier)
        if rest:
            self.to_tiers(
                origin, rest, conns, hops, f"{where}; assumed delivered (no zone in the evidence holds it)"
            )

    def _landing(self, piece: IPSet) -> _Landing:
        """The zones holding `piece`, worked out once per piece: many origins deliver the same piece (every
        namespace whose egress opens onto tier space), and scanning and merging every zone for each of them
        grows with origins times zones."""
        if piece not in self._landings:
            if len(self._landings) >= MAX_LANDINGS:
                del self._landings[next(iter(self._landings))]  # the oldest
            owners = [(a, o, self.graph.zone(o).tier) for a, o in self.owners_of(piece)]
            last = {tier: i for i, (_, _, tier) in enumerate(owners)}
            ids = frozenset(o for _, o, _ in owners)
            self._landings[piece] = _Landing(owners, ids, union_all(a for a, _, _ in owners), last)
        return self._landings[piece]


@dataclass(frozen=True)
class _Landing:
    owners: list[tuple[IPSet, str, Tier | None]]  # (addresses, zone id, zone tier), in owners_of order
    ids: frozenset[str]
    held: IPSet  # every owner's addresses
    last: dict[Tier | None, int]  # the position of the last owner of each tier


def service_boxes(intent: Intent, oob_space: IPSet) -> tuple[list[Box], list[Box]]:
    """The traffic each declared OOB service authorises into OOB space, as boxes (see the docstring);
    and its replies keyed on the service's own ports (from its servers, for stateless ACLs' source-port
    rules, see device_acl.entries)."""
    oob = intent.tiers.oob
    if not isinstance(oob, OobTier) or not oob_space:
        return [], []
    out: list[Box] = []
    keyed: list[Box] = []
    jumps = IPSet.parse(*oob.jump_hosts).intersect(oob_space)
    if jumps:  # anyone may open a connection to a jump host: that is what it is for
        out.append(Box(IPSet.everything(), jumps, ConnSet.everything()))
    for s in oob.services:
        sources, destinations = IPSet.parse(*s.sources), IPSet.parse(*s.destinations)
        if s.protocol == "any":
            request = reply = ConnSet.everything()
        elif s.protocol == "icmp":
            request = reply = ConnSet(other=True)
        else:
            request = ConnSet()
            for lo, hi in s.ports:
                request = request.union(ConnSet.ports(s.protocol, lo, hi))
            reply = request.union(ConnSet.ports(s.protocol, EPHEMERAL, PORT_MAX))
        out.append(Box(sources, destinations.intersect(oob_space), request))
        out.append(Box(destinations, sources.intersect(oob_space), reply))
        keyed.append(Box(destinations, sources.intersect(oob_space), request))
    return [b for b in out if b], [b for b in keyed if b]


def _buckets(addresses: IPSet) -> set[int]:
    """The /16 blocks an IPv4 set touches (capped: a huge set is scanned instead)."""
    out: set[int] = set()
    for lo, hi in addresses.v4.spans:
        first, last = lo >> 16, hi >> 16
        if last - first > 4096:
            return set(range(4097))
        out.update(range(first, last + 1))
    return out
