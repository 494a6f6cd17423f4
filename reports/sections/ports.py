"""The switch-port segregation manifest: every switch port with its VRF or VLANs, tier and tenant.

The body shows it grouped (tier, VRF, VLAN set, tenant: how many ports on how many devices); the complete
listing goes to an appendix, bounded: at fleet size the run's facts in the pack hold every port."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from auditor.config.models import Intent
from auditor.config.segmentation import vrf_tenants
from auditor.enums import FactKind
from auditor.facts import Interface
from reports.model import ReportData
from reports.sections.common import Facts, by_check, outcome, ranges_text, target_tiers
from reports.sections.records import PortGroup, PortManifest, PortRow

PORT_LIMIT = 2500  # rows of the complete listing drawn in the PDF appendix
_KINDS = ("ethernet", "port-channel")
CHECKS = ["T3-PORT-SEGREGATION", "T1-OOB-SWITCH-DEDICATED"]


def parsed_intent(data: ReportData) -> Intent | None:
    """The stored intent as the config model, or None when it no longer validates (an older config)."""
    if not data.intent:
        return None
    try:
        return Intent.model_validate(data.intent)
    except ValueError:
        return None


def _vlans(rec: Interface) -> str:
    if rec.mode == "access" and rec.access_vlan is not None:
        return str(rec.access_vlan)
    if rec.mode == "trunk":
        if rec.trunk_allowed_vlans is None:
            return "all"
        return ranges_text((v for lo, hi in rec.trunk_allowed_vlans for v in range(lo, hi + 1)), 4)
    return "-"


def _declared(entry: Any) -> str:
    if entry is None:
        return ""
    parts = [f"tier {entry.tier.value}"]
    if entry.vrf:
        parts.append(f"vrf {entry.vrf}")
    if entry.vlan:
        parts.append("vlan " + ", ".join(f"{a}-{b}" if a != b else str(a) for a, b in entry.vlan))
    if entry.role:
        parts.append(f"role {entry.role}")
    return ", ".join(parts)


def port_manifest(data: ReportData, facts: Facts, limit: int = PORT_LIMIT) -> PortManifest:
    intent = parsed_intent(data)
    tenants = vrf_tenants(intent) if intent is not None else {}
    tiers = target_tiers(data)
    rows: list[PortRow] = []
    groups: dict[tuple[str, str, str, str], tuple[set[str], list[str]]] = defaultdict(lambda: (set(), []))
    has_manifest = bool(intent is not None and intent.ports)
    total = 0
    devices: set[str] = set()
    for f in facts.get(FactKind.INTERFACE, ()):
        rec = f.record
        if not isinstance(rec, Interface) or rec.type not in _KINDS:
            continue
        entry = intent.port(rec.device, rec.name) if has_manifest and intent is not None else None
        tier = entry.tier.value if entry is not None else tiers.get(f.target, "undeclared")
        vrf = rec.vrf if (rec.mode in (None, "routed") or not rec.switchport) else "-"
        tenant = (entry.tenant if entry is not None and entry.tenant else None) or tenants.get(rec.vrf, "")
        vlans = _vlans(rec)
        total += 1
        devices.add(rec.device)
        key = (tier, vrf, vlans, tenant)
        devs, ports = groups[key]
        devs.add(rec.device)
        ports.append(f"{rec.device} {rec.name}")
        if len(rows) < limit:
            rows.append(
                PortRow(
                    rec.device,
                    rec.name,
                    rec.type,
                    rec.mode or "-",
                    vrf,
                    vlans,
                    tier,
                    tenant,
                    _declared(entry),
                )
            )
    status, result = outcome(by_check(data.findings), CHECKS)
    summary = [
        PortGroup(tier, vrf, vlans, tenant, len(devs), len(ports), ports[0])
        for (tier, vrf, vlans, tenant), (devs, ports) in sorted(
            groups.items(), key=lambda kv: (kv[0][0], -len(kv[1][1]), kv[0])
        )
    ]
    return PortManifest(summary, rows, total, len(devices), status, result)
