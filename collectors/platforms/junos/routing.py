"""Junos routing instances, static routes and BGP -> Vrf, Route, BgpNeighbor facts.

- A routing instance of `instance-type vrf` or `virtual-router` is a VRF (virtual-switch, evpn, l2vpn
  and forwarding instances are not). Route targets: `vrf-target X` imports and exports X;
  `vrf-target import|export X` one way; `vrf-import` / `vrf-export` policies contribute the
  communities they match (`from community C`) or add (`then community add|set C`), resolved through
  `policy-options community C members target:...`. The RD is `route-distinguisher`; the L3 VNI is
  `protocols evpn ip-prefix-routes vni`.
- `system management-instance` puts the management port (fxp0/em0/re0:mgmt-0) in the `mgmt_junos`
  instance, which is a VRF of its own with its own `routing-instances mgmt_junos` routes.
- Static routes: `routing-options static route P next-hop X|qualified-next-hop X|discard|reject`,
  per instance under `routing-instances R routing-options`; `preference` is the distance.
- BGP: `protocols bgp group G neighbor N`. A neighbour's `peer-as` wins over its group's; an
  internal group (`type internal`) peers with the local AS (`local-as`, else
  `routing-options autonomous-system`). A group's `description` passes to neighbours without one.
  `local-address` (the update source), `import`/`export` policy lists and `disable` are inherited from
  the nearest level that sets them (neighbour, group, `protocols bgp`); a lower level replaces, never
  merges, its parent's list.
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass, field

from auditor.facts.network import BgpNeighbor, Route, Vrf
from collectors.parsing.config_tree import Context
from collectors.platforms.junos.interfaces import canonical
from collectors.platforms.junos.tree import Node

MGMT_INSTANCE = "mgmt_junos"
_VRF_TYPES = frozenset({"vrf", "virtual-router"})
_MGMT_PORTS = ("fxp0", "em0", "re0:mgmt-0", "re1:mgmt-0")


@dataclass
class Instances:
    vrfs: list[Vrf] = field(default_factory=list)
    vrf_of: dict[str, str] = field(default_factory=dict)  # interface (IFD or unit) -> VRF
    nodes: dict[str, Node] = field(default_factory=dict)  # VRF name -> its routing-instances node


def _unit_names(name: str) -> list[str]:
    """A routing instance lists units (`xe-0/0/1.0`); a bare IFD means unit 0."""
    names = [name] if "." in name else [name, f"{name}.0"]
    return [*names, canonical(name)]


def read_instances(ctx: Context, root: Node) -> Instances:
    out = Instances()
    communities = {name: node.values("members") for name, node in root.items("policy-options", "community")}
    for name, node in root.items("routing-instances"):
        if node.value("instance-type") not in _VRF_TYPES and name != MGMT_INSTANCE:
            continue
        interfaces = [i for i, _ in node.items("interface")]
        for intf in interfaces:
            for unit in _unit_names(intf):
                out.vrf_of[unit] = name
        imports, exports = _targets(root, node, communities)
        out.nodes[name] = node
        out.vrfs.append(
            Vrf(
                device=ctx.device,
                name=name,
                rd=node.value("route-distinguisher"),
                route_targets_import=imports,
                route_targets_export=exports,
                ip_routing=True,
                l3_vni=_int(node.value("protocols", "evpn", "ip-prefix-routes", "vni")),
                leaks=[f"vrf-import {p}" for p in node.values("vrf-import")]
                + [f"vrf-export {p}" for p in node.values("vrf-export")],
                interfaces=sorted({canonical(i) for i in interfaces}),
            )
        )
    if root.has("system", "management-instance"):
        ports = [p for p in _MGMT_PORTS if "." not in p and root.has("interfaces", p)]
        for port in ports:
            for unit in _unit_names(port):
                out.vrf_of[unit] = MGMT_INSTANCE
        mgmt = Vrf(device=ctx.device, name=MGMT_INSTANCE, ip_routing=True, interfaces=ports)
        out.vrfs = [v for v in out.vrfs if v.name != MGMT_INSTANCE] + [mgmt]
        out.nodes[MGMT_INSTANCE] = root.get("routing-instances", MGMT_INSTANCE) or Node()
    return out


def _targets(root: Node, node: Node, communities: dict[str, list[str]]) -> tuple[list[str], list[str]]:
    imports: set[str] = set()
    exports: set[str] = set()
    both = [v for v in node.values("vrf-target") if v not in ("import", "export", "auto")]
    imports.update(both)
    exports.update(both)
    imports.update(node.values("vrf-target", "import"))
    exports.update(node.values("vrf-target", "export"))
    for policy in node.values("vrf-import"):
        for name in _policy_communities(root, policy, ("from", "community")):
            imports.update(m for m in communities.get(name, []) if m.startswith("target:"))
    for policy in node.values("vrf-export"):
        for verb in ("add", "set"):
            for name in _policy_communities(root, policy, ("then", "community", verb)):
                exports.update(m for m in communities.get(name, []) if m.startswith("target:"))
    return sorted(imports), sorted(exports)


def _policy_communities(root: Node, policy: str, path: tuple[str, ...]) -> list[str]:
    statement = root.get("policy-options", "policy-statement", policy)
    if statement is None:
        return []
    found = statement.values(*path)
    for _, term in statement.items("term"):
        found += term.values(*path)
    return found


def read_static_routes(ctx: Context, root: Node, instances: Instances) -> list[Route]:
    out = _static(ctx, root.get("routing-options"), "default")
    for vrf, node in instances.nodes.items():
        out += _static(ctx, node.get("routing-options"), vrf)
    return out


def _static(ctx: Context, options: Node | None, vrf: str) -> list[Route]:
    if options is None:
        return []
    out: list[Route] = []
    static = options.get("static")
    if static is None:
        return out
    default_pref = _int(static.value("defaults", "preference"))
    for prefix, route in static.items("route"):
        try:
            network = str(ipaddress.ip_network(prefix, strict=False))
        except ValueError:
            ctx.problem(route.line, f"static route {prefix!r} is not a prefix")
            continue
        distance = _int(route.value("preference")) or default_pref or 5  # Junos static default: 5
        hops = [*route.values("next-hop"), *route.values("qualified-next-hop")]
        if not hops and (route.has("discard") or route.has("reject")):
            # a discard route, named as EOS and IOS name theirs
            out.append(
                Route(device=ctx.device, vrf=vrf, prefix=network, interface="Null0", distance=distance)
            )
        for hop in hops:
            address, interface = (hop, None) if _is_ip(hop) else (None, hop)
            if hop == "next-table" or hop.endswith(".inet.0"):
                address, interface = None, None
            out.append(
                Route(
                    device=ctx.device,
                    vrf=vrf,
                    prefix=network,
                    next_hop=address,
                    interface=interface,
                    distance=distance,
                )
            )
        if route.has("next-table"):
            table = route.value("next-table") or ""
            out.append(
                Route(device=ctx.device, vrf=vrf, prefix=network, next_hop=None, name=f"next-table {table}")
            )
    return out


def read_bgp(ctx: Context, root: Node, instances: Instances) -> list[BgpNeighbor]:
    global_as = root.value("routing-options", "autonomous-system")
    out = _bgp(ctx, root.get("protocols", "bgp"), "default", global_as)
    for vrf, node in instances.nodes.items():
        local = node.value("routing-options", "autonomous-system") or global_as
        out += _bgp(ctx, node.get("protocols", "bgp"), vrf, local)
    return out


def _bgp(ctx: Context, bgp: Node | None, vrf: str, local_as: str | None) -> list[BgpNeighbor]:
    if bgp is None:
        return []
    bgp_local = bgp.value("local-as") or local_as
    out: list[BgpNeighbor] = []
    for group_name, group in bgp.items("group"):
        group_local = group.value("local-as") or bgp_local
        internal = (group.value("type") or bgp.value("type")) == "internal"
        group_as = group.value("peer-as") or bgp.value("peer-as") or (group_local if internal else None)
        inherited = _Session.of(group, _Session.of(bgp, _Session()))
        for peer, neighbor in group.items("neighbor"):
            remote = neighbor.value("peer-as") or group_as
            if remote is None and internal:
                remote = neighbor.value("local-as") or group_local
            own = _Session.of(neighbor, inherited)
            out.append(
                BgpNeighbor(
                    device=ctx.device,
                    vrf=vrf,
                    peer=peer,
                    remote_as=remote,
                    peer_group=group_name,
                    description=neighbor.value("description") or group.value("description"),
                    shutdown=own.disabled,
                    update_source=own.local_address,
                    import_policies=own.imports,
                    export_policies=own.exports,
                )
            )
        for prefix, _ in group.items("allow"):  # dynamic neighbours: any peer in the prefix
            out.append(
                BgpNeighbor(
                    device=ctx.device,
                    vrf=vrf,
                    peer=prefix,
                    remote_as=group_as,
                    peer_group=group_name,
                    shutdown=inherited.disabled,
                    update_source=inherited.local_address,
                    import_policies=inherited.imports,
                    export_policies=inherited.exports,
                )
            )
    return out


@dataclass(frozen=True)
class _Session:
    """What a BGP level (protocol, group, neighbour) sets for its sessions. Junos inherits each statement
    from the nearest level that has it: a neighbour's `export [ A B ]` replaces its group's, it does not
    add to it (Junos "BGP Configuration Overview": more specific statements override)."""

    local_address: str | None = None
    imports: list[str] = field(default_factory=list)
    exports: list[str] = field(default_factory=list)
    disabled: bool = False

    @classmethod
    def of(cls, node: Node, parent: _Session) -> _Session:
        return cls(
            local_address=node.value("local-address") or parent.local_address,
            imports=node.values("import") or parent.imports,
            exports=node.values("export") or parent.exports,
            disabled=node.has("disable") or parent.disabled,
        )


def _is_ip(word: str) -> bool:
    try:
        ipaddress.ip_address(word)
    except ValueError:
        return False
    return True


def _int(word: str | None) -> int | None:
    return int(word) if word is not None and word.isdigit() else None
