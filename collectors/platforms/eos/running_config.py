"""Arista EOS running-config -> network facts (entry point "eos.running-config").

A pure function of the capture: the same bytes always give the same facts. Each kind of fact is
read by its own module (interfaces, vrfs, bgp, ...); this one checks the capture is
whole, runs them, and names the Device. Unreadable values become Problems naming the origin and the
line; everything else that was read is kept.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import TypeVar

from auditor.capture import RawCapture
from auditor.enums import Tier
from auditor.facts import FactRecord
from auditor.facts.network import (
    Acl,
    AclBinding,
    Device,
    Interface,
    MgmtService,
    QosInterface,
    Route,
    Vlan,
    Vrf,
    VxlanVni,
)
from auditor.normalize import RUNNING_CONFIG_COVERS, NormalizeResult
from collectors.parsing.acl import parse_acls
from collectors.parsing.config_tree import Config, Context, parse_tree
from collectors.platforms.eos.bgp import BgpResult, parse_bgp
from collectors.platforms.eos.interfaces import parse_interfaces
from collectors.platforms.eos.mgmt import parse_management
from collectors.platforms.eos.qos import parse_qos
from collectors.platforms.eos.ranges import merge_interfaces
from collectors.platforms.eos.routes import parse_router_general_leaks, parse_static_routes
from collectors.platforms.eos.vlans import parse_vlans, parse_vxlan
from collectors.platforms.eos.vrfs import build_vrfs

COVERS = RUNNING_CONFIG_COVERS
T = TypeVar("T")
_HEADER = re.compile(r"!\s*device:\s*\S+\s*\((?P<model>[^,)]*),\s*EOS-(?P<version>[^)\s]+)")
_NEWLINE = re.compile(r"\r\n|\n|\r")  # only real line breaks, so line numbers match an editor's


def normalize_running_config(capture: RawCapture) -> NormalizeResult:
    """Read one EOS running-config. Never raises on bad content."""
    result = NormalizeResult()
    ctx = Context(device=capture.meta.get("device") or capture.target, origin=capture.origin)
    lines = _NEWLINE.split(capture.content.decode("utf-8", errors="replace"))
    last = max((i for i, text in enumerate(lines, 1) if text.strip()), default=0)
    if last == 0:
        ctx.problem(None, "empty running-config: nothing to read")
        result.problems = ctx.problems
        return result  # no coverage: an empty capture proves nothing
    if lines[last - 1].strip() != "end":
        ctx.problem(last, "config ends without 'end': truncated?")
    try:
        config = merge_interfaces(ctx, parse_tree(lines))
    except Exception as exc:  # the parser library failing must not lose the problems
        ctx.problem(None, f"cannot parse the config hierarchy: {exc}")
        result.problems = ctx.problems
        return result
    result.add(_device(ctx, capture, config, lines))
    _collect(ctx, config, result)
    result.problems = ctx.problems
    result.covers = set(COVERS)
    return result


def _guard(ctx: Context, what: str, step: Callable[[], T], fallback: T) -> T:
    """Run one reading step; a failure on odd content becomes a Problem, not a lost capture."""
    try:
        return step()
    except Exception as exc:  # containment is the point
        ctx.problem(None, f"could not read {what}: {type(exc).__name__}: {exc}")
        return fallback


def _collect(ctx: Context, config: Config, result: NormalizeResult) -> None:
    if_pair: tuple[list[Interface], list[AclBinding]] = _guard(
        ctx, "interfaces", lambda: parse_interfaces(ctx, config), (list[Interface](), list[AclBinding]())
    )
    interfaces, if_bindings = if_pair
    bgp: BgpResult = _guard(ctx, "router bgp", lambda: parse_bgp(ctx, config), BgpResult())
    vxlan: tuple[list[VxlanVni], dict[str, int]] = _guard(
        ctx, "VXLAN", lambda: parse_vxlan(ctx, config), (list[VxlanVni](), dict[str, int]())
    )
    static: tuple[list[Route], dict[str, list[str]]] = _guard(
        ctx,
        "static routes",
        lambda: parse_static_routes(ctx, config),
        (list[Route](), dict[str, list[str]]()),
    )
    routes, leaks = static
    general: dict[str, list[str]] = _guard(
        ctx, "router general", lambda: parse_router_general_leaks(config), {}
    )
    for vrf, texts in general.items():
        leaks.setdefault(vrf, []).extend(texts)
    mgmt: tuple[list[MgmtService], list[AclBinding]] = _guard(
        ctx, "management", lambda: parse_management(ctx, config), (list[MgmtService](), list[AclBinding]())
    )
    vrfs: list[Vrf] = _guard(
        ctx,
        "VRFs",
        lambda: build_vrfs(
            ctx,
            config,
            interfaces=interfaces,
            bgp=bgp.vrfs,
            l3_vnis=vxlan[1],
            leaks=leaks,
            referenced=[i.vrf for i in interfaces] + [r.vrf for r in routes],
        ),
        [],
    )
    vlans: list[Vlan] = _guard(ctx, "VLANs", lambda: parse_vlans(ctx, config, interfaces), [])
    acls: list[Acl] = _guard(ctx, "ACLs", lambda: parse_acls(ctx, config), [])
    qos: list[QosInterface] = _guard(ctx, "QoS", lambda: parse_qos(ctx, config), [])
    groups: list[Sequence[FactRecord]] = [
        interfaces,
        vrfs,
        vlans,
        vxlan[0],
        routes,
        bgp.neighbors,
        acls,
        if_bindings,
        mgmt[1],
        mgmt[0],
        qos,
    ]
    for facts in groups:
        for fact in facts:
            result.add(fact)


def _device(ctx: Context, capture: RawCapture, config: Config, lines: list[str]) -> Device:
    hostname = next((m.group(1) for _, m in config.top(r"hostname (\S+)")), None) or ctx.device
    header = next((m for m in (_HEADER.match(text.strip()) for text in lines[:20]) if m), None)
    tier: Tier | None = None
    if capture.meta.get("tier"):
        try:
            tier = Tier(capture.meta["tier"])
        except ValueError:
            ctx.problem(None, f"unknown tier {capture.meta['tier']!r} in capture meta")
    return Device(
        device=ctx.device,
        hostname=hostname,
        platform="eos",
        tier=tier,
        role=capture.meta.get("role") or None,
        os_version=header.group("version") if header else None,
        model=header.group("model").strip() or None if header else None,
    )
