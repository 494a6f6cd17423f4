"""Cisco NX-OS `show running-config` -> network facts (entry point "nxos.running-config").

A pure function of the capture: the same bytes and meta always give the same facts. Each section is
read on its own, so a value that cannot be read costs that element (reported as a Problem with its
line) and an unexpected failure costs that section, never the capture.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TypeVar

from auditor.capture import RawCapture
from auditor.enums import Tier
from auditor.facts import AclBinding, BgpNeighbor, Device, FactRecord, Interface, MgmtService, Route, Vrf
from auditor.normalize import RUNNING_CONFIG_COVERS, NormalizeResult
from collectors.platforms.nxos.acl import read_acls
from collectors.platforms.nxos.interfaces import (
    IfState,
    read_interfaces,
    read_switch_defaults,
    to_bindings,
    to_interface,
)
from collectors.platforms.nxos.mgmt import read_mgmt
from collectors.platforms.nxos.qos import QosConfig, read_qos, to_qos
from collectors.platforms.nxos.routing import VrfState, read_bgp, read_vrfs
from collectors.platforms.nxos.tree import Ctx, Node, is_comment, parse_tree
from collectors.platforms.nxos.vlans import VlanState, read_vlans, read_vnis, vlan_facts

COVERS = RUNNING_CONFIG_COVERS
T = TypeVar("T")


def normalize_running_config(capture: RawCapture) -> NormalizeResult:
    """Facts, problems and coverage of one NX-OS `show running-config` capture."""
    result = NormalizeResult()
    device = capture.meta.get("device") or capture.target
    ctx = Ctx(origin=capture.origin, device=device)
    text = capture.content.decode("utf-8", errors="replace")
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    if not text.strip():
        # Nothing was read, so nothing is covered: a check must say NOT_ASSESSED, not PASS.
        ctx.problem(None, "the running-config capture is empty", hint="re-collect `show running-config`")
        result.problems = ctx.problems
        return result
    try:
        roots = parse_tree(lines)
    except Exception as exc:  # the library failing must not lose the capture's other evidence
        ctx.problem(None, f"the running-config could not be split into blocks: {exc}")
        result.problems = ctx.problems
        return result
    if not roots:
        ctx.problem(None, "the capture holds only comments: no configuration was read")
        result.problems = ctx.problems
        return result
    result.covers = set(COVERS)
    _check_complete(lines, roots, ctx)
    _read_all(roots, capture, ctx, result)
    # in file order, whole-capture problems first, so a reader fixes them top to bottom
    result.problems = sorted(ctx.problems, key=lambda p: (p.line is not None, p.line or 0))
    return result


def _guard(ctx: Ctx, section: str, default: T, fn: Callable[[], T]) -> T:
    """Run one section; an unexpected error becomes a Problem and the other sections still run."""
    try:
        return fn()
    except Exception as exc:
        ctx.problem(None, f"{section}: could not be read ({type(exc).__name__}: {exc}); section skipped")
        return default


def _read_all(roots: list[Node], capture: RawCapture, ctx: Ctx, result: NormalizeResult) -> None:
    """Every section, in the order the fact kinds depend on each other (ports before VLANs and VRFs)."""
    result.add(_device(roots, capture, ctx))
    defaults = read_switch_defaults(roots)
    states: dict[str, IfState] = _guard(ctx, "interfaces", {}, lambda: read_interfaces(roots, ctx))
    interfaces: list[Interface] = []
    bindings: list[AclBinding] = []
    for state in states.values():
        try:
            iface = to_interface(state, ctx.device, defaults)
        except Exception as exc:  # one odd interface must not cost the others
            ctx.problem(state.line, f"interface {state.name}: could not be read ({exc}); skipped")
            continue
        interfaces.append(iface)
        bindings.extend(to_bindings(state, iface))
    routes: list[Route] = []
    vrfs = _guard(ctx, "vrfs", {"default": VrfState("default", 0)}, lambda: read_vrfs(roots, ctx, routes))
    neighbors: list[BgpNeighbor] = _guard(ctx, "router bgp", [], lambda: read_bgp(roots, ctx, vrfs))
    vlans: dict[int, VlanState] = _guard(ctx, "vlans", {}, lambda: read_vlans(roots, ctx))
    no_mgmt: tuple[list[MgmtService], list[AclBinding]] = ([], [])
    services, mgmt_bindings = _guard(ctx, "management services", no_mgmt, lambda: read_mgmt(roots, ctx))
    qos = _guard(ctx, "qos", QosConfig(), lambda: read_qos(roots))
    facts: list[FactRecord] = [*interfaces]
    facts += [_vrf(v, interfaces, ctx.device) for v in vrfs.values()]
    facts += _guard(ctx, "vlans", [], lambda: vlan_facts(vlans, interfaces, ctx.device))
    facts += _guard(ctx, "vxlan", [], lambda: read_vnis(roots, vlans, vrfs, ctx))
    facts += routes
    facts += neighbors
    facts += _guard(ctx, "access-lists", [], lambda: read_acls(roots, ctx))
    facts += bindings
    facts += mgmt_bindings
    facts += services
    facts += [to_qos(s, qos, ctx.device) for s in states.values() if s.has_qos]
    for fact in facts:
        result.add(fact)


def _device(roots: list[Node], capture: RawCapture, ctx: Ctx) -> Device:
    """`hostname`/`switchname` and `version` from the config; tier and role from the capture meta."""
    hostname = version = None
    for node in roots:
        if node.words[0] in ("hostname", "switchname") and len(node.words) >= 2:
            hostname = node.words[1]
        elif node.words[0] == "version" and len(node.words) >= 2:
            version = node.words[1]
    tier: Tier | None = None
    if capture.meta.get("tier"):
        try:
            tier = Tier(capture.meta["tier"])
        except ValueError:
            ctx.problem(None, f"meta tier {capture.meta['tier']!r} is not one of {[t.value for t in Tier]}")
    return Device(
        device=ctx.device,
        hostname=hostname or ctx.device,
        platform="nxos",
        tier=tier,
        role=capture.meta.get("role") or None,
        os_version=version,
    )


def _vrf(v: VrfState, interfaces: list[Interface], device: str) -> Vrf:
    """A VRF's interfaces are its routed ports; switchports and the NVE belong to no VRF."""
    members = [i.name for i in interfaces if i.vrf == v.name and not i.switchport and i.type != "vxlan"]
    return Vrf(
        device=device,
        name=v.name,
        rd=v.rd,
        route_targets_import=v.rt_import,
        route_targets_export=v.rt_export,
        ip_routing=True,  # NX-OS has no per-VRF routing switch: every VRF routes
        l3_vni=v.l3_vni,
        leaks=v.leaks,
        bgp_networks=v.bgp_networks,
        bgp_redistribute=v.bgp_redistribute,
        interfaces=members,
    )


