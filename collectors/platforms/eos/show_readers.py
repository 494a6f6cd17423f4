"""Readers of EOS `show ... | json` outputs (eAPI's structured output), one per command family.

- show ip route vrf all: {"vrfs": {VRF: {"routes": {PREFIX: {"routeType", "preference", "vias":
  [{"nexthopAddr" | "vtepAddr", "interface"}]}}}}} -> one Route per distinct via (a route without vias:
  one Route, no hop; an EVPN route's next hop is the remote VTEP).
- show ip access-lists: {"aclList": [{"name", "standard", "sequence": [{"sequenceNumber", "text"}]}]}
  -> Acl; each entry's text is read by the running-config ACL reader (collectors.parsing.acl), so a
  live and an offline audit word the same entry the same way.
- show ip access-lists summary: {"aclList": [{"name", "configuredIngressIntfs": [{"name"}],
  "configuredEgressIntfs": [...]}]} -> AclBinding.
- show vxlan vni: {"vxlanIntfs": {"Vxlan1": {"vniBindings": {VNI: {"vlan"}}, "vniBindingsToVrf":
  {VNI: {"vrfName"}}}}} and show interfaces vxlan 1: {"interfaces": {"Vxlan1": {"vlanToVniMap":
  {VLAN: {"vni"}}, "vrfToVniMap": {VRF: VNI}}}} -> VxlanVni.
- show priority-flow-control: see `read_pfc`.
"""

from __future__ import annotations

from typing import Any, Literal

from auditor.facts import FactRecord
from auditor.facts.network import AclBinding, QosInterface, Route, VxlanVni
from collectors.parsing.acl import parse_acls
from collectors.parsing.config_tree import Config, Context, Node
from collectors.parsing.live_common import as_int, ip_network
from collectors.parsing.show_common import route_protocol


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def read_routes(ctx: Context, doc: Any) -> list[FactRecord]:
    out: list[FactRecord] = []
    for vrf, body in _dict(_dict(doc).get("vrfs")).items():
        for raw_prefix, route in _dict(_dict(body).get("routes")).items():
            prefix = ip_network(raw_prefix)
            if prefix is None or not isinstance(route, dict):
                ctx.problem(None, f"vrf {vrf}: cannot read route {raw_prefix!r}; skipped")
                continue
            protocol = route_protocol(str(route.get("routeType", "unknown")))
            vias = [v for v in route.get("vias") or [] if isinstance(v, dict)] or [{}]
            for via in vias:
                hop = via.get("nexthopAddr") or via.get("vtepAddr")  # an EVPN route's hop is a VTEP
                fact = Route(
                    device=ctx.device,
                    vrf=vrf,
                    prefix=prefix,
                    protocol=protocol,
                    next_hop=str(hop) if hop else None,
                    interface=str(via["interface"]) if via.get("interface") else None,
                    distance=as_int(route.get("preference")),
                )
                if fact not in out:  # ECMP vias that differ only in fields the fact does not carry
                    out.append(fact)
    return out


def _acl_family(ctx: Context, doc: Any, family: str) -> list[FactRecord]:
    nodes: list[Node] = []
    for i, acl in enumerate(_dict(doc).get("aclList") or [], 1):
        if not isinstance(acl, dict) or not acl.get("name"):
            ctx.problem(None, f"aclList item {i} has no name; skipped")
            continue
        children = tuple(
            Node(text=f"{e.get('sequenceNumber', '')} {e.get('text', '')}".strip(), line=0)
            for e in acl.get("sequence") or []
            if isinstance(e, dict) and e.get("text")
        )
        kind = "standard " if acl.get("standard") else ""
        nodes.append(Node(text=f"{family} access-list {kind}{acl['name']}", line=0, children=children))
    return list(parse_acls(ctx, Config(nodes=tuple(nodes))))


def read_acls(ctx: Context, doc: Any) -> list[FactRecord]:
    return _acl_family(ctx, doc, "ip")


def read_ipv6_acls(ctx: Context, doc: Any) -> list[FactRecord]:
    return _acl_family(ctx, doc, "ipv6")


def _intf_names(value: Any) -> list[str]:
    out = []
    for item in value or []:
        name = item.get("name") if isinstance(item, dict) else item
        if name:
            out.append(str(name))
    return out


