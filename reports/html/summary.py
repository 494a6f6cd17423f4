"""The summary: findings per tier, per severity, and requirement results per framework, each as counts
with an inline SVG bar (no images, no script), so the numbers stay readable without the colours."""

from __future__ import annotations

from collections import Counter

from auditor.enums import Status, Tier
from reports.controls import requirement_counts
from reports.html.markup import esc, row, table
from reports.json_report import summary_counts
from reports.labels import (
    RESULT_LABEL,
    RESULT_ORDER,
    SEVERITIES,
    STATUS_LABEL,
    STATUS_ORDER,
    TIER_LABEL,
    verdict,
)
from reports.model import ReportData

BAR_W = 240.0
BAR_H = 14.0
Segment = tuple[str, str, int]  # css tone, label, count


def bar(label: str, segments: list[Segment], scale: int) -> str:
    """A stacked horizontal bar, its length proportional to the row's total over `scale`."""
    parts = []
    x = 0.0
    for tone, name, n in segments:
        if not n:
            continue
        w = BAR_W * n / max(scale, 1)
        parts.append(
            f'<rect class="seg tone-{tone}" x="{x:.2f}" y="0" width="{w:.2f}" height="{BAR_H:g}">'
            f"<title>{esc(f'{label}: {n:,} {name}')}</title></rect>"
        )
        x += w
    words = ", ".join(f"{n:,} {name}" for _, name, n in segments if n) or "none"
    return (
        f'<svg class="bar" viewBox="0 0 {BAR_W:g} {BAR_H:g}" width="{BAR_W:g}" height="{BAR_H:g}" '
        f'role="img" aria-label="{esc(f"{label}: {words}")}">'
        f'<rect class="track" x="0" y="0" width="{BAR_W:g}" height="{BAR_H:g}"/>{"".join(parts)}</svg>'
    )


def _count_cell(n: int, tone: str, attention: bool) -> str:
    return f'<span class="count tone-{tone}">{n:,}</span>' if n and attention else f"{n:,}"


def tier_result(row_counts: dict[Status, int], declared: bool, waived: int) -> tuple[str, str]:
    if sum(row_counts.values()) == 0:
        return ("NOT DECLARED" if not declared else "NO FINDINGS"), "none"
    _, status = verdict(row_counts, waived)
    tone = status.value if status else "WAIVED"
    short = {"FAIL": "FAIL", "ERROR": "ERROR", "NOT_ASSESSED": "INCOMPLETE", "PASS": "PASS"}
    return short.get(tone, "N/A" if tone == "NOT_APPLICABLE" else "WAIVED"), tone


ATTENTION = (Status.FAIL, Status.ERROR, Status.NOT_ASSESSED)


def tier_table(data: ReportData) -> str:
    grid = summary_counts(data.findings)
    declared = set(data.run.declared_tiers) | {Tier.CROSS}
    waived = Counter(f.tier for f in data.findings if f.waived)
    scale = max((sum(r.values()) for r in grid.values()), default=1)
    rows = []
    for tier in Tier:
        counts = {s: grid[tier.value][s.value] for s in Status}
        result, tone = tier_result(counts, tier in declared, waived[tier])
        segments = [(s.value, STATUS_LABEL[s], counts[s]) for s in STATUS_ORDER]
        rows.append(
            row(
                [f"<strong>{esc(TIER_LABEL[tier])}</strong>"]
                + [_count_cell(counts[s], s.value, s in ATTENTION) for s in STATUS_ORDER]
                + [f"{sum(counts.values()):,}", f'<span class="result tone-{tone}">{esc(result)}</span>']
                + [bar(TIER_LABEL[tier], segments, scale)],
                cls=f"tier-{tier.value}",
            )
        )
    head = ["Tier", *[esc(STATUS_LABEL[s]) for s in STATUS_ORDER], "Total", "Tier result", "Findings"]
    return table(head, rows, cls="grid counts", ident="summary-tiers")


def severity_table(data: ReportData) -> str:
    per: dict[str, Counter[Status]] = {s.value: Counter() for s in SEVERITIES}
    for f in data.findings:
        per[f.severity.value][f.status] += 1
    scale = max((sum(c.values()) for c in per.values()), default=1)
    rows = []
    for sev in SEVERITIES:
        counts = per[sev.value]
        segments = [(s.value, STATUS_LABEL[s], counts[s]) for s in STATUS_ORDER]
        rows.append(
            row(
                [f"<strong>{esc(sev.value.upper())}</strong>"]
                + [_count_cell(counts[s], s.value, s in ATTENTION) for s in STATUS_ORDER]
                + [f"{sum(counts.values()):,}", bar(sev.value.upper(), segments, scale)]
            )
        )
    head = ["Severity", *[esc(STATUS_LABEL[s]) for s in STATUS_ORDER], "Total", "Findings"]
    return table(head, rows, cls="grid counts", ident="summary-severity")


def framework_table(data: ReportData) -> str:
    if not data.controls:
        return "<p>No control mappings were available for this report.</p>"
    counted = [(fw, requirement_counts(fw)) for fw in data.controls]
    scale = max((sum(c.values()) for _, c in counted), default=1)
    rows = []
    for fw, counts in counted:
        segments = [(r.value, RESULT_LABEL[r], counts[r]) for r in RESULT_ORDER]
        label = f"{fw.framework} {fw.version}"
        rows.append(
            row(
                [f'<a href="#fw-{esc(fw.key)}"><strong>{esc(fw.framework)}</strong></a> {esc(fw.version)}']
                + [_count_cell(counts[r], r.value, r not in RESULT_ORDER[-2:]) for r in RESULT_ORDER]
                + [bar(label, segments, scale)]
            )
        )
    head = ["Framework", *[esc(RESULT_LABEL[r]) for r in RESULT_ORDER], "Requirements"]
    return table(head, rows, cls="grid counts", ident="summary-frameworks")


def summary_section(data: ReportData, trend: str = "") -> str:
    legend = "".join(
        f'<li><span class="swatch tone-{s.value}"></span>{esc(STATUS_LABEL[s])}</li>' for s in STATUS_ORDER
    )
    return (
        '<section id="summary"><h2>1. Executive summary</h2>'
        f'<ul class="legend">{legend}<li><span class="swatch tone-WAIVED"></span>WAIVED</li></ul>'
        "<h3>Status per tier</h3>"
        "<p>Findings of each tier by status. A tier that is not declared in the config makes its checks "
        "NOT APPLICABLE, never PASS; missing evidence is NOT ASSESSED.</p>"
        f"{tier_table(data)}"
        "<h3>Control frameworks</h3>"
        "<p>Mapped requirements per framework by result: the worst outcome of the checks that evidence "
        "each one. A requirement with missing evidence, or whose check did not run, is NOT ASSESSED.</p>"
        f"{framework_table(data)}"
        "<h3>Findings per severity</h3>"
        f"{severity_table(data)}"
        f'<h3 id="trend">Trend over the runs of this scope</h3>{trend}</section>'
    )
