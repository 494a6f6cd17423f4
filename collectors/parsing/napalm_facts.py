"""NAPALM getter results -> facts, one reader per getter (the getters' models are NAPALM's documented
return values; see napalm.base.models).

- get_facts -> Device (hostname, model, os_version).
- get_network_instances -> Vrf (name, rd, interfaces); the DEFAULT_INSTANCE is VRF "default" whatever
  the driver calls it; L2-only instances (L2VSI, L2P2P) are not VRFs and are skipped.
- get_vlans -> Vlan (id, name, member interfaces).
- get_lldp_neighbors -> LldpNeighbor (hostname, port), one per neighbour on a port.
- get_interfaces + get_interfaces_ip + get_network_instances (+ get_vlans) -> Interface: see
  `build_interfaces`; an Interface is a whole record, so it is built only when all three are at hand.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from auditor.facts.network import Interface, LldpNeighbor, Vlan, Vrf
from collectors.parsing.config_tree import Context
from collectors.parsing.live_common import as_int, interface_type, ip_interface, line_of, vlan_ranges

_L3_INSTANCES = ("DEFAULT_INSTANCE", "L3VRF", "L2L3")


@dataclass(frozen=True)
class Source:
    """One getter's result and the text it came in, so a problem can name its line."""

    getter: str
    value: Any
    text: str

    def problem(self, ctx: Context, needle: str, message: str) -> None:
        ctx.problem(line_of(self.text, f'"{needle}"'), f"{self.getter}: {message}")


def _mapping(ctx: Context, src: Source) -> Mapping[str, Any]:
    if isinstance(src.value, dict):
        return src.value
    ctx.problem(None, f"{src.getter}: expected a JSON object, got {type(src.value).__name__}")
    return {}


def read_facts_getter(ctx: Context, src: Source) -> dict[str, str | None]:
    """hostname, model and os_version from get_facts (empty strings are unknowns)."""
    data = _mapping(ctx, src)
    return {
        k: (str(data[k]) if data.get(k) not in (None, "") else None)
        for k in ("hostname", "model", "os_version")
    }


def vrf_name(name: str, entry: Mapping[str, Any]) -> str:
    return "default" if entry.get("type") == "DEFAULT_INSTANCE" else str(entry.get("name") or name)


def read_vrfs(ctx: Context, src: Source) -> list[Vrf]:
    out: list[Vrf] = []
    for name, entry in _mapping(ctx, src).items():
        if not isinstance(entry, dict):
            src.problem(ctx, name, f"instance {name!r} is not an object; skipped")
            continue
        if entry.get("type") not in _L3_INSTANCES:
            continue
        state = entry.get("state") or {}
        rd = state.get("route_distinguisher") if isinstance(state, dict) else None
        members = (entry.get("interfaces") or {}).get("interface") or {}
        out.append(
            Vrf(
                device=ctx.device,
                name=vrf_name(name, entry),
                rd=str(rd) if rd else None,
                interfaces=sorted(members) if isinstance(members, dict) else [],
            )
        )
    return out


def vrf_membership(ctx: Context, src: Source) -> dict[str, str]:
    """interface -> VRF name, from get_network_instances (L3 instances only)."""
    out: dict[str, str] = {}
    for vrf in read_vrfs(Context(ctx.device, ctx.origin), src):  # problems are reported by read_vrfs
        for name in vrf.interfaces:
            out.setdefault(name, vrf.name)
    return out


def read_vlans(ctx: Context, src: Source) -> list[Vlan]:
    out: list[Vlan] = []
    for key, entry in _mapping(ctx, src).items():
        vid = as_int(key)
        if vid is None or not 1 <= vid <= 4094 or not isinstance(entry, dict):
            src.problem(ctx, key, f"cannot read VLAN {key!r}; skipped")
            continue
        members = entry.get("interfaces") or []
        out.append(
            Vlan(
                device=ctx.device,
                vlan_id=vid,
                name=str(entry["name"]) if entry.get("name") else None,
                interfaces=sorted(str(m) for m in members) if isinstance(members, list) else [],
            )
        )
    return out


def read_lldp(ctx: Context, src: Source) -> list[LldpNeighbor]:
    out: list[LldpNeighbor] = []
    for port, neighbors in _mapping(ctx, src).items():
        if not isinstance(neighbors, list):
            src.problem(ctx, port, f"neighbours of {port} are not a list; skipped")
            continue
        for n in neighbors:
            if not isinstance(n, dict) or not n.get("hostname"):
                src.problem(ctx, port, f"a neighbour of {port} has no hostname; skipped")
                continue
            out.append(
                LldpNeighbor(
                    device=ctx.device,
                    interface=port,
                    neighbor=str(n["hostname"]),
                    neighbor_interface=str(n["port"]) if n.get("port") else None,
                )
            )
    return out


def _addresses(ctx: Context, src: Source, name: str, family: str, entry: Mapping[str, Any]) -> list[str]:
    out: list[str] = []
    table = entry.get(family) or {}
    if not isinstance(table, dict):
        return out
    for addr, spec in table.items():
        length = spec.get("prefix_length") if isinstance(spec, dict) else None
        value = ip_interface(str(addr), length) if length is not None else None
        if value is None:
            src.problem(ctx, addr, f"{name}: cannot read {family} address {addr!r} with {spec!r}; skipped")
            continue
        out.append(value)
    return out


def _speed(value: object) -> int | None:
    """NAPALM's speed is Mb/s as a float; 0 or -1 mean unknown."""
    if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
        return None
    return round(value)


def build_interfaces(
    ctx: Context, interfaces: Source, addresses: Source, instances: Source, vlans: Source | None
) -> list[Interface]:
    """Whole Interface records from the getters that each carry part of one.

    get_interfaces: enabled (is_enabled), description, mtu, speed. get_interfaces_ip: addresses (an
    interface that only has addresses is still reported). get_network_instances: the VRF (interfaces in
    no L3 instance are in "default"). get_vlans, when present: member ports are switchports, a port in
    more than one VLAN is a trunk allowing those VLANs; a port in one VLAN may be access or trunk, so its
    mode stays unknown (None).
    """
    link = _mapping(ctx, interfaces)
    ips = _mapping(ctx, addresses)
    member_of = vrf_membership(ctx, instances)
    port_vlans: dict[str, set[int]] = {}
    for vlan in read_vlans(Context(ctx.device, ctx.origin), vlans) if vlans else []:
        for port in vlan.interfaces:
            port_vlans.setdefault(port, set()).add(vlan.vlan_id)
    out: list[Interface] = []
    for name in dict.fromkeys([*link, *ips]):
        state = link.get(name, {})
        if not isinstance(state, dict):
            interfaces.problem(ctx, name, f"{name} is not an object; skipped")
            continue
        ip_entry = ips.get(name, {}) if isinstance(ips.get(name), dict) else {}
        in_vlans = port_vlans.get(name, set())
        trunk = len(in_vlans) > 1
        description = state.get("description")
        out.append(
            Interface(
                device=ctx.device,
                name=name,
                type=interface_type(name),
                description=str(description) if description else None,
                vrf=member_of.get(name, "default"),
                enabled=bool(state.get("is_enabled", True)),
                switchport=bool(in_vlans),
                mode="trunk" if trunk else None,
                trunk_allowed_vlans=vlan_ranges(in_vlans) if trunk else None,
                mtu=as_int(state.get("mtu")) or None,
                speed_mbps=_speed(state.get("speed")),
                ipv4=_addresses(ctx, addresses, name, "ipv4", ip_entry),
                ipv6=_addresses(ctx, addresses, name, "ipv6", ip_entry),
            )
        )
    return out
