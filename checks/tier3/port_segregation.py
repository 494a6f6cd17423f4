"""T3-PORT-SEGREGATION: every backend port is in the backend, and no other port is. Also the report's
switch-port segregation manifest: one finding per device listing where each of its ports is placed.

Placement of a port (Ethernet, port-channel, and the SVIs that give VLANs an L3 home):
- routed port or SVI: its VRF;
- access port: its access VLAN (VLAN 1 when none is set);
- trunk: its allowed VLANs (a trunk allowing every VLAN carries the VLANs defined on the switch);
- a port-channel member is placed by its port-channel, a shut-down port carries nothing.
On a backend device every placement must be backend (a backend VRF, a VLAN in
`intent.tiers.backend.vlans`); on any other device none may be (the default VRF aside, which is a
backend VRF only on backend devices). Management ports are out of scope (T1 checks cover them).
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable

from auditor.enums import FactKind, Severity, Tier
from auditor.facts import Interface, Vlan
from auditor.store.reader import StoredFact
from checks.base import Check, CheckContext, CheckMeta, Finding
from checks.tier3._common import Backend, device_targets

NEEDS = frozenset({FactKind.INTERFACE, FactKind.VLAN})
PLACED_TYPES = {"ethernet", "port-channel", "vlan"}


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
            "Move the port into its tier's VRF/VLAN (or shut it down); remove backend VLANs and VRFs from "
            "switches of other tiers."
        ),
    )

    def evaluate(self, ctx: CheckContext) -> Iterable[Finding]:
        backend = Backend.of(ctx)
        if not backend.intent.vlans:
            yield self.not_assessed(
                "backend VLANs", "the intent names no backend VLAN range; declare intent.tiers.backend.vlans"
            )
            return
        ready, gaps = self.split_assessable(ctx, device_targets(ctx), NEEDS)
        yield from gaps
        tiers = {t.name: t.tier for t in ready}
        ports: dict[str, list[StoredFact[Interface]]] = defaultdict(list)
        for i in ctx.facts.of(Interface):
            if i.target in tiers and i.record.type in PLACED_TYPES:
                ports[i.target].append(i)
        defined: dict[str, list[int]] = defaultdict(list)
        for v in ctx.facts.of(Vlan):
            defined[v.target].append(v.record.vlan_id)
        for name in sorted(tiers):
            yield self._device(name, tiers[name] == Tier.BACKEND, ports[name], sorted(defined[name]), backend)

    def _device(
        self,
        name: str,
        is_backend: bool,
        ports: list[StoredFact[Interface]],
        defined: list[int],
        backend: Backend,
    ) -> Finding:
        tier = Tier.BACKEND if is_backend else None
        manifest: list[str] = []
        bad: list[tuple[str, StoredFact[Interface]]] = []
        for p in sorted(ports, key=lambda f: _natural(f.record.name)):
            intf = p.record
            where, vlans, vrf = _placement(intf, defined)
            manifest.append(f"{intf.name}: {where}")
            if where in ("shut down",) or where.startswith("member of"):
                continue
            in_backend = [backend.vlan(v) for v in vlans] + (
                [backend.is_backend_vrf(vrf, tier)] if vrf is not None else []
            )
            if is_backend and not all(in_backend):
                bad.append((f"{intf.name}: {where} is not backend", p))
            elif not is_backend and any(in_backend):
                bad.append((f"{intf.name}: {where} is backend", p))
        expected = f"{'every' if is_backend else 'no'} port in a backend VRF or VLAN"
        listing = "; ".join(manifest) or "no ports in the evidence"
        if bad:
            found = "; ".join(text for text, _ in bad) + f". Manifest: {listing}"
            return self.failed(name, expected, found, *(f for _, f in bad), target=name)
        return self.passed(
            name,
            expected,
            f"manifest: {listing}",
            *ports,
            target=name,
            message="Port segregation manifest: every port placed in its tier",
        )


def _placement(intf: Interface, defined: list[int]) -> tuple[str, list[int], str | None]:
    """(text, VLANs carried, VRF) of one port."""
    if intf.port_channel:
        return f"member of {intf.port_channel}", [], None
    if not intf.enabled:
        return "shut down", [], None
    if intf.type == "vlan" or not intf.switchport:
        return f"{'SVI' if intf.type == 'vlan' else 'routed'}, vrf {intf.vrf}", [], intf.vrf
    if intf.mode == "trunk":
        if intf.trunk_allowed_vlans is None:
            return f"trunk, all VLANs (defined: {_ranges(defined) or 'none'})", defined, None
        vlans = [v for lo, hi in intf.trunk_allowed_vlans for v in range(lo, hi + 1)]
        return f"trunk, vlans {_ranges(vlans)}", vlans, None
    vlan = intf.access_vlan or 1
    return f"access vlan {vlan}", [vlan], None


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
