"""Junos configuration (entry "junos.config") -> network facts, from either format Junos prints.

The capture is `show configuration` (curly braces; what the live collector stores) or
`show configuration | display set` (offline files often are). Both are read into one tree
(tree.py); each section has its own reader and an unexpected failure costs that section only. A
capture with no configuration statements at all (an error reply, an empty or garbage file) yields no
facts and covers nothing, so the checks that need it are NOT_ASSESSED.
"""

from __future__ import annotations

from auditor.capture import RawCapture
from auditor.facts import FactRecord
from auditor.facts.network import Acl, AclBinding, BgpNeighbor, Interface, MgmtService, QosInterface, Route
from auditor.normalize import RUNNING_CONFIG_COVERS, NormalizeResult
from collectors.parsing.live_common import context_of, decode_text, device_fact, finish, guard
from collectors.platforms.junos import firewall, interfaces, qos, routing
from collectors.platforms.junos.tree import build

COVERS = RUNNING_CONFIG_COVERS
# A Junos configuration holds at least one of these at its top level.
_TOP = frozenset(
    {
        "system",
        "interfaces",
        "protocols",
        "routing-options",
        "routing-instances",
        "firewall",
        "policy-options",
        "vlans",
        "chassis",
        "security",
        "snmp",
        "class-of-service",
        "version",
    }
)


def normalize_config(capture: RawCapture) -> NormalizeResult:
    """Facts, problems and coverage of one Junos configuration capture. Never raises on bad content."""
    result = NormalizeResult()
    ctx = context_of(capture)
    text = decode_text(capture)
    if not text.strip():
        ctx.problem(None, "empty Junos configuration: nothing to read")
        return finish(result, ctx)
    root = guard(ctx, "the configuration", lambda: build(text, ctx), None)
    if root is None or not (_TOP & root.children.keys()):
        ctx.problem(
            1, "not a Junos configuration: no system, interfaces, protocols or other top-level section"
        )
        return finish(result, ctx)
    result.add(
        device_fact(
            capture,
            ctx,
            "junos",
            hostname=root.value("system", "host-name"),
            os_version=root.value("version"),
        )
    )
    inst = guard(ctx, "routing instances", lambda: routing.read_instances(ctx, root), routing.Instances())
    vlans = guard(ctx, "VLANs", lambda: interfaces.read_vlan_names(ctx, root), interfaces.Vlans())
    intfs: list[Interface] = guard(
        ctx, "interfaces", lambda: interfaces.read_interfaces(ctx, root, inst.vrf_of, vlans), []
    )
    facts: list[FactRecord] = [*intfs, *inst.vrfs]
    facts += guard(ctx, "VLANs", lambda: interfaces.vlan_facts(ctx, root, vlans, intfs), [])
    routes: list[Route] = guard(ctx, "static routes", lambda: routing.read_static_routes(ctx, root, inst), [])
    bgp: list[BgpNeighbor] = guard(ctx, "BGP", lambda: routing.read_bgp(ctx, root, inst), [])
    acls: list[Acl] = guard(ctx, "firewall filters", lambda: firewall.read_acls(ctx, root), [])
    bindings: list[AclBinding] = guard(
        ctx, "filter bindings", lambda: firewall.read_bindings(ctx, root, inst.vrf_of), []
    )
    mgmt: list[MgmtService] = guard(ctx, "system services", lambda: firewall.read_mgmt(ctx, root), [])
    cos: list[QosInterface] = guard(ctx, "class-of-service", lambda: qos.read_qos(ctx, root), [])
    facts += [*routes, *bgp, *acls, *bindings, *mgmt, *cos]
    result.facts.extend(facts)
    result.covers = set(COVERS)
    return finish(result, ctx)
