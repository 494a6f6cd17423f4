"""T3-PORT-SEGREGATION: every port sits where it belongs, judged port by port. Also the report's
switch-port segregation manifest: one finding per device listing where each of its ports is placed.

Placement of a port (Ethernet, port-channel, and the SVIs that give VLANs an L3 home):
- routed port or SVI: its VRF (the device's spelling made canonical: checks/vrf_names.py);
- access port: its access VLAN (VLAN 1 when none is set);
- trunk: its allowed VLANs (a trunk allowing every VLAN carries the VLANs defined on the switch, except
  VLAN 1: every switch has it and cannot delete it, and on such a trunk it is only the default native
  VLAN, so an MLAG or vPC peer-link with no allowed list is not placed in VLAN 1; a trunk whose allowed
  list names VLAN 1, and an access port in it, are; nor in an EOS VLAN reserved to trunk groups the port
  is not in);
- a port-channel member is placed by its port-channel, a shut-down port carries nothing.

What a port must be, first rule that applies:
1. a port the port manifest covers (`intent.ports`, checks/tier3/_manifest.py) is held to its entry's
   tier: its VRF is one of that tier's, it carries no VLAN of another tier (and, when the entry lists no
   VLANs, only VLANs inside the tier's declared ranges). A port without a tenant is also held to the
   entry's exact VRF and VLANs; for a tenant's port that is T3-TENANT-ISOLATION's to judge (another
   tenant's VLAN in a GPU port is one violation, reported once);
2. any other port of a backend device is in the backend: a backend VRF, a backend VLAN;
3. any other port of another device is not: no backend VRF (the default VRF aside, which is a backend
   VRF only on backend devices), no backend VLAN (declared, or given to backend ports by the manifest).
A port whose VLANs cannot be placed (rule 1 or 2 with no VLAN ranges to hold them to) leaves its device
NOT_ASSESSED, naming the ports; without backend VLAN ranges and without a manifest the check is
NOT_ASSESSED as a whole. Management ports are out of scope (T1 checks cover them).
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from auditor.config.segmentation import PortAssignment
from auditor.enums import FactKind, Severity, Tier
from auditor.facts import Interface, Vlan
from auditor.store.reader import StoredFact
from checks.base import Check, CheckContext, CheckMeta, Finding
from checks.text import bounded, clauses
from checks.tier3._common import Backend, device_targets, interfaces_by_device
from checks.tier3._manifest import Manifest
from checks.vrf_names import VrfNames

NEEDS = frozenset({FactKind.INTERFACE, FactKind.VLAN})
DEFAULT_VLAN = 1
PLACED_TYPES = {"ethernet", "port-channel", "vlan"}


@dataclass(frozen=True)
class _Rules:
    """What the intent says about tiers, VRFs and VLANs, for judging one device's ports."""

    ctx: CheckContext
    backend: Backend
    manifest: Manifest
    names: VrfNames

    def vlan_tiers(self, vid: int) -> list[Tier]:
        out = []
        for tier in self.ctx.intent.tiers.declared():
            intent = self.ctx.intent.tiers.get(tier)
            if intent is not None and any(lo <= vid <= hi for lo, hi in intent.vlans):
                out.append(tier)
        if Tier.BACKEND not in out and self.manifest.backend_vlan(vid):
            out.append(Tier.BACKEND)
        return out

    def tier_declares_vlans(self, tier: Tier) -> bool:
        """Whether the tier declares VLAN ranges (manifest VLANs name some of its VLANs, not all)."""
        intent = self.ctx.intent.tiers.get(tier)
        return bool(intent and intent.vlans)


