"""T3-TENANT-ISOLATION, port by port: a tenant's port carries only that tenant's VLANs and VRF.

Runs when the port manifest (`intent.ports`) gives ports a tenant. A port's placement (its VRF, or the
VLANs it carries: checks/tier3/port_segregation.py) belongs to tenants as follows:
- a VRF belongs to the tenant the manifest gives it (entries with both `vrf` and `tenant`);
- a VLAN belongs to the tenants of the manifest entries that list it, and to the tenant of the VRF its
  SVI (interface `VlanN`) sits in on that switch.
A port of tenant A that carries a VLAN or VRF of tenant B joins the two tenants at layer 2 or 3: FAIL,
one finding per port; so does a tenant port in a VLAN or VRF of its tier other than the ones its entry
declares (a tenant's GPU port belongs where the tenant's traffic is). A VLAN or VRF of another tier is
T3-PORT-SEGREGATION's finding, not this one's. Ports without a tenant in the manifest (uplinks, shared
storage) are not judged here. Without tenants in the manifest no port finding is made: which tenant a
port serves is intent, not evidence (the EVPN and InfiniBand parts of the check still run).
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable, Iterable

from auditor.config.segmentation import PortAssignment, vrf_tenants
from auditor.enums import FactKind, TargetStatus, Tier
from auditor.facts import FactRecord, Vlan
from auditor.store.reader import StoredFact
from checks.base import Check, CheckContext, Finding, TargetView
from checks.tier3._common import interfaces_by_device
from checks.tier3._manifest import Manifest
from checks.tier3.port_segregation import _placement
from checks.vrf_names import VrfNames

NEEDS = frozenset({FactKind.INTERFACE, FactKind.VLAN})
_SVI = re.compile(r"^vlan\D*(\d+)$", re.IGNORECASE)


def tenant_port_findings(check: Check, ctx: CheckContext, devices: list[TargetView]) -> Iterable[Finding]:
    entries = [p for p in ctx.intent.ports if p.tenant is not None]
    if not entries:
        return
    ready = [t for t in devices if not ctx.missing(t, NEEDS) and t.status != TargetStatus.FAILED]
    for t in devices:
        if t not in ready:
            why = t.reason or f"no evidence of {', '.join(k.value for k in ctx.missing(t, NEEDS))}"
            yield check.not_assessed(
                f"{t.name}: tenant ports", f"{t.name}: not assessed: {why}", target=t.name
            )
    names = VrfNames.of(ctx)
    manifest = Manifest.of(ctx)
    by_vrf = vrf_tenants(ctx.intent)
    by_device = interfaces_by_device(ctx, {t.name for t in ready})
    defined: dict[str, list[Vlan]] = defaultdict(list)
    for v in ctx.facts.of(Vlan):
        defined[v.target].append(v.record)
    tiers = {t.name: t.tier for t in devices}
    tier_of_vlan = _vlan_tiers(ctx, manifest)
    expected = "each tenant port carries only its own tenant's VLANs and VRF"
    for device in sorted(t.name for t in ready):
        ifs = by_device[device]
        svi_tenant: dict[int, str] = {}
        for i in ifs.by_name.values():
            m = _SVI.match(i.record.name)
            tenant = by_vrf.get(names.canonical(device, i.record.vrf))
            if i.record.type == "vlan" and m and tenant:
                svi_tenant[int(m.group(1))] = tenant
        judged: list[StoredFact[FactRecord]] = []
        bad: list[Finding] = []
        for port in sorted(ifs.ports(), key=lambda p: p.record.name):
            rec = port.record
            entry = manifest.entry(device, rec.name, ifs)
            if entry is None or entry.tenant is None or rec.port_channel or not rec.enabled:
                continue
            judged.append(port)
            where, vlans, vrf = _placement(rec, defined[device])
            others = _others(
                entry, vlans, vrf, device, names, by_vrf, svi_tenant, entries, tier_of_vlan, tiers.get(device)
            )
            if others:
                found = f"{where}: tenant {entry.tenant}'s port carries {'; '.join(others)}"
                bad.append(check.failed(rec.subject(), expected, found, port, target=device))
        yield from bad
        if judged and not bad:
            found = f"all {len(judged)} tenant port(s) carry only their own tenant's VLANs and VRF"
            yield check.passed(f"{device}: tenant ports", expected, found, *judged, target=device)


def _others(
    entry: PortAssignment,
    vlans: list[int],
    vrf: str | None,
    device: str,
    names: VrfNames,
    by_vrf: dict[str, str],
    svi_tenant: dict[int, str],
    entries: list[PortAssignment],
    tier_of_vlan: Callable[[int], list[Tier]],
    device_tier: Tier | None,
) -> list[str]:
    """What this port carries that is not its tenant's: another tenant's VLAN or VRF, or (inside its
    tier) not the VLANs or VRF its entry declares. Another tier's VLAN or VRF is T3-PORT-SEGREGATION's."""
    out: list[str] = []
    if vrf is not None and names.tier(device, vrf, device_tier) == entry.tier:
        canonical = names.canonical(device, vrf)
        tenant = by_vrf.get(canonical)
        if tenant and tenant != entry.tenant:
            out.append(f"vrf {vrf} of tenant {tenant}")
        elif entry.vrf is not None and canonical != names.intent.canonical_vrf(entry.vrf):
            out.append(f"vrf {vrf}, not its declared vrf {entry.vrf}")
    for vid in vlans:
        tiers = tier_of_vlan(vid)
        if tiers and entry.tier not in tiers:
            continue
        tenants = {e.tenant for e in entries if e.carries(vid) and e.tenant}
        if vid in svi_tenant:
            tenants.add(svi_tenant[vid])
        others = sorted(t for t in tenants if t != entry.tenant)
        out += [f"vlan {vid} of tenant {t}" for t in others]
        if not others and entry.vlan and not entry.carries(vid):
            out.append(f"vlan {vid}, outside its declared vlans")
    return out[:10]


def _vlan_tiers(ctx: CheckContext, manifest: Manifest) -> Callable[[int], list[Tier]]:
    """The tiers whose declared VLAN ranges (or backend manifest entries) hold a VLAN."""

    def tiers(vid: int) -> list[Tier]:
        out = []
        for tier in ctx.intent.tiers.declared():
            intent = ctx.intent.tiers.get(tier)
            if intent is not None and any(lo <= vid <= hi for lo, hi in intent.vlans):
                out.append(tier)
        if Tier.BACKEND not in out and manifest.backend_vlan(vid):
            out.append(Tier.BACKEND)
        return out

    return tiers
