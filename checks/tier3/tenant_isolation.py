"""T3-TENANT-ISOLATION: backend tenants are kept apart, on EVPN/VXLAN and on InfiniBand.

EVPN/VXLAN: the tenant VRFs are the backend VRFs other than "default", by their canonical names (one
VRF spelt per platform is one VRF: checks/vrf_names.py). Across every backend device, each tenant VRF
has its own L3 VNI (a VNI two tenant VRFs share merges their routes), and no route-target flow joins it
to another tenant's VRF, read from the fabric-wide route-target graph (checks/route_targets.py): it
imports no RT another tenant's VRF exports and exports none another tenant's VRF imports. A VRF's
tenant is the port manifest's tenant for it, else the VRF itself, so RTs shared between two VRFs of one
tenant (a shared-services design inside the tenant) are not a leak. An inter-VRF leak statement
(checks/tier3/_leaks.py) that joins it to another tenant's VRF is one. On a device that runs VXLAN (it has
VNI facts), a tenant VRF without an L3 VNI is reported too: its routes do not travel in their own VNI.

Ports (when the port manifest gives tenants): see checks/tier3/_tenant_ports.py.

InfiniBand (IbPartition facts from OpenSM `partitions.conf` or NVIDIA UFM): every partition other
than the default one (P_Key 0x7fff) is a tenant. Kept apart means:
- in the default partition, end ports are limited members: a full (or both) member other than the
  subnet manager (SELF) and the switches (ALL_SWITCHES) can talk to every limited member, i.e. to every
  tenant's hosts;
- no tenant partition lets the whole fabric in (ALL, ALL_CAS, ALL_ROUTERS as members);
- no port GUID is a full member of two tenant partitions (it would bridge them).
"""

from __future__ import annotations

import functools
from collections import defaultdict
from collections.abc import Iterable

from auditor.config.segmentation import vrf_tenants
from auditor.enums import FactKind, Severity, Tier
from auditor.facts import FactRecord, IbPartition, Vrf, VxlanVni
from auditor.store.reader import StoredFact
from checks.base import Check, CheckContext, CheckMeta, Finding
from checks.route_targets import Flow, RouteTargetGraph, VrfNode
from checks.text import bounded, clauses, listing
from checks.tier3._common import Backend, backend_devices, unique
from checks.tier3._leaks import leak_vrfs
from checks.tier3._tenant_ports import NEEDS as PORT_NEEDS
from checks.tier3._tenant_ports import tenant_port_findings
from checks.tier3.no_route_leak import route_targets

NEEDS = frozenset({FactKind.VRF, FactKind.VXLAN_VNI})
IB_NEEDS = frozenset({FactKind.IB_PARTITION})
DEFAULT_PKEY = 0x7FFF
FABRIC_WIDE = {"ALL", "ALL_CAS", "ALL_ROUTERS"}
DEFAULT_FULL_OK = {"SELF", "ALL_SWITCHES"}


