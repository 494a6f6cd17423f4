"""The lateral-movement analysis: each failing path from the internet or the frontend into tier 1 or 3,
hop by hop, read back from the X-LATERAL-NO-PATH finding's `[n] A -> B (what): why; why` text."""

from __future__ import annotations

import re

from auditor.enums import Status
from reports.model import FindingInfo, ReportData
from reports.sections.common import STATUS_RANK
from reports.sections.records import LateralAnalysis, LateralHop, LateralPath
from reports.sections.text import plain

CHECK = "X-LATERAL-NO-PATH"
_LINK_START = re.compile(r"(?:^|\s)\[(\d+)\] ")
_LINK = re.compile(
    r"^(?P<src>.+?) -> (?P<dst>.+?) \((?P<allows>[^()]*(?:\([^()]*\)[^()]*)*)\): ?(?P<via>.*)$", re.S
)


def _link(body: str) -> tuple[str, str, str, str] | None:
    """`A -> B (what it allows): why; why` split into its parts; the allows part may nest parentheses
    ("and more (2 range(s) not shown)"), so it is matched by counting them."""
    src, arrow, rest = body.partition(" -> ")
    open_at = rest.find(" (")
    if not arrow or open_at < 0:
        return None
    depth = 0
    for i in range(open_at + 1, len(rest)):
        depth += {"(": 1, ")": -1}.get(rest[i], 0)
        if depth == 0:
            if rest[i + 1 : i + 2] != ":":
                return None
            return src, rest[:open_at], rest[open_at + 2 : i], rest[i + 2 :].strip()
    return None


def hops(found: str) -> list[LateralHop]:
    """The links of a path, in order; a text that is not a path gives one hop holding all of it."""
    starts = list(_LINK_START.finditer(found))
    out: list[LateralHop] = []
    for i, m in enumerate(starts):
        end = starts[i + 1].start() if i + 1 < len(starts) else len(found)
        body = found[m.end() : end].strip()
        link = _link(body)
        if link is None:
            out.append(LateralHop(int(m[1]), "", "", "", [plain(body)]))
            continue
        src, dst, allows, why = link
        via = [plain(v.strip()) for v in why.split("; ") if v.strip()]
        out.append(LateralHop(int(m[1]), src, dst, plain(allows), via))
    return out


def _path(f: FindingInfo) -> LateralPath:
    zone, _, tier = f.subject.rpartition(" -> ")
    return LateralPath(f.subject, zone or f.subject, tier, f.status, f.severity, hops(f.found))


def lateral_analysis(data: ReportData) -> LateralAnalysis:
    found = [f for f in data.findings if f.check_id == CHECK]
    failing = sorted(
        (f for f in found if f.status in (Status.FAIL, Status.ERROR)),
        key=lambda f: (STATUS_RANK[f.status], f.subject),
    )
    return LateralAnalysis(
        paths=[_path(f) for f in failing],
        checked=len(found),
        passed=sum(1 for f in found if f.status is Status.PASS),
        not_assessed=sum(1 for f in found if f.status is Status.NOT_ASSESSED),
    )
