"""The chain of custody: each capture with its source, command or API call, time and SHA-256 (complete,
for the appendix), and a summary per target kind and capture format for the body."""

from __future__ import annotations

from collections import defaultdict

from reports.model import CaptureInfo, ReportData
from reports.sections.records import Custody, CustodyRow, CustodySummary


def _family(c: CaptureInfo) -> str:
    return f"{c.target_kind}: {c.format}"


def custody(data: ReportData) -> Custody:
    rows = [
        CustodyRow(c.seq, c.target, c.source, c.origin, c.format, c.collected_at, c.sha256, c.size)
        for c in sorted(data.captures, key=lambda c: c.seq)
    ]
    groups: dict[str, list[CaptureInfo]] = defaultdict(list)
    for c in data.captures:
        groups[_family(c)].append(c)
    summary = []
    for name, caps in sorted(groups.items()):
        times = [c.collected_at for c in caps if c.collected_at is not None]
        summary.append(
            CustodySummary(
                group=name,
                targets=len({c.target for c in caps}),
                captures=len(caps),
                bytes=sum(c.size for c in caps),
                first=min(times) if times else None,
                last=max(times) if times else None,
                first_seq=min(c.seq for c in caps),
                last_seq=max(c.seq for c in caps),
            )
        )
    return Custody(summary, rows)