class BackendTenantIsolation(Check):
    meta = CheckMeta(
        id="T3-TENANT-ISOLATION",
        title="Backend tenants isolated: own L3 VNI and route-targets, own InfiniBand partition",
        tier=Tier.BACKEND,
        severity=Severity.CRITICAL,
        needs=NEEDS | IB_NEEDS | PORT_NEEDS,
        rationale=(
            "Tenants sharing a GPU fabric must not reach each other's memory over RDMA. On EVPN/VXLAN that "
            "rests on one L3 VNI and one set of route-targets per tenant VRF; on InfiniBand on one "
            "partition key per tenant and limited membership in the default partition."
        ),
        remediation=(
            "Give each tenant VRF a unique L3 VNI and route-targets; on InfiniBand give each tenant its own "
            "P_Key, make end ports limited members of the default partition "
            "(`Default=0x7fff : ALL=limited, SELF=full;`) and never list a host as a full member of two "
            "tenants' partitions."
        ),
    )

    def evaluate(self, ctx: CheckContext) -> Iterable[Finding]:
        backend = Backend.of(ctx)
        ready, gaps = self.split_assessable(ctx, backend_devices(ctx), NEEDS)
        yield from gaps
        yield from self._evpn(ctx, backend, {t.name for t in ready})
        yield from tenant_port_findings(self, ctx, backend_devices(ctx))
        fabrics = [
            t
            for t in ctx.targets
            if t.kind == "ib-fabric" or ctx.facts.covered(t.name, FactKind.IB_PARTITION)
        ]
        ib_ready, ib_gaps = self.split_assessable(ctx, fabrics, IB_NEEDS)
        yield from ib_gaps
        names = {t.name for t in ib_ready}
        by_fabric: dict[str, list[StoredFact[IbPartition]]] = defaultdict(list)
        for p in ctx.facts.of(IbPartition):
            if p.target in names:
                by_fabric[p.record.fabric].append(p)
        for fabric in sorted(by_fabric):
            yield from self._partitions(by_fabric[fabric])

    def _evpn(self, ctx: CheckContext, backend: Backend, names: set[str]) -> Iterable[Finding]:
        tenants = set(backend.tenant_vrfs())
        graph = RouteTargetGraph.of(ctx)
        vrfs: dict[str, list[StoredFact[Vrf]]] = defaultdict(list)  # canonical name -> its instances
        for v in ctx.facts.of(Vrf):
            canonical = backend.canonical(v.target, v.record.name)
            if v.target in names and canonical in tenants:
                vrfs[canonical].append(v)
        vxlan_devices: set[str] = set()
        vnis: dict[str, dict[int, list[StoredFact[FactRecord]]]] = defaultdict(lambda: defaultdict(list))
        for n in ctx.facts.of(VxlanVni):
            if n.target in names:
                vxlan_devices.add(n.target)
                vrf = backend.canonical(n.target, n.record.vrf) if n.record.vrf else None
                if vrf in tenants:
                    vnis[vrf][n.record.vni].append(n)
        for name, facts in vrfs.items():
            for v in facts:
                if v.record.l3_vni is not None:
                    vnis[name][v.record.l3_vni].append(v)
        expected = (
            "an L3 VNI of its own; no route-target flow to or from another tenant's VRF "
            "(RTs shared within one tenant are not a leak)"
        )
        for name in sorted(vrfs):
            problems: list[str] = []
            evidence: list[StoredFact[FactRecord]] = list(vrfs[name])
            for other in sorted(tenants - {name}):
                shared_vnis = sorted(set(vnis[name]) & set(vnis[other]))
                if shared_vnis:
                    problems.append(f"L3 VNI {listing(map(str, shared_vnis))} shared with vrf {other}")
                    evidence += [f for vni in shared_vnis for f in vnis[other][vni]]
            flows = []
            for v in vrfs[name]:
                own = graph.node(v)
                flows += graph.leaks(own, functools.partial(_other_tenant, own))
            problems += _flow_texts(name, flows)
            leaks: dict[tuple[str, str], list[str]] = defaultdict(list)
            for v in vrfs[name]:
                for leak in v.record.leaks:
                    crossed = _tenants_joined(backend, v, leak, tenants, name)
                    if crossed:
                        leaks[(crossed, leak)].append(v.target)
            for (crossed, leak), on in sorted(leaks.items())[:5]:
                problems.append(f"leak to {crossed} ({leak}) on {bounded(on, 'device(s)')}")
            if len(leaks) > 5:
                problems.append(f"and {len(leaks) - 5} more leak statement(s) to other tenants")
            # the first ten by device and VRF, not by fact id (ids follow collection order)
            ends = [f.source.fact if f.sink.vrf == name else f.sink.fact for f in flows]
            evidence += sorted(ends, key=lambda x: (x.target, x.record.subject()))[:10]
            mapped = {f.target for facts in vnis[name].values() for f in facts}
            without = sorted(
                v.target for v in vrfs[name] if v.target in vxlan_devices and v.target not in mapped
            )
            if without:
                problems.append(f"no L3 VNI on {bounded(without, 'VXLAN switch(es)')}")
            own_vnis = listing(map(str, sorted(vnis[name])), empty="none")
            rts = sorted({rt for v in vrfs[name] for rt in route_targets(v.record)})
            own_rts = listing(rts, 5, empty="none")
            summary = f"L3 VNI {own_vnis}; route-targets {own_rts}; on {len(vrfs[name])} device(s)"
            if problems:
                yield self.failed(
                    f"vrf {name}", expected, clauses(problems) + f" ({summary})", *unique(evidence)
                )
            else:
                yield self.passed(f"vrf {name}", expected, summary, *vrfs[name])

    def _partitions(self, partitions: list[StoredFact[IbPartition]]) -> Iterable[Finding]:
        tenants = [p for p in partitions if not _is_default(p.record)]
        full_in: dict[str, list[StoredFact[IbPartition]]] = defaultdict(list)
        for p in tenants:
            for m in p.record.members:
                if m.membership in ("full", "both") and m.guid.upper() not in FABRIC_WIDE | DEFAULT_FULL_OK:
                    full_in[m.guid.lower()].append(p)
        for p in sorted(partitions, key=lambda f: f.record.pkey):
            rec = p.record
            problems: list[str] = []
            related: list[StoredFact[FactRecord]] = [p]
            if _is_default(rec):
                expected = "end ports limited members (only SELF and ALL_SWITCHES full)"
                full = [
                    m
                    for m in rec.members
                    if m.membership != "limited" and m.guid.upper() not in DEFAULT_FULL_OK
                ]
                if full:
                    problems.append(
                        "full members in the default partition: "
                        + listing(f"{m.guid}={m.membership}" for m in full)
                        + " (they reach every tenant's hosts)"
                    )
            else:
                expected = (
                    "members of this tenant only: no fabric-wide keyword, no full member of another tenant"
                )
                wide = [m for m in rec.members if m.guid.upper() in FABRIC_WIDE]
                if wide:
                    problems.append(
                        f"the whole fabric is a member: {listing(f'{m.guid}={m.membership}' for m in wide)}"
                    )
                for m in rec.members:
                    others = [o for o in full_in.get(m.guid.lower(), []) if o.id != p.id]
                    if m.membership in ("full", "both") and others:
                        names = listing(o.record.name for o in others)
                        problems.append(f"{m.guid} is also a full member of {names}")
                        related += others
            if problems:
                yield self.failed(
                    rec.subject(), expected, clauses(problems), *unique(related), target=p.target
                )
            else:
                found = f"{len(rec.members)} member(s), none crossing tenants"
                yield self.passed(rec.subject(), expected, found, p, target=p.target)