def read_acl_summary(ctx: Context, doc: Any) -> list[FactRecord]:
    out: list[FactRecord] = []
    for acl in _dict(doc).get("aclList") or []:
        if not isinstance(acl, dict) or not acl.get("name"):
            continue
        pairs: tuple[tuple[str, Literal["in", "out"]], ...] = (
            ("configuredIngressIntfs", "in"),
            ("configuredEgressIntfs", "out"),
        )
        for key, direction in pairs:
            for name in _intf_names(acl.get(key)):
                control = name.lower().startswith("control")
                out.append(
                    AclBinding(
                        device=ctx.device,
                        acl=str(acl["name"]),
                        attach_point="control-plane" if control else "interface",
                        name="control-plane" if control else name,
                        direction=direction,
                    )
                )
    return out


def read_vxlan_vni(ctx: Context, doc: Any) -> list[FactRecord]:
    out: list[FactRecord] = []
    for body in _dict(_dict(doc).get("vxlanIntfs")).values():
        for vni, binding in _dict(_dict(body).get("vniBindings")).items():
            out += _vni(ctx, vni, vlan=as_int(_dict(binding).get("vlan")))
        for vni, binding in _dict(_dict(body).get("vniBindingsToVrf")).items():
            out += _vni(ctx, vni, vrf=str(_dict(binding).get("vrfName") or "") or None)
    return out


def read_vxlan_interface(ctx: Context, doc: Any) -> list[FactRecord]:
    out: list[FactRecord] = []
    for body in _dict(_dict(doc).get("interfaces")).values():
        for vlan, entry in _dict(_dict(body).get("vlanToVniMap")).items():
            vni = entry.get("vni") if isinstance(entry, dict) else entry
            out += _vni(ctx, vni, vlan=as_int(vlan))
        for vrf, entry in _dict(_dict(body).get("vrfToVniMap")).items():
            vni = entry.get("vni") if isinstance(entry, dict) else entry
            out += _vni(ctx, vni, vrf=vrf)
    return out


def _vni(ctx: Context, raw: Any, vlan: int | None = None, vrf: str | None = None) -> list[FactRecord]:
    vni = as_int(raw)
    if vni is None or (vlan is None and vrf is None):
        ctx.problem(None, f"cannot read VNI binding {raw!r}; skipped")
        return []
    return [VxlanVni(device=ctx.device, vni=vni, vlan=vlan, vrf=vrf)]


_ENABLED_KEYS = ("pfcEnabled", "portEnabled", "enabled")
_PRIORITY_KEYS = ("priorities", "enabledPriorities", "noDropPriorities")
_WATCHDOG_KEYS = ("watchdogEnabled", "watchdog")


def read_pfc(ctx: Context, doc: Any) -> list[FactRecord]:
    """`show priority-flow-control` per port: enabled, no-drop priorities, watchdog.

    Arista publishes no schema for this output and no public capture exists, so the reader accepts the
    field names below (interfaceStatuses|interfaces -> PORT -> pfcEnabled|portEnabled|enabled,
    priorities|enabledPriorities|noDropPriorities as a list or a {priority: bool} map,
    watchdogEnabled|watchdog) and reports a port carrying none of them instead of guessing "off".
    Only the PFC fields are filled: ECN and trust are not in this output (None/empty = not shown).
    """
    body = _dict(doc)
    ports = _dict(body.get("interfaceStatuses") or body.get("interfaces"))
    out: list[FactRecord] = []
    for name, raw_entry in ports.items():
        entry = _dict(raw_entry)
        enabled = next((entry[k] for k in _ENABLED_KEYS if isinstance(entry.get(k), bool)), None)
        raw = next((entry[k] for k in _PRIORITY_KEYS if k in entry), None)
        if enabled is None and raw is None:
            ctx.problem(None, f"priority-flow-control: no PFC state for {name} in a known field; skipped")
            continue
        priorities = _priorities(raw)
        watchdog = next((entry[k] for k in _WATCHDOG_KEYS if k in entry), None)
        if isinstance(watchdog, dict):
            watchdog = watchdog.get("enabled")
        out.append(
            QosInterface(
                device=ctx.device,
                interface=name,
                pfc_enabled=enabled if enabled is not None else bool(priorities),
                pfc_no_drop_priorities=priorities,
                pfc_watchdog=watchdog if isinstance(watchdog, bool) else None,
            )
        )
    return out


def _priorities(raw: Any) -> list[int]:
    if isinstance(raw, dict):
        picked = [k for k, v in raw.items() if v is True or (isinstance(v, dict) and v.get("enabled", True))]
    elif isinstance(raw, list):
        picked = raw
    else:
        return []
    return sorted({p for p in (as_int(x) for x in picked) if p is not None and 0 <= p <= 7})
