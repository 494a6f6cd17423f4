"""Small helpers the section derivations share: findings by check, worst status, tiers of addresses."""

from __future__ import annotations

import ipaddress
import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from functools import lru_cache
from typing import Any

from auditor.enums import FactKind, Status, Tier
from auditor.store.reader import StoredFact
from reports.model import FindingInfo, ReportData

# Worst first: a FAIL outranks an ERROR, which outranks missing evidence, which outranks a PASS.
STATUS_RANK = {
    Status.FAIL: 0,
    Status.ERROR: 1,
    Status.NOT_ASSESSED: 2,
    Status.PASS: 3,
    Status.NOT_APPLICABLE: 4,
}
TIERS = (Tier.OOB, Tier.FRONTEND, Tier.BACKEND)
TIER_NAME = {Tier.OOB: "OOB", Tier.FRONTEND: "frontend", Tier.BACKEND: "backend", Tier.CROSS: "cross-tier"}
SHOWN = 6  # items named in a worded list before "and N more"


def by_check(findings: Iterable[FindingInfo]) -> dict[str, list[FindingInfo]]:
    out: dict[str, list[FindingInfo]] = defaultdict(list)
    for f in findings:
        out[f.check_id].append(f)
    return out


def outcome(groups: Mapping[str, Sequence[FindingInfo]], checks: Sequence[str]) -> tuple[Status | None, str]:
    """The worst status of these checks' findings and a worded count ("2 FAIL of 14 findings")."""
    found = [f for c in checks for f in groups.get(c, ())]
    if not found:
        return None, "not evaluated in this run"
    counts = Counter(f.status for f in found)
    worst = min(counts, key=STATUS_RANK.__getitem__)
    parts = [
        f"{counts[s]:,} {s.value.replace('_', ' ')}" for s in sorted(counts, key=STATUS_RANK.__getitem__)
    ]
    if worst is Status.PASS:
        return worst, f"all {len(found):,} PASS"
    return worst, f"{', '.join(parts)} of {len(found):,}"


def words(items: Iterable[str], shown: int = SHOWN, empty: str = "none") -> str:
    """Items as "a, b, c and 4 more": a list for people, never Python's syntax."""
    seen = list(dict.fromkeys(i for i in items if i))
    if not seen:
        return empty
    if len(seen) <= shown:
        return ", ".join(seen)
    return f"{', '.join(seen[:shown])} and {len(seen) - shown:,} more"


def ranges_text(numbers: Iterable[int], shown: int = 8) -> str:
    """Sorted integers as ranges: 100-103, 200, 3000-3999."""
    ordered = sorted(set(numbers))
    spans: list[tuple[int, int]] = []
    for n in ordered:
        if spans and n == spans[-1][1] + 1:
            spans[-1] = (spans[-1][0], n)
        else:
            spans.append((n, n))
    return words((f"{a}-{b}" if a != b else str(a) for a, b in spans), shown)


def declared_ranges(value: Any) -> str:
    """A stored config's VLAN ranges ([[lo, hi], ...] or "lo-hi,..."), worded."""
    if isinstance(value, str):
        return value or "none"
    out = []
    for item in value or []:
        if isinstance(item, list | tuple) and len(item) == 2:
            lo, hi = item
            out.append(f"{lo}-{hi}" if lo != hi else str(lo))
        else:
            out.append(str(item))
    return ", ".join(out) or "none"


def tier_intent(data: ReportData, tier: Tier) -> dict[str, Any]:
    """The stored intent of one tier ({} when it is not declared)."""
    tiers = data.intent.get("tiers") or {}
    value = tiers.get(tier.value) if isinstance(tiers, dict) else None
    return value if isinstance(value, dict) else {}


class TierMap:
    """Which declared tier an address falls in (the most specific declared CIDR wins)."""

    def __init__(self, data: ReportData) -> None:
        nets: list[tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, Tier]] = []
        for tier in TIERS:
            for cidr in tier_intent(data, tier).get("cidrs") or []:
                try:
                    nets.append((ipaddress.ip_network(str(cidr), strict=False), tier))
                except ValueError:
                    continue
        self._nets = sorted(nets, key=lambda n: -n[0].prefixlen)
        self._lookup = lru_cache(maxsize=65536)(self._find)

    def _find(self, address: str) -> str:
        try:
            ip = ipaddress.ip_address(address.split("/", maxsplit=1)[0])
        except ValueError:
            return "unknown"
        for net, tier in self._nets:
            if ip.version == net.version and ip in net:
                return tier.value
        if ip.is_private or ip.is_loopback or ip.is_link_local:
            return "other internal"
        return "internet"

    def of(self, address: str) -> str:
        return str(self._lookup(address))


_DIGITS = re.compile(r"\d+")


def subject_pattern(subject: str) -> str:
    """A subject with its numbers generalised (be-leaf17/Ethernet4 -> be-leaf*/Ethernet*), so findings of
    one check on a thousand like subjects read as one row."""
    return _DIGITS.sub("*", subject)


Facts = Mapping[FactKind, Sequence[StoredFact[Any]]]  # the run's facts of the kinds sections read


def target_tiers(data: ReportData) -> dict[str, str]:
    """Target name -> its tier value, for targets that have one (devices)."""
    return {t.name: t.tier.value for t in data.targets if t.tier is not None}
