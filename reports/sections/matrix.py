"""The segmentation matrix: per tier, what the config declares beside what the evidence shows.

Observed values come from the run's facts (VRFs, VLANs, MTU and QoS of the tier's devices); the verdict
of each row is the worst result of the checks that judge that aspect."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping, Sequence

from auditor.enums import FactKind, Tier
from auditor.facts import Interface, QosInterface, Vlan, Vrf
from reports.model import FindingInfo, ReportData
from reports.sections.common import (
    TIERS,
    Facts,
    by_check,
    declared_ranges,
    outcome,
    ranges_text,
    target_tiers,
    tier_intent,
    words,
)
from reports.sections.records import MatrixRow

_RATIO = re.compile(r"ratio (\d+(?:\.\d+)?)")
_PHYSICAL = ("ethernet", "port-channel")

# aspect -> tier -> the checks that judge it
CHECKS: dict[str, dict[Tier, list[str]]] = {
    "VRFs": {
        Tier.OOB: ["T1-MGMT-PLANE-IN-OOB-VRF", "T1-OOB-SWITCH-DEDICATED"],
        Tier.FRONTEND: ["T2-FRONTEND-NOT-TO-BACKEND"],
        Tier.BACKEND: ["T3-NO-ROUTE-LEAK", "T3-VRF-NO-FOREIGN-PREFIXES", "T3-TENANT-ISOLATION"],
    },
    "VLAN ranges": {
        Tier.OOB: ["T1-OOB-SWITCH-DEDICATED"],
        Tier.FRONTEND: [],
        Tier.BACKEND: ["T3-PORT-SEGREGATION"],
    },
    "MTU": {Tier.BACKEND: ["T3-MTU-JUMBO"]},
    "PFC, ECN and trust": {Tier.BACKEND: ["T3-PFC-LOSSLESS-ONLY", "T3-ECN-ON-LOSSLESS", "T3-DSCP-TRUST"]},
    "Link capacity and oversubscription": {Tier.BACKEND: ["T3-NON-BLOCKING"]},
    "Default-deny posture": {
        Tier.OOB: ["T1-OOB-ACCESS-JUMP-HOSTS-ONLY", "T1-OOB-FLOWS-AUTHORIZED"],
        Tier.FRONTEND: [
            "T2-NS-DEFAULT-DENY",
            "T2-SG-DEFAULT-DENY",
            "T2-NACL-DEFAULT-DENY",
            "T2-NO-CROSS-TENANT",
        ],
        Tier.BACKEND: ["T3-NO-MGMT-OR-PUBLIC", "X-FLOWS-NO-CROSS-TIER"],
    },
    "Egress path": {
        Tier.OOB: ["T1-OOB-NO-DEFAULT-ROUTE", "T1-OOB-NOT-ROUTED-ELSEWHERE"],
        Tier.FRONTEND: ["T2-EGRESS-PROXY-ONLY", "T2-ZERO-EGRESS-ROUTES", "T2-DNS-APPROVED-RESOLVERS"],
        Tier.BACKEND: ["T3-VRF-NO-DEFAULT-ROUTE"],
    },
}


class _Observed:
    """The tier's devices' facts, read once."""

    def __init__(self, data: ReportData, facts: Facts) -> None:
        tiers = target_tiers(data)
        self.vrfs: dict[str, set[str]] = {t.value: set() for t in TIERS}
        self.vlans: dict[str, set[int]] = {t.value: set() for t in TIERS}
        self.mtus: dict[str, Counter[int]] = {t.value: Counter() for t in TIERS}
        self.speeds: dict[str, int] = Counter()
        self.qos: dict[str, Counter[str]] = {t.value: Counter() for t in TIERS}
        self.devices: dict[str, set[str]] = {t.value: set() for t in TIERS}
        for f in facts.get(FactKind.VRF, ()):
            tier = tiers.get(f.target)
            if tier in self.vrfs and isinstance(f.record, Vrf):
                self.vrfs[tier].add(f.record.name)
        for f in facts.get(FactKind.VLAN, ()):
            tier = tiers.get(f.target)
            if tier in self.vlans and isinstance(f.record, Vlan):
                self.vlans[tier].add(f.record.vlan_id)
        for f in facts.get(FactKind.INTERFACE, ()):
            tier = tiers.get(f.target)
            rec = f.record
            if tier not in self.mtus or not isinstance(rec, Interface) or rec.type not in _PHYSICAL:
                continue
            self.devices[tier].add(f.target)
            if rec.mtu is not None:
                self.mtus[tier][rec.mtu] += 1
            if rec.speed_mbps and rec.type == "ethernet":
                self.speeds[tier] += rec.speed_mbps
        for f in facts.get(FactKind.QOS_INTERFACE, ()):
            tier = tiers.get(f.target)
            rec = f.record
            if tier not in self.qos or not isinstance(rec, QosInterface):
                continue
            q = self.qos[tier]
            q["ports"] += 1
            q[f"pfc {','.join(map(str, sorted(rec.pfc_no_drop_priorities))) or 'off'}"] += 1
            q[f"ecn {','.join(map(str, sorted(rec.ecn_queues))) or 'off'}"] += 1
            q[f"trust {rec.trust or 'unset'}"] += 1


def _qos_text(q: Counter[str]) -> str:
    if not q.get("ports"):
        return "no QoS settings in the evidence"
    parts = [
        f"{n:,} ports {k.replace('pfc', 'with PFC no-drop on').replace('ecn', 'with ECN on')}"
        for k, n in q.most_common()
        if k != "ports"
    ]
    return f"{q['ports']:,} ports read: " + words(parts, 6)


def _mtu_text(mtus: Counter[int]) -> str:
    if not mtus:
        return "no MTU in the evidence"
    low, high = min(mtus), max(mtus)
    under = sum(n for m, n in mtus.items() if m < 9000)
    span = f"{low}" if low == high else f"{low} to {high}"
    return f"{sum(mtus.values()):,} ports, MTU {span}" + (f"; {under:,} under 9000" if under else "")


def _capacity_text(found: Sequence[FindingInfo], speed_mbps: int) -> str:
    ratios = [float(m[1]) for f in found if (m := _RATIO.search(f.found))]
    tbps = speed_mbps / 1_000_000
    rate = f"{tbps / 1000:,.1f} Pb/s" if tbps >= 1000 else f"{tbps:,.1f} Tb/s"
    total = f"{rate} of Ethernet ports" if speed_mbps else "no port speeds"
    if not ratios:
        return f"{total}; no uplink/downlink ratio in the findings"
    return f"{total}; {len(found):,} leaves judged, worst ratio {max(ratios):.2f}"


def _row(
    tier: Tier, aspect: str, declared: str, observed: str, groups: Mapping[str, Sequence[FindingInfo]]
) -> MatrixRow:
    checks = CHECKS.get(aspect, {}).get(tier, [])
    status, result = outcome(groups, checks)
    return MatrixRow(tier, aspect, declared, observed, status, result, checks)


def segmentation_matrix(data: ReportData, facts: Facts) -> list[MatrixRow]:
    groups = by_check(data.findings)
    seen = _Observed(data, facts)
    rows: list[MatrixRow] = []
    for tier in TIERS:
        intent = tier_intent(data, tier)
        t = tier.value
        if not intent:
            rows.append(
                MatrixRow(tier, "Declared", "not declared", "its checks are NOT APPLICABLE", None, "", [])
            )
            continue
        devices = len(seen.devices[t])
        rows.append(
            _row(
                tier,
                "VRFs",
                words(map(str, intent.get("vrfs") or [])),
                f"{words(sorted(seen.vrfs[t]), 8)} on {devices:,} device(s)"
                if seen.vrfs[t]
                else "no VRFs read",
                groups,
            )
        )
        rows.append(
            _row(
                tier,
                "VLAN ranges",
                declared_ranges(intent.get("vlans")) if intent.get("vlans") else "none declared",
                ranges_text(seen.vlans[t]) if seen.vlans[t] else "no VLANs read",
                groups,
            )
        )
        if tier is Tier.BACKEND:
            prio = intent.get("lossless_priority", 3)
            rows.append(
                _row(
                    tier,
                    "MTU",
                    f"{intent.get('min_mtu', 9000)} or more, end to end",
                    _mtu_text(seen.mtus[t]),
                    groups,
                )
            )
            rows.append(
                _row(
                    tier,
                    "PFC, ECN and trust",
                    f"PFC no-drop on priority {prio} only, ECN on queue {prio}, DSCP trusted at the edge",
                    _qos_text(seen.qos[t]),
                    groups,
                )
            )
            rows.append(
                _row(
                    tier,
                    "Link capacity and oversubscription",
                    "uplinks at least the downlinks (oversubscription "
                    f"{intent.get('max_oversubscription', 1.0)} or less)",
                    _capacity_text(groups.get("T3-NON-BLOCKING", []), seen.speeds[t]),
                    groups,
                )
            )
        rows.append(
            _row(
                tier,
                "Default-deny posture",
                _deny_declared(tier, intent),
                _failing(groups, tier, "Default-deny posture"),
                groups,
            )
        )
        rows.append(
            _row(
                tier,
                "Egress path",
                _egress_declared(tier, intent),
                _failing(groups, tier, "Egress path"),
                groups,
            )
        )
    return rows


def _deny_declared(tier: Tier, intent: Mapping[str, object]) -> str:
    if tier is Tier.OOB:
        jump = intent.get("jump_hosts") or []
        hosts = words(map(str, jump)) if isinstance(jump, list) else str(jump)
        return f"management access only from the jump hosts ({hosts})"
    if tier is Tier.FRONTEND:
        return (
            "default-deny ingress and egress per tenant namespace; "
            "security groups and NACLs deny the internet"
        )
    return "no management service or public address in backend VRFs; no flow in from outside the tier"


def _egress_declared(tier: Tier, intent: Mapping[str, object]) -> str:
    if tier is Tier.OOB:
        gw = intent.get("gateways") or []
        return "no default route, never routed elsewhere" + (
            f"; gateways {words(map(str, gw))}" if isinstance(gw, list) and gw else ""
        )
    if tier is Tier.FRONTEND:
        proxy = intent.get("egress_proxy") or []
        dns = intent.get("dns_resolvers") or []
        return (
            f"only through the proxy {words(map(str, proxy)) if isinstance(proxy, list) else proxy}; "
            f"DNS only to {words(map(str, dns)) if isinstance(dns, list) else dns}"
        )
    return "no default route in backend VRFs"


def _failing(groups: Mapping[str, Sequence[FindingInfo]], tier: Tier, aspect: str) -> str:
    """What the checks of this aspect found failing, worded: counts per check and a first example."""
    parts = []
    for check in CHECKS[aspect].get(tier, []):
        bad = [f for f in groups.get(check, ()) if f.status.value in ("FAIL", "ERROR", "NOT_ASSESSED")]
        if bad:
            parts.append(f"{check}: {len(bad):,} ({bad[0].subject})")
    if not parts:
        judged = sum(len(groups.get(c, ())) for c in CHECKS[aspect].get(tier, []))
        return f"{judged:,} subject(s) judged, none failing" if judged else "nothing judged"
    return "; ".join(parts)