# --- is the capture whole? ---------------------------------------------------------------------------


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


# Commands that cannot end without a value: a last line that is one of these was cut short.
_NEEDS_VALUE = re.compile(
    r"^(?:ip|ipv6|no|interface|hostname|version|description|vlan|rd|vni|name|mtu|speed|feature|neighbor"
    r"|remote-as|vn-segment|channel-group|access-class|permit|deny|remark|\d+ permit|\d+ deny|\d+ remark"
    r"|ip address|ipv6 address|vrf|vrf member|vrf context|router|router bgp|ip route|ipv6 route"
    r"|ip access-list|ipv6 access-list|switchport mode|switchport access vlan|switchport trunk"
    r"|switchport trunk (?:allowed|native) vlan|switchport trunk allowed vlan (?:add|remove|except)"
    r"|route-target|route-target (?:import|export|both)|member vni|inherit peer|address-family"
    r"|service-policy|service-policy type \S+|service-policy type \S+ (?:input|output)|class|class type \S+"
    r"|policy-map|class-map|policy-map type \S+|class-map type \S+|pause pfc-cos|priority-flow-control"
    r"|priority-flow-control mode|snmp-server|snmp-server community|snmp-server user|nxapi use-vrf)$"
)
# Keywords whose strict prefixes ('shut', 'switchp', 'addr') only appear in a cut-off last line.
_KEYWORDS = _words(
    "shutdown switchport address access-group access-class address-family unicast interface description"
    " member trunk allowed native access mode vlan route-target import export both evpn remote-as"
    " default-originate priority-flow-control service-policy input output queuing network-qos permit deny"
    " redistribute network neighbor template inherit peer context channel-group active passive feature"
    " hostname version router ipv4 ipv6 multicast secondary route-map prefix-list vrf vn-segment"
    " associate-vrf ingress-replication host-reachability source-interface in out"
)
# Words after which the next word is a user-chosen name, which may look like a keyword's prefix.
_TAKES_NAME = _words(
    "member context access-group access-class input output peer map route-map class policy-map class-map"
    " vrf use-vrf group community user use-acl use-ipv4acl use-ipv6acl access-list peer-policy"
)
_FREE_TEXT = (
    "description",
    "name",
    "remark",
    "banner",
    "username",
    "snmp-server location",
    "snmp-server contact",
)


def _check_complete(lines: list[str], roots: list[Node], ctx: Ctx) -> None:
    """`show running-config` has no `end` line, so a cut capture is spotted by what it lacks."""
    heads = {n.words[0] for n in roots}
    if not heads & {"hostname", "switchname", "version"}:
        ctx.problem(
            None,
            "no `hostname` and no `version` line: this does not look like a whole NX-OS running-config",
            hint="re-collect the full `show running-config` output",
        )
    last = next((i for i in range(len(lines) - 1, -1, -1) if not is_comment(lines[i].strip())), None)
    if last is None:
        return
    text = lines[last].strip()
    words = text.split()
    cut = bool(_NEEDS_VALUE.match(text))
    if not cut and not re.sub(r"^(?:no |\d+ )", "", text).startswith(_FREE_TEXT):
        word = words[-1]
        names_a_thing = len(words) >= 2 and words[-2] in _TAKES_NAME
        cut = text[-1] in ".:/,-" or (
            not names_a_thing
            and len(word) >= 2
            and word not in _KEYWORDS
            and any(k.startswith(word) for k in _KEYWORDS)
        )
    if cut:
        ctx.problem(
            last + 1,
            f"the last line {text!r} stops mid-command: the capture looks truncated",
            hint="re-collect the full `show running-config` output",
        )