class BackendPortSegregation(Check):
    meta = CheckMeta(
        id="T3-PORT-SEGREGATION",
        title="Switch ports segregated: backend ports in backend VRFs/VLANs, no other port in them",
        tier=Tier.BACKEND,
        severity=Severity.HIGH,
        needs=NEEDS,
        rationale=(
            "Segmentation ends at the port: one backend leaf port in a frontend VLAN, or one frontend or "
            "OOB switch port in an RDMA VLAN, bridges the networks whatever the routing says. The manifest "
            "of every port's placement is the evidence an auditor samples."
        ),
        remediation=(
            "Move the port into the VRF/VLAN its tier (or its port manifest entry) gives it, or shut it "
            "down; remove backend VLANs and VRFs from switches of other tiers."
        ),
    )

    def evaluate(self, ctx: CheckContext) -> Iterable[Finding]:
        backend = Backend.of(ctx)
        manifest = Manifest.of(ctx)
        if not backend.intent.vlans and not manifest.declared:
            yield self.not_assessed(
                "backend VLANs",
                "the intent names no backend VLAN range and no port manifest, so no port can be placed; "
                "declare intent.tiers.backend.vlans or intent.ports",
            )
            return
        rules = _Rules(ctx, backend, manifest, VrfNames.of(ctx))
        ready, gaps = self.split_assessable(ctx, device_targets(ctx), NEEDS)
        yield from gaps
        tiers = {t.name: t.tier for t in ready}
        by_device = interfaces_by_device(ctx, set(tiers))
        defined: dict[str, list[Vlan]] = defaultdict(list)
        for v in ctx.facts.of(Vlan):
            defined[v.target].append(v.record)
        for name in sorted(tiers):
            ports = [i for i in by_device[name].by_name.values() if i.record.type in PLACED_TYPES]
            yield self._device(name, tiers[name], ports, defined[name], rules)

    def _device(
        self,
        name: str,
        tier: Tier | None,
        ports: list[StoredFact[Interface]],
        defined: list[Vlan],
        rules: _Rules,
    ) -> Finding:
        ifs = interfaces_by_device(rules.ctx, {name})[name]
        manifest: list[str] = []
        bad: list[tuple[str, StoredFact[Interface]]] = []
        unplaced: list[str] = []
        for p in sorted(ports, key=lambda f: _natural(f.record.name)):
            intf = p.record
            where, vlans, vrf = _placement(intf, defined)
            manifest.append(f"{intf.name}: {where}")
            if where == "shut down" or where.startswith("member of"):
                continue
            entry = rules.manifest.entry(name, intf.name, ifs)
            verdict = _judge(name, tier, entry, vlans, vrf, rules)
            if verdict is _UNKNOWN:
                unplaced.append(intf.name)
            elif verdict:
                bad.append((f"{intf.name}: {where} {verdict}", p))
        is_backend = tier == Tier.BACKEND
        expected = f"{'every' if is_backend else 'no'} port in a backend VRF or VLAN" + (
            ", each port as the port manifest places it" if rules.manifest.declared else ""
        )
        listing = "; ".join(manifest) or "no ports in the evidence"
        if bad:
            texts = [text for text, _ in bad]
            found = clauses(texts)
            return self.failed(
                name, expected, f"{found}. Manifest: {listing}", *(f for _, f in bad), target=name
            )
        if unplaced:
            reason = (
                f"{name}: {bounded(unplaced, 'port(s)')} carry VLANs that neither the port "
                "manifest nor a declared VLAN range places; declare intent.tiers.backend.vlans or cover "
                "them in intent.ports"
            )
            return self.not_assessed(name, reason, target=name, expected=expected)
        return self.passed(
            name,
            expected,
            f"manifest: {listing}",
            *ports,
            target=name,
            message="Port segregation manifest: every port placed in its tier",
        )


class _Unknown(str):
    """A verdict that cannot be reached with the intent as declared."""


_UNKNOWN = _Unknown("unknown")


def _judge(
    device: str,
    device_tier: Tier | None,
    entry: PortAssignment | None,
    vlans: list[int],
    vrf: str | None,
    rules: _Rules,
) -> str | None:
    """What is wrong with this placement ("is not backend", ...), None when it holds, _UNKNOWN when the
    intent cannot say."""
    if entry is not None:
        return _judge_entry(device, device_tier, entry, vlans, vrf, rules)
    if device_tier == Tier.BACKEND:
        if vrf is not None:
            return None if rules.backend.is_backend_vrf(device, vrf, Tier.BACKEND) else "is not backend"
        if not rules.tier_declares_vlans(Tier.BACKEND):
            known = all(Tier.BACKEND in rules.vlan_tiers(v) for v in vlans)
            return None if known else _UNKNOWN
        return None if all(Tier.BACKEND in rules.vlan_tiers(v) for v in vlans) else "is not backend"
    in_backend = [Tier.BACKEND in rules.vlan_tiers(v) for v in vlans]
    if vrf is not None:
        in_backend.append(rules.backend.is_backend_vrf(device, vrf, device_tier))
    return "is backend" if any(in_backend) else None


