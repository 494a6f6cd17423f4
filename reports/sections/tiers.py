"""The three tiers as declared, and what was observed crossing between them.

A crossing is a failing finding of a check that proves traffic or reachability from one zone into a
tier: a lateral path, an accepted cross-tier flow, a route or route leak into another tier's space. Each
check says in its own words where from; the rules below read those words (and the declared CIDRs)."""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable

from auditor.enums import Status, Tier
from reports.model import FindingInfo, ReportData
from reports.sections.common import TIERS, TierMap, declared_ranges, tier_intent, words
from reports.sections.records import Crossing, TierBox, TierPicture

OUTSIDE = "internet"  # the zone outside every tier: the internet, or an address no tier declares
_TIER_WORD = re.compile(r"\b(OOB|oob|frontend|backend|public|internet)\b")
_WORD_ZONE = {
    "oob": "oob",
    "frontend": "frontend",
    "backend": "backend",
    "public": OUTSIDE,
    "internet": OUTSIDE,
}
_FLOW = re.compile(r"^(?P<src>[0-9a-fA-F:.]+) -> (?P<dst>[0-9a-fA-F:.\[\]]+?)(?::\d+)?/")
_FROM_INTO = re.compile(r"from (?P<src>[\w -]+?) into (?P<dst>OOB|oob|backend|frontend)\b")
_EXAMPLES = 3

Rule = Callable[[FindingInfo, ReportData, TierMap], list[tuple[str, str]]]


def _zones(text: str) -> list[str]:
    return list(dict.fromkeys(_WORD_ZONE[m.lower()] for m in _TIER_WORD.findall(text)))


def _target_tier(f: FindingInfo, data: ReportData) -> str | None:
    for t in data.targets:
        if t.name == f.target and t.tier is not None:
            return t.tier.value
    return None


def _lateral(f: FindingInfo, data: ReportData, tiers: TierMap) -> list[tuple[str, str]]:
    zone, _, tier = f.subject.rpartition(" -> ")
    src = OUTSIDE if zone == "internet" else (_target_tier(f, data) or "frontend")
    return [(src, tier)] if tier else []


def _flow(f: FindingInfo, data: ReportData, tiers: TierMap) -> list[tuple[str, str]]:
    m = _FROM_INTO.search(f.found)
    if m:
        src = _zones(m["src"]) or [OUTSIDE]
        return [(src[0], _WORD_ZONE[m["dst"].lower()])]
    flow = _FLOW.match(f.subject)
    if flow:
        src_zone, dst_zone = tiers.of(flow["src"]), tiers.of(flow["dst"].strip("[]"))
        return [(src_zone if src_zone in ("oob", "frontend", "backend") else OUTSIDE, dst_zone)]
    return []


def _into(target: str, default: str | None = None) -> Rule:
    """Crossings into `target` from the zones the finding's text names (or the finding's target's tier)."""

    def rule(f: FindingInfo, data: ReportData, tiers: TierMap) -> list[tuple[str, str]]:
        named = [z for z in _zones(f.found) if z != target]
        if not named:
            own = _target_tier(f, data)
            named = [own] if own and own != target else [default or OUTSIDE]
        return [(src, target) for src in named]

    return rule


def _frontend_out(f: FindingInfo, data: ReportData, tiers: TierMap) -> list[tuple[str, str]]:
    return [("frontend", z) for z in _zones(f.found) if z in ("oob", "backend")]


def _oob_flows(f: FindingInfo, data: ReportData, tiers: TierMap) -> list[tuple[str, str]]:
    flow = _FLOW.match(f.subject)
    src = tiers.of(flow["src"]) if flow else OUTSIDE
    return [(src if src in ("frontend", "backend") else OUTSIDE, "oob")]


CROSSING_RULES: dict[str, Rule] = {
    "X-LATERAL-NO-PATH": _lateral,
    "X-FLOWS-NO-CROSS-TIER": _flow,
    "T1-OOB-FLOWS-AUTHORIZED": _oob_flows,
    "T2-FRONTEND-NOT-TO-BACKEND": _frontend_out,
    "T1-OOB-NOT-ROUTED-ELSEWHERE": _into("oob", "frontend"),
    "T1-OOB-SWITCH-DEDICATED": _into("oob", "backend"),
    "T3-NO-ROUTE-LEAK": _into("backend", "frontend"),
    "T3-VRF-NO-FOREIGN-PREFIXES": _into("backend"),
}


def _box(data: ReportData, tier: Tier) -> TierBox:
    intent = tier_intent(data, tier)
    notes: list[str] = []
    if intent.get("jump_hosts"):
        notes.append(f"jump hosts {words(map(str, intent['jump_hosts']), 3)}")
    if intent.get("egress_proxy"):
        notes.append(f"egress proxy {words(map(str, intent['egress_proxy']), 3)}")
    if intent.get("dns_resolvers"):
        notes.append(f"DNS {words(map(str, intent['dns_resolvers']), 3)}")
    if tier is Tier.BACKEND and intent:
        notes.append(
            f"MTU {intent.get('min_mtu', 9000)}+, lossless priority {intent.get('lossless_priority', 3)}"
        )
    return TierBox(
        tier=tier,
        declared=bool(intent),
        cidrs=[str(c) for c in intent.get("cidrs") or []],
        vrfs=[str(v) for v in intent.get("vrfs") or []],
        vlans=[declared_ranges(intent.get("vlans"))] if intent.get("vlans") else [],
        notes=notes,
    )


def crossings(data: ReportData) -> list[Crossing]:
    """Failing findings that cross into a tier, counted per (from, into, check)."""
    tiers = TierMap(data)
    seen: dict[tuple[str, str, str], list[str]] = defaultdict(list)
    for f in data.findings:
        rule = CROSSING_RULES.get(f.check_id)
        if rule is None or f.status is not Status.FAIL:
            continue
        for src, dst in rule(f, data, tiers):
            if src != dst and dst in ("oob", "frontend", "backend"):
                seen[(src, dst, f.check_id)].append(f.subject)
    return [
        Crossing(src, dst, check, len(subjects), subjects[:_EXAMPLES])
        for (src, dst, check), subjects in sorted(seen.items())
    ]


def tier_picture(data: ReportData) -> TierPicture:
    return TierPicture([_box(data, t) for t in TIERS], crossings(data))
