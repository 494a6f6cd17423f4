"""Cumulus Linux NVUE config -> network facts.

Two formats, one reader: "cumulus.nvue-json" is `nv config show -o json` (what the live collector
stores), "cumulus.nvue-yaml" is NVUE's own `/etc/nvue.d/startup.yaml` or `nv config show` YAML, read
with YAML 1.2 semantics (NVUE's `on`/`off` are strings, see collectors.parsing.yaml12). The content is
the applied NVUE object tree: an object of top-level branches (interface, bridge, vrf, router, qos,
system, service, acl, ...), or NVUE's startup layout [{"header": ...}, {"set": {...}}] which is read
the same way. Field-level notes are in model.py.
"""

from __future__ import annotations

from typing import Any

from auditor.capture import RawCapture
from auditor.facts import FactRecord
from auditor.facts.network import Acl, AclBinding, Interface, MgmtService, QosInterface
from auditor.normalize import RUNNING_CONFIG_COVERS, NormalizeResult
from collectors.parsing.config_tree import Context
from collectors.parsing.live_common import context_of, device_fact, finish, guard, load_json
from collectors.parsing.yaml12 import load_yaml12
from collectors.platforms.cumulus import model as m
from collectors.platforms.cumulus.acl import control_plane_bindings, read_acls
from collectors.platforms.cumulus.qos import read_qos

COVERS = RUNNING_CONFIG_COVERS
_BRANCHES = ("interface", "bridge", "vrf", "router", "system", "qos", "service", "acl", "evpn", "nve")


def _tree(doc: Any, ctx: Context) -> m.Tree | None:
    if isinstance(doc, list):  # [{"header": ...}, {"set": {...}}]
        doc = next((item["set"] for item in doc if isinstance(item, dict) and "set" in item), None)
    elif isinstance(doc, dict) and isinstance(doc.get("set"), dict):
        doc = doc["set"]
    if not isinstance(doc, dict) or not any(k in doc for k in _BRANCHES):
        ctx.problem(1, "not an NVUE configuration: no interface, bridge, vrf, router or system branch")
        return None
    return doc


def normalize_nvue_json(capture: RawCapture) -> NormalizeResult:
    """Facts, problems and coverage of one `nv config show -o json` capture. Never raises on bad content."""
    ctx = context_of(capture)
    return _normalize(capture, ctx, load_json(capture, ctx, "NVUE config"))


def normalize_nvue_yaml(capture: RawCapture) -> NormalizeResult:
    """The same for NVUE's YAML (startup.yaml, `nv config show`), read as YAML 1.2."""
    ctx = context_of(capture)
    return _normalize(capture, ctx, load_yaml12(capture, ctx, "NVUE config"))


def _normalize(capture: RawCapture, ctx: Context, doc: Any) -> NormalizeResult:
    result = NormalizeResult()
    tree = _tree(doc, ctx) if doc is not None else None
    if tree is None:
        return finish(result, ctx)
    hostname = m.d(tree.get("system")).get("hostname")
    result.add(device_fact(capture, ctx, "cumulus", hostname=str(hostname) if hostname else None))
    pair: tuple[list[Interface], list[AclBinding]] = guard(
        ctx, "interfaces", lambda: m.read_interfaces(ctx, tree), (list[Interface](), list[AclBinding]())
    )
    interfaces, bindings = pair
    facts: list[FactRecord] = [*interfaces]
    facts += guard(ctx, "bridge VLANs", lambda: m.read_vlans_and_vnis(ctx, tree, interfaces), [])
    facts += guard(ctx, "VRFs", lambda: m.read_routing(ctx, tree, interfaces), [])
    acls: list[Acl] = guard(ctx, "ACLs", lambda: read_acls(ctx, tree), [])
    bindings += guard(ctx, "control-plane ACL", lambda: control_plane_bindings(ctx, tree), [])
    qos: list[QosInterface] = guard(ctx, "QoS", lambda: read_qos(ctx, tree, interfaces), [])
    mgmt: list[MgmtService] = guard(ctx, "management", lambda: m.read_mgmt(ctx, tree, interfaces), [])
    facts += [*acls, *bindings, *qos, *mgmt]
    result.facts.extend(facts)
    result.covers = set(COVERS)
    return finish(result, ctx)