def _judge_entry(
    device: str,
    device_tier: Tier | None,
    entry: PortAssignment,
    vlans: list[int],
    vrf: str | None,
    rules: _Rules,
) -> str | None:
    """The port against its manifest entry. Its tier is judged here; where a tenant's port sits inside
    its tier (another tenant's VLAN or VRF, or not its declared one) is T3-TENANT-ISOLATION's."""
    tier = entry.tier.value
    own = entry.tenant is None
    if vrf is not None:
        if rules.names.tier(device, vrf, device_tier) != entry.tier:
            return f"is not a {tier} VRF (port manifest: tier {tier})"
        declared = rules.names.intent.canonical_vrf(entry.vrf) if entry.vrf is not None else None
        if own and declared is not None and rules.names.canonical(device, vrf) != declared:
            return f"is not vrf {entry.vrf} (port manifest)"
        return None
    foreign = [v for v in vlans if rules.vlan_tiers(v) and entry.tier not in rules.vlan_tiers(v)]
    if foreign:
        return f"carries vlan {_ranges(foreign)} of another tier (port manifest: tier {tier})"
    if entry.vlan:
        outside = [v for v in vlans if not entry.carries(v)]
        if outside and own:
            return f"carries vlan {_ranges(outside)} outside the port manifest's {_spans(entry)}"
        return None
    if not rules.tier_declares_vlans(entry.tier):
        return None if all(entry.tier in rules.vlan_tiers(v) for v in vlans) else _UNKNOWN
    outside = [v for v in vlans if entry.tier not in rules.vlan_tiers(v)]
    return f"carries vlan {_ranges(outside)} outside tier {tier}'s VLANs (port manifest)" if outside else None


def _spans(entry: PortAssignment) -> str:
    return "vlan " + ",".join(str(lo) if lo == hi else f"{lo}-{hi}" for lo, hi in entry.vlan)


def _placement(intf: Interface, defined: Sequence[Vlan]) -> tuple[str, list[int], str | None]:
    """(text, VLANs carried, VRF) of one port."""
    if intf.port_channel:
        return f"member of {intf.port_channel}", [], None
    if not intf.enabled:
        return "shut down", [], None
    if intf.type == "vlan" or not intf.switchport:
        return f"{'SVI' if intf.type == 'vlan' else 'routed'}, vrf {intf.vrf}", [], intf.vrf
    if intf.mode == "trunk":
        if intf.trunk_allowed_vlans is None:
            listed = _ranges([v.vlan_id for v in defined]) or "none"
            return f"trunk, all VLANs (defined: {listed})", all_vlans_carried(intf, defined), None
        vlans = [v for lo, hi in intf.trunk_allowed_vlans for v in range(lo, hi + 1)]
        return f"trunk, vlans {_ranges(vlans)}", vlans, None
    vlan = intf.access_vlan or 1
    return f"access vlan {vlan}", [vlan], None


def all_vlans_carried(intf: Interface, defined: Sequence[Vlan]) -> list[int]:
    """The VLANs a trunk with no allowed list carries: those defined on the switch, but not VLAN 1 (only
    its default native VLAN there) and not a VLAN reserved to trunk groups this port is not in (EOS
    `trunk group`: the VLAN's facts list the trunks of its groups that carry it)."""
    return sorted(
        v.vlan_id
        for v in defined
        if v.vlan_id != DEFAULT_VLAN and (not v.trunk_groups or intf.name in v.interfaces)
    )


def _ranges(vids: list[int]) -> str:
    out: list[str] = []
    for vid in sorted(set(vids)):
        if out and int(out[-1].split("-")[-1]) == vid - 1:
            out[-1] = f"{out[-1].split('-')[0]}-{vid}"
        else:
            out.append(str(vid))
    return ",".join(out)


def _natural(name: str) -> list[object]:
    """Ethernet2 before Ethernet10."""
    return [int(p) if p.isdigit() else p for p in re.split(r"(\d+)", name)]
