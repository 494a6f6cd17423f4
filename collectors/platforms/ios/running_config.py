"""Cisco IOS / IOS-XE `show running-config` -> network facts (entry point "ios.running-config").

A pure function of the capture. Sections are read by config.py (interfaces, VRFs, VLANs, static
routes, BGP) and mgmt.py (ACLs, VTY/SNMP/HTTP); an unexpected failure costs its section only.
QoS (MQC policy-maps) and VXLAN are not read, so those kinds are not covered.
"""

from __future__ import annotations

import re

from auditor.capture import RawCapture
from auditor.enums import FactKind
from auditor.facts import FactRecord
from auditor.facts.network import Acl, AclBinding, BgpNeighbor, Interface, MgmtService, Route, Vlan, Vrf
from auditor.normalize import NormalizeResult
from collectors.parsing.config_tree import parse_tree
from collectors.parsing.live_common import context_of, decode_text, device_fact, finish, guard
from collectors.platforms.ios.config import (
    Interfaces,
    read_bgp,
    read_interfaces,
    read_static_routes,
    read_vlans,
    read_vrfs,
)
from collectors.platforms.ios.mgmt import read_acls, read_management

COVERS = frozenset(
    {
        FactKind.DEVICE,
        FactKind.INTERFACE,
        FactKind.VRF,
        FactKind.VLAN,
        FactKind.ROUTE,
        FactKind.BGP_NEIGHBOR,
        FactKind.ACL,
        FactKind.ACL_BINDING,
        FactKind.MGMT_SERVICE,
    }
)
_NEWLINE = re.compile(r"\r\n|\n|\r")


def normalize_running_config(capture: RawCapture) -> NormalizeResult:
    """Facts, problems and coverage of one IOS running-config. Never raises on bad content."""
    result = NormalizeResult()
    ctx = context_of(capture)
    lines = _NEWLINE.split(decode_text(capture))
    last = max((i for i, text in enumerate(lines, 1) if text.strip()), default=0)
    if last == 0:
        ctx.problem(None, "empty running-config: nothing to read")
        return finish(result, ctx)
    if lines[last - 1].strip() != "end":
        ctx.problem(last, "config ends without 'end': truncated?")
    try:
        config = parse_tree(lines)
    except Exception as exc:  # the library failing must not lose the problems
        ctx.problem(None, f"cannot parse the config hierarchy: {exc}")
        return finish(result, ctx)
    hostname = next((m.group(1) for _, m in config.top(r"hostname (\S+)")), None)
    version = next((m.group(1) for _, m in config.top(r"version (\S+)")), None)
    result.add(device_fact(capture, ctx, "ios", hostname=hostname, os_version=version))
    ifs: Interfaces = guard(ctx, "interfaces", lambda: read_interfaces(ctx, config), Interfaces())
    vrfs: list[Vrf] = guard(ctx, "VRFs", lambda: read_vrfs(ctx, config, ifs.interfaces), [])
    vlans: list[Vlan] = guard(ctx, "VLANs", lambda: read_vlans(ctx, config, ifs.interfaces), [])
    routes: list[Route] = guard(ctx, "static routes", lambda: read_static_routes(ctx, config), [])
    bgp: list[BgpNeighbor] = guard(ctx, "router bgp", lambda: read_bgp(ctx, config), [])
    acls: list[Acl] = guard(ctx, "ACLs", lambda: read_acls(ctx, config), [])
    mgmt: tuple[list[MgmtService], list[AclBinding]] = guard(
        ctx, "management", lambda: read_management(ctx, config), (list[MgmtService](), list[AclBinding]())
    )
    interfaces: list[Interface] = ifs.interfaces
    facts: list[FactRecord] = [*interfaces, *vrfs, *vlans, *routes, *bgp, *acls]
    facts += [*ifs.bindings, *mgmt[1], *mgmt[0]]
    result.facts.extend(facts)
    result.covers = set(COVERS)
    return finish(result, ctx)