def _tenants_joined(
    backend: Backend, vrf: StoredFact[Vrf], leak: str, tenants: set[str], own: str
) -> str | None:
    """The other tenants' VRFs a leak statement of `vrf` names (VRFs of one tenant may leak)."""
    tenant_of = vrf_tenants(backend.names.intent)
    mine = tenant_of.get(own, own)
    others = sorted(
        {
            canonical
            for n in leak_vrfs(leak)
            if (canonical := backend.canonical(vrf.target, n)) in tenants
            and canonical != own
            and tenant_of.get(canonical, canonical) != mine
        }
    )
    return ", ".join(f"vrf {o}" for o in others) or None


def _other_tenant(own: VrfNode, other: VrfNode) -> bool:
    """A tenant VRF of the backend that belongs to another tenant (the underlay's default VRF is not a
    tenant; non-backend VRFs are T3-NO-ROUTE-LEAK's)."""
    return other.tier == Tier.BACKEND and other.vrf != "default" and other.tenant != own.tenant


def _flow_texts(name: str, flows: list[Flow]) -> list[str]:
    """One text per (direction, route-target, other VRF), naming a few devices and counting the rest."""
    groups: dict[tuple[str, str, str], set[str]] = defaultdict(set)
    for f in flows:
        inbound = f.sink.vrf == name
        other = f.source if inbound else f.sink
        who = f"vrf {other.vrf}" + (f" (tenant {other.tenant})" if other.tenant != other.vrf else "")
        key = ("imports" if inbound else "exports", f.rt, who)
        groups[key].add(other.target)
    texts = []
    for (direction, rt, who), devices in sorted(groups.items()):
        verb = "exported by" if direction == "imports" else "imported by"
        texts.append(
            f"{direction} route-target {rt}, {verb} {who} on {bounded(sorted(devices), 'device(s)')}"
        )
    if len(texts) > 5:
        texts = [*texts[:5], f"and {len(texts) - 5} more route-target flow(s) with other tenants"]
    return texts


def _is_default(p: IbPartition) -> bool:
    return p.default or (p.pkey & DEFAULT_PKEY) == DEFAULT_PKEY
