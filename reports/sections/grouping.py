"""The findings grouped by check, status and subject pattern: at fleet size the body shows these rows
(worst first) and each links to its first finding in the complete listing."""

from __future__ import annotations

from collections import defaultdict

from reports.model import FindingInfo, ReportData
from reports.sections.common import STATUS_RANK, subject_pattern
from reports.sections.records import FindingGroup
from reports.sections.text import plain

SEVERITY_RANK = {"critical": 0, "high": 1, "medium": 2, "low": 3, "info": 4}
EXAMPLES = 3


def finding_anchor(index: int) -> str:
    """The destination name of the `index`-th finding (in listing order) of the complete listing."""
    return f"finding-{index}"


def listing_order(f: FindingInfo) -> tuple[int, int, str, str, str, str]:
    """Order of the complete findings listing: worst status, severity, check, subject."""
    return (
        STATUS_RANK[f.status],
        SEVERITY_RANK[f.severity.value],
        f.check_id,
        f.subject,
        f.target or "",
        f.found,
    )


def ordered_findings(data: ReportData) -> list[FindingInfo]:
    return sorted(data.findings, key=listing_order)


def finding_groups(data: ReportData) -> list[FindingGroup]:

    members: dict[tuple[str, str, str], list[tuple[int, FindingInfo]]] = defaultdict(list)
    for i, f in enumerate(ordered_findings(data)):
        members[(f.check_id, f.status.value, subject_pattern(f.subject))].append((i, f))
    groups = []
    for (_, _, pattern), items in members.items():
        first_index, first = items[0]
        groups.append(
            FindingGroup(
                check_id=first.check_id,
                title=first.title,
                tier=first.tier,
                severity=first.severity,
                status=first.status,
                pattern=plain(pattern if len(items) > 1 else first.subject),
                count=len(items),
                waived=sum(1 for _, f in items if f.waived),
                examples=[f.subject for _, f in items[:EXAMPLES]],
                found=plain(first.found),
                anchor=finding_anchor(first_index),
            )
        )
    groups.sort(
        key=lambda g: (
            STATUS_RANK[g.status],
            SEVERITY_RANK[g.severity.value],
            -g.count,
            g.check_id,
            g.pattern,
        )
    )
    return groups
