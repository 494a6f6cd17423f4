"""EOS `vlan N` blocks -> Vlan facts, and `interface Vxlan1` mappings -> VxlanVni facts.

A VLAN's interfaces are the switchports that carry it by explicit configuration: access (and
dot1q-tunnel) ports whose access VLAN it is, and trunks whose allowed list names it. A trunk with no
allowed list carries every VLAN but is not listed on each one (that would say nothing per VLAN).
EOS trunk groups narrow this: a VLAN with `trunk group G` is carried only by trunks in group G
(`switchport trunk group G`), and by each of those unless its allowed list leaves the VLAN out.
"""

from __future__ import annotations

from auditor.facts.network import Interface, Vlan, VxlanVni
from collectors.parsing.config_tree import Config, Context
from collectors.parsing.values import expand_ranges, parse_id_list, parse_id_sequence

MAX_VNI = 16777215


def parse_vlans(ctx: Context, config: Config, interfaces: list[Interface]) -> list[Vlan]:
    """`vlan 10` and list forms (`vlan 10-12,20`) with their name and trunk groups."""
    found: dict[int, tuple[str | None, list[str]]] = {}
    for node, m in config.top(r"vlan ([\d,\-]+)"):
        ranges = parse_id_list(ctx, m.group(1), node.line, "VLAN id")
        if ranges is None:
            continue
        name: str | None = None
        groups: list[str] = []
        for child in node.children:
            if child.text.startswith("name "):
                name = child.after("name")
            elif child.words[:2] == ["trunk", "group"] and len(child.words) == 3:
                groups.append(child.words[2])
        for vlan_id in expand_ranges(ranges):
            found[vlan_id] = (name, groups)
    port_groups = _interface_trunk_groups(config)
    return [
        Vlan(
            device=ctx.device,
            vlan_id=vid,
            name=name,
            trunk_groups=groups,
            interfaces=[
                i.name for i in interfaces if _carries(i, vid, groups, port_groups.get(i.name, set()))
            ],
        )
        for vid, (name, groups) in sorted(found.items())
    ]


def _interface_trunk_groups(config: Config) -> dict[str, set[str]]:
    """`switchport trunk group G` lines per interface (the Interface model has no field for them)."""
    return {
        m.group(1): {
            c.words[3]
            for c in node.children
            if len(c.words) == 4 and c.words[:3] == ["switchport", "trunk", "group"]
        }
        for node, m in config.top(r"interface (\S+)")
    }


def _carries(intf: Interface, vid: int, vlan_groups: list[str], port_groups: set[str]) -> bool:
    if not intf.switchport:
        return False
    if intf.mode == "access":
        return intf.access_vlan == vid
    allowed = intf.trunk_allowed_vlans
    if vlan_groups:
        in_allowed = allowed is None or any(lo <= vid <= hi for lo, hi in allowed)
        return bool(port_groups & set(vlan_groups)) and in_allowed
    return allowed is not None and any(lo <= vid <= hi for lo, hi in allowed)


def parse_vxlan(ctx: Context, config: Config) -> tuple[list[VxlanVni], dict[str, int]]:
    """VNI mappings of every Vxlan interface, and the L3 VNI of each VRF."""
    vnis: list[VxlanVni] = []
    l3: dict[str, int] = {}
    for node, _ in config.top(r"interface [Vv]xlan\S*"):
        for child in node.children:
            w = child.words
            if len(w) == 5 and w[:2] == ["vxlan", "vlan"] and w[3] == "vni":
                vlan_ids = parse_id_sequence(ctx, w[2], child.line, "VXLAN VLAN", 4094)
                vni_ids = parse_id_sequence(ctx, w[4], child.line, "VNI", MAX_VNI)
                if vlan_ids is None or vni_ids is None:
                    continue
                if len(vlan_ids) != len(vni_ids):
                    ctx.problem(child.line, f"{len(vlan_ids)} VLANs mapped to {len(vni_ids)} VNIs")
                    continue
                vnis += [
                    VxlanVni(device=ctx.device, vni=n, vlan=v) for v, n in zip(vlan_ids, vni_ids, strict=True)
                ]
            elif len(w) == 5 and w[:2] == ["vxlan", "vrf"] and w[3] == "vni":
                vni_list = parse_id_sequence(ctx, w[4], child.line, "VNI", MAX_VNI)
                if vni_list and len(vni_list) == 1:
                    vnis.append(VxlanVni(device=ctx.device, vni=vni_list[0], vrf=w[2]))
                    l3[w[2]] = vni_list[0]
                elif vni_list is not None:
                    ctx.problem(child.line, "a VRF maps to exactly one VNI")
    return vnis, l3
