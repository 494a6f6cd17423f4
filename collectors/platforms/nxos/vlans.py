"""NX-OS VLANs and VXLAN VNIs -> Vlan and VxlanVni facts.

A VLAN exists when a `vlan LIST` line names it (`vlan 1,301-304` or a `vlan N` block with `name`);
`vlan configuration`, `vlan dot1Q ...`, `vlan access-map` and `vlan filter` are other commands.
Membership is what the ports say: access ports by their access VLAN, trunks only by an explicit
allowed list (a trunk that allows every VLAN would make every VLAN list every trunk).

VNIs come from three places that NX-OS ties together by number: `vlan N` / `vn-segment VNI` (an L2
VNI), `vrf context X` / `vni VNI` (an L3 VNI, which NX-OS also backs with a VLAN's vn-segment), and
`interface nve1` / `member vni VNI [associate-vrf]`. One VxlanVni per VNI carries whichever of the
VLAN and VRF the config gives it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from auditor.facts import Interface, Vlan, VxlanVni
from collectors.platforms.nxos.routing import MAX_VNI, VrfState
from collectors.platforms.nxos.tree import Ctx, Node, after_words, canon_ifname, parse_int, parse_vlan_list


@dataclass
class VlanState:
    vlan_id: int
    name: str | None = None
    vni: int | None = None
    vni_line: int = 0


@dataclass
class VniState:
    vni: int
    vlan: int | None = None
    vrf: str | None = None


_NOT_VLAN_LIST = ("configuration", "dot1q", "dot1Q", "access-map", "filter")


def read_vlans(roots: list[Node], ctx: Ctx) -> dict[int, VlanState]:
    """Declared VLANs with their names and vn-segments."""
    vlans: dict[int, VlanState] = {}
    for node in roots:
        w = node.words
        if w[0] != "vlan" or len(w) < 2 or w[1] in _NOT_VLAN_LIST or not w[1][:1].isdigit():
            continue
        ids = parse_vlan_list(after_words(node.text, 1))
        if ids is None:
            ctx.problem(
                node.line, f"VLAN list {after_words(node.text, 1)!r} is not a list of VLAN ids; skipped"
            )
            continue
        for vlan_id in ids:
            state = vlans.setdefault(vlan_id, VlanState(vlan_id=vlan_id))
            for child in node.children:
                cw = child.words
                if cw[0] == "name" and len(cw) >= 2:
                    state.name = after_words(child.text, 1)
                elif cw[0] == "vn-segment" and len(cw) >= 2:
                    vni = parse_int(cw[1], 1, MAX_VNI)
                    if vni is None:
                        ctx.problem(child.line, f"vlan {vlan_id}: vn-segment {cw[1]!r} is not a VNI; skipped")
                    else:
                        state.vni, state.vni_line = vni, child.line
    return vlans


def vlan_facts(vlans: dict[int, VlanState], interfaces: list[Interface], device: str) -> list[Vlan]:
    """One Vlan per declared VLAN, with the ports that carry it."""
    members: dict[int, list[str]] = {v: [] for v in vlans}
    for iface in interfaces:
        if iface.mode == "access" and iface.access_vlan in members:
            members[iface.access_vlan].append(iface.name)
        elif iface.mode == "trunk" and iface.trunk_allowed_vlans is not None:
            for lo, hi in iface.trunk_allowed_vlans:
                for vlan_id in range(lo, hi + 1):
                    if vlan_id in members:
                        members[vlan_id].append(iface.name)
    return [
        Vlan(device=device, vlan_id=v.vlan_id, name=v.name, interfaces=members[v.vlan_id])
        for v in sorted(vlans.values(), key=lambda s: s.vlan_id)
    ]


_MEMBER_VNI = re.compile(r"member vni (\d+)(?:-(\d+))?(?= |$)")


def read_vnis(
    roots: list[Node], vlans: dict[int, VlanState], vrfs: dict[str, VrfState], ctx: Ctx
) -> list[VxlanVni]:
    """One VxlanVni per VNI named by a vn-segment, a VRF `vni` or an NVE `member vni`."""
    vnis: dict[int, VniState] = {}

    def entry(vni: int) -> VniState:
        return vnis.setdefault(vni, VniState(vni=vni))

    for vlan in sorted(vlans.values(), key=lambda s: s.vlan_id):
        if vlan.vni is None:
            continue
        state = entry(vlan.vni)
        if state.vlan is not None and state.vlan != vlan.vlan_id:
            ctx.problem(vlan.vni_line, f"VNI {vlan.vni} is mapped to VLANs {state.vlan} and {vlan.vlan_id}")
        else:
            state.vlan = vlan.vlan_id
    for vrf in vrfs.values():
        if vrf.l3_vni is not None:
            state = entry(vrf.l3_vni)
            if state.vrf is not None and state.vrf != vrf.name:
                ctx.problem(vrf.line, f"VNI {vrf.l3_vni} is the L3 VNI of VRFs {state.vrf} and {vrf.name}")
            else:
                state.vrf = vrf.name
    for node in roots:
        if node.words[0] != "interface" or not canon_ifname(node.words[-1]).startswith("nve"):
            continue
        for child in node.children:
            if child.words[:2] != ["member", "vni"]:
                continue
            m = _MEMBER_VNI.match(child.text)
            lo = parse_int(m.group(1), 1, MAX_VNI) if m else None
            hi = parse_int(m.group(2), 1, MAX_VNI) if m and m.group(2) else lo
            if lo is None or hi is None or hi < lo or hi - lo > 4096:
                ctx.problem(child.line, f"{child.text!r}: not a VNI or VNI range; skipped")
                continue
            for vni in range(lo, hi + 1):
                entry(vni)
    return [
        VxlanVni(device=ctx.device, vni=s.vni, vlan=s.vlan, vrf=s.vrf)
        for s in sorted(vnis.values(), key=lambda s: s.vni)
    ]
