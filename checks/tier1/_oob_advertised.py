"""OOB space carried out of the management VRFs by the devices that hold it: the OOB switches themselves,
and every device's management VRF.

A management VRF (on an OOB-tier device its default VRF too) leaks OOB space when:
- its BGP has a neighbour outside OOB space (not a declared jump host) and the VRF advertises OOB
  prefixes to it: a `network` statement for OOB space, or any `redistribute` (connected and static
  routes of a management VRF are OOB space);
- it exports a route target that a VRF which is not a management VRF imports, anywhere in the fabric
  (one graph of exports and imports over every device of the run);
- a VRF that is not a management VRF leaks routes from it (a leak statement naming the management VRF).
A `bgp listen range` counts as one neighbour: an outsider unless the whole range is OOB space (or jump
hosts). BGP neighbours named by a peer group or an interface (unnumbered) cannot be placed and are not
counted as outsiders (an unnumbered session runs over a port of the management VRF or of the OOB switch,
whose dedication T1-OOB-SWITCH-DEDICATED judges); a VRF that advertises OOB space while its BGP
neighbours were not collected is NOT_ASSESSED.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field

from auditor.enums import FactKind
from auditor.facts import BgpNeighbor, FactRecord, Vrf
from auditor.store.reader import StoredFact
from checks.base import CheckContext
from checks.netutil import address, network
from checks.text import listing
from checks.tier1._common import Oob


@dataclass
class Leak:
    """What one VRF does with OOB space, found over the fabric."""

    vrf: StoredFact[Vrf]
    problems: list[str] = field(default_factory=list)
    facts: list[StoredFact[FactRecord]] = field(default_factory=list)
    unknown: str | None = None  # why it cannot be judged, if so

    @property
    def subject(self) -> str:
        return self.vrf.record.subject()


def oob_leaks(ctx: CheckContext, oob: Oob, names: set[str]) -> list[Leak]:
    """For every management VRF (and every VRF leaking from one) of the devices in `names`: its leaks."""
    tiers = {t.name: t.tier for t in ctx.targets if t.kind == "device"}
    vrfs = [v for v in ctx.facts.of(Vrf) if v.target in names]

    def mgmt(v: StoredFact[Vrf]) -> bool:
        return oob.is_mgmt_vrf(v.record.name, tiers.get(v.target), v.target)

    neighbours: dict[tuple[str, str], list[StoredFact[BgpNeighbor]]] = defaultdict(list)
    for n in ctx.facts.of(BgpNeighbor):
        if n.target in names and not n.record.shutdown:
            neighbours[(n.target, n.record.vrf)].append(n)
    importers: dict[str, list[StoredFact[Vrf]]] = defaultdict(list)
    for v in ctx.facts.of(Vrf):  # every device of the run imports: the graph is fabric-wide
        if not oob.is_mgmt_vrf(v.record.name, tiers.get(v.target), v.target):
            for rt in v.record.route_targets_import:
                importers[rt].append(v)
    out: list[Leak] = []
    spellings: dict[str, set[str]] = defaultdict(set)  # device -> how it spells its management VRFs
    for v in vrfs:
        if mgmt(v):
            spellings[v.target].add(v.record.name)
    for v in vrfs:
        leak = Leak(v, facts=[v])
        if mgmt(v):
            _advertised(ctx, oob, v, neighbours[(v.target, v.record.name)], leak)
            for rt in v.record.route_targets_export:
                for other in importers.get(rt, []):
                    leak.problems.append(f"exports route target {rt}, imported by {other.record.subject()}")
                    leak.facts.append(other)
        else:
            for text in v.record.leaks:
                names_here = sorted(spellings[v.target] | set(oob.vrfs))
                if any(re.search(rf"(?<![\w-]){re.escape(m)}(?![\w-])", text) for m in names_here):
                    leak.problems.append(f"leaks routes from a management VRF: `{text}`")
        if leak.problems or leak.unknown or mgmt(v):
            out.append(leak)
    return out


def _advertised(
    ctx: CheckContext, oob: Oob, v: StoredFact[Vrf], peers: Iterable[StoredFact[BgpNeighbor]], leak: Leak
) -> None:
    rec = v.record
    advertised = [f"network {p}" for p in rec.bgp_networks if oob.in_oob(p)]
    advertised += [f"redistribute {r}" for r in rec.bgp_redistribute]
    if not advertised:
        return
    if not ctx.facts.covered(v.target, FactKind.BGP_NEIGHBOR):
        leak.unknown = f"advertises {listing(advertised)} but its BGP neighbours were not collected"
        return
    outsiders = [
        n
        for n in peers
        if _placed(n.record.peer) and not oob.in_oob(n.record.peer) and not oob.is_jump_host(n.record.peer)
    ]
    if outsiders:
        who = listing(
            f"{n.record.peer}" + (f" (AS {n.record.remote_as})" if n.record.remote_as else "")
            for n in outsiders
        )
        leak.problems.append(f"advertises {listing(advertised)} to non-OOB BGP neighbour(s) {who}")
        leak.facts.extend(outsiders)


def _placed(peer: str) -> bool:
    """A peer address, or a `bgp listen range` prefix (any peer inside it may connect: it is judged
    whole, an outsider unless it lies entirely in OOB space or the jump hosts)."""
    return address(peer) is not None or ("/" in peer and network(peer) is not None)
