"""NAPALM getter results -> network facts (entry points "napalm.getters" and "napalm.<getter>").

Two capture shapes (collectors/normalizers/FORMATS.md):
- "napalm.getters": one JSON object {getter name: its return value} from one session with the device.
  Every fact kind below comes from it, Interface included.
- "napalm.<getter>": one getter's return value. Each yields the facts that getter alone makes whole
  (get_facts -> Device, get_network_instances -> Vrf, get_vlans -> Vlan, get_lldp_neighbors ->
  LldpNeighbor). get_interfaces and get_interfaces_ip alone yield nothing and cover nothing: each holds
  only part of an Interface (link state, or addresses, never the VRF), and a partial record would read
  as "no address" or "in the default VRF". get_config yields nothing: running configs are read from
  their "<platform>.running-config" captures.
Interface names are first made canonical for the capture's platform (collectors.parsing.napalm_names),
so the getters and the running config name each port one way.
"""

from __future__ import annotations

import json
from typing import Any

from auditor.capture import RawCapture
from auditor.enums import FactKind
from auditor.facts.network import Interface
from auditor.normalize import NormalizeResult
from collectors.parsing.config_tree import Context
from collectors.parsing.live_common import context_of, decode_text, device_fact, finish, guard, load_json
from collectors.parsing.napalm_facts import (
    Source,
    build_interfaces,
    read_facts_getter,
    read_lldp,
    read_vlans,
    read_vrfs,
)
from collectors.parsing.napalm_names import canonical_getters, namer_for

INTERFACE_GETTERS = ("get_interfaces", "get_interfaces_ip", "get_network_instances")
KNOWN_GETTERS = frozenset({*INTERFACE_GETTERS, "get_facts", "get_vlans", "get_lldp_neighbors", "get_config"})


def bundle_content(results: dict[str, Any]) -> bytes:
    """The content of a "napalm.getters" capture: {getter: result} as sorted JSON, for the collector
    that called the getters in one session (a getter that failed is simply left out)."""
    return json.dumps(results, sort_keys=True, default=str).encode()


def normalize_getters(capture: RawCapture) -> NormalizeResult:
    """A bundle of getter results from one device. Never raises on bad content."""
    result = NormalizeResult()
    ctx = context_of(capture)
    doc = load_json(capture, ctx, "NAPALM getters bundle")
    if doc is None:
        return finish(result, ctx)
    if not isinstance(doc, dict):
        ctx.problem(
            1, f"a NAPALM getters bundle is a JSON object of getter -> result, got {type(doc).__name__}"
        )
        return finish(result, ctx)
    text = decode_text(capture)
    doc = canonical_getters({str(k): v for k, v in doc.items()}, namer_for(capture))
    sources = {k: Source(k, v, text) for k, v in doc.items()}
    present = [g for g in INTERFACE_GETTERS if g in sources]
    if present and len(present) < len(INTERFACE_GETTERS):
        missing = ", ".join(g for g in INTERFACE_GETTERS if g not in sources)
        ctx.problem(
            None,
            f"no Interface facts: the bundle lacks {missing}",
        )
    _read(capture, ctx, sources, result)
    return finish(result, ctx)


def normalize_getter(capture: RawCapture) -> NormalizeResult:
    """One getter's result; the getter is named by the format ("napalm.get_vlans")."""
    result = NormalizeResult()
    ctx = context_of(capture)
    getter = capture.format.partition(".")[2]
    if getter not in KNOWN_GETTERS:
        ctx.problem(None, f"no reader for NAPALM getter {getter!r}")
        return finish(result, ctx)
    if getter == "get_config":
        return result  # evidence only; the facts come from the platform's running-config capture
    value = load_json(capture, ctx, f"NAPALM {getter} result")
    if value is not None:
        value = canonical_getters({getter: value}, namer_for(capture))[getter]
        _read(capture, ctx, {getter: Source(getter, value, decode_text(capture))}, result)
    return finish(result, ctx)


def _read(capture: RawCapture, ctx: Context, given: dict[str, Source], result: NormalizeResult) -> None:
    sources = {}
    for getter, src in given.items():
        if isinstance(src.value, dict):
            sources[getter] = src
        else:  # nothing of it can be read, so it covers nothing
            ctx.problem(None, f"{getter}: expected a JSON object, got {type(src.value).__name__}")
    if "get_facts" in sources:
        facts: dict[str, str | None] = guard(
            ctx, "get_facts", lambda: read_facts_getter(ctx, sources["get_facts"]), {}
        )
        result.add(
            device_fact(
                capture,
                ctx,
                "napalm",
                hostname=facts.get("hostname"),
                model=facts.get("model"),
                os_version=facts.get("os_version"),
            )
        )
        result.covers.add(FactKind.DEVICE)
    readers = (
        ("get_network_instances", FactKind.VRF, read_vrfs),
        ("get_vlans", FactKind.VLAN, read_vlans),
        ("get_lldp_neighbors", FactKind.LLDP_NEIGHBOR, read_lldp),
    )
    for getter, kind, reader in readers:
        if getter in sources:
            src = sources[getter]
            result.facts.extend(guard(ctx, getter, lambda r=reader, s=src: r(ctx, s), []))  # type: ignore[misc]
            result.covers.add(kind)
    if all(g in sources for g in INTERFACE_GETTERS):
        interfaces: list[Interface] = guard(
            ctx,
            "interfaces",
            lambda: build_interfaces(
                ctx,
                sources["get_interfaces"],
                sources["get_interfaces_ip"],
                sources["get_network_instances"],
                sources.get("get_vlans"),
            ),
            [],
        )
        result.facts.extend(interfaces)
        result.covers.add(FactKind.INTERFACE)
