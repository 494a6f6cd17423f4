"""The findings table: one row per finding with its details (expected, found, evidence hashes, waiver)
folded under the message, and the filter bar the page script drives. Rows carry their status, tier,
severity and check as data attributes and their sort keys as `data-v`; the script never parses text
into markup, so a subject from a device stays text."""

from __future__ import annotations

from collections.abc import Sequence

from auditor.enums import Status, Tier
from reports.html.markup import code_spans, esc, slug
from reports.html.script import PAGE
from reports.json_report import SEVERITY_ORDER, TIER_ORDER
from reports.labels import SEVERITIES, STATUS_LABEL, STATUS_ORDER, STATUS_PRIORITY, TIER_LABEL, TIER_SHORT
from reports.model import EvidenceRef, FindingInfo, ReportData
from reports.sections.grouping import finding_anchor, ordered_findings
from reports.sections.records import FindingGroup

GROUPS_OPEN = 500  # findings above which the grouped view opens by default
TEXT_LIMIT = 4000  # per expected/found text; the JSON report has the rest
COLUMNS = ["#", "Status", "Severity", "Tier", "Check", "Subject", "Target", "Message and details"]


def _evidence(refs: Sequence[EvidenceRef]) -> str:
    if not refs:
        return "<p>none cited</p>"
    items = "".join(
        f'<li>capture <strong>#{r.seq}</strong> <code class="hash">{esc(r.sha256)}</code> '
        f"{esc(r.source)} · {esc(r.origin)}</li>"
        for r in sorted(refs, key=lambda r: (r.seq, r.sha256))
    )
    return f'<ul class="evidence">{items}</ul>'


def _details(f: FindingInfo) -> str:
    parts = [
        f"<dt>Check</dt><dd>{esc(f.title)}</dd>",
        f'<dt>Expected</dt><dd class="text">{code_spans(f.expected or "—", limit=TEXT_LIMIT)}</dd>',
        f'<dt>Found</dt><dd class="text">{code_spans(f.found or "—", limit=TEXT_LIMIT)}</dd>',
        f"<dt>Evidence ({len(f.evidence)})</dt><dd>{_evidence(f.evidence)}</dd>",
    ]
    if f.fact_ids:
        parts.append(f"<dt>Fact rows</dt><dd>{esc(', '.join(str(i) for i in sorted(set(f.fact_ids))))}</dd>")
    if f.waiver is not None:
        w = f.waiver
        parts.append(
            f"<dt>Waived</dt><dd>by {esc(w.owner)} until {esc(w.expires.isoformat())}: {esc(w.reason)}</dd>"
        )
    return f'<dl class="details">{"".join(parts)}</dl>'


def finding_row(i: int, f: FindingInfo, catalogue: set[str]) -> str:
    """Row `i` (1-based) of the complete listing; its id is the anchor the grouped rows link to. Rows
    after the first page start hidden (the page script pages them; without script a style shows all)."""
    status = STATUS_LABEL[f.status] + (" · waived" if f.waived else "")
    check = esc(f.check_id)
    if f.check_id in catalogue:
        check = f'<a href="#check-{esc(slug(f.check_id))}">{check}</a>'
    waived = ' data-waived="1"' if f.waived else ""
    waived += " hidden" if i > PAGE else ""
    return (
        f'<tr id="{finding_anchor(i - 1)}" data-status="{f.status.value}" data-tier="{f.tier.value}" '
        f'data-severity="{f.severity.value}" data-check="{esc(f.check_id)}"{waived}>'
        f'<td data-v="{i}">{i}</td>'
        f'<td data-v="{STATUS_PRIORITY[f.status]}"><span class="pill tone-{f.status.value}'
        f'{" waived" if f.waived else ""}">{esc(status)}</span></td>'
        f'<td data-v="{SEVERITY_ORDER[f.severity]}">{esc(f.severity.value.upper())}</td>'
        f'<td data-v="{TIER_ORDER[f.tier]}">{esc(TIER_SHORT[f.tier])}</td>'
        f'<td class="check">{check}</td>'
        f'<td class="subject">{esc(f.subject)}</td>'
        f'<td class="target">{esc(f.target)}</td>'
        f'<td class="message"><details><summary class="k">{code_spans(f.message or "—")}</summary>'
        f"{_details(f)}</details></td></tr>"
    )


def _options(values: list[tuple[str, str]]) -> str:
    return '<option value="">all</option>' + "".join(
        f'<option value="{esc(v)}">{esc(label)}</option>' for v, label in values
    )


def filter_bar(data: ReportData) -> str:
    """The filters (status, tier, severity, check id, free text); hidden until the script runs."""
    present = {f.status for f in data.findings}
    boxes = "".join(
        f'<label class="box"><input type="checkbox" id="f-status-{s.value}" name="status" '
        f'value="{s.value}" checked> {esc(STATUS_LABEL[s])}'
        f"{'' if s in present else ' (0)'}</label>"
        for s in STATUS_ORDER
    )
    checks = sorted({f.check_id for f in data.findings})
    return (
        '<form id="filters" class="filters" role="search" hidden>'
        f'<fieldset><legend>Status</legend>{boxes}<label class="box"><input type="checkbox" '
        'id="f-hide-waived" name="hide-waived"> hide waived</label></fieldset>'
        f'<label>Tier <select id="f-tier" name="tier">{_options([(t.value, TIER_LABEL[t]) for t in Tier])}'
        "</select></label>"
        f'<label>Severity <select id="f-severity" name="severity">'
        f"{_options([(s.value, s.value.upper()) for s in SEVERITIES])}</select></label>"
        f'<label>Check <select id="f-check" name="check">{_options([(c, c) for c in checks])}</select>'
        "</label>"
        '<label>Text <input type="search" id="f-text" name="text" size="28" '
        'placeholder="subject, target, message, hash…"></label>'
        '<button type="button" id="f-clear">Clear filters</button>'
        f'<output id="f-count" aria-live="polite">{len(data.findings):,} of {len(data.findings):,} findings'
        "</output></form>"
    )


def groups_table(groups: list[FindingGroup], catalogue: set[str], total: int) -> str:
    """Findings of one check, status and subject pattern as one row, worst first; each links to its first
    finding in the complete listing below."""
    rows = []
    for g in groups:
        check = esc(g.check_id)
        if g.check_id in catalogue:
            check = f'<a href="#check-{esc(slug(g.check_id))}">{check}</a>'
        waived = f" ({g.waived:,} waived)" if g.waived else ""
        rows.append(
            "<tr>"
            f'<td><span class="pill tone-{g.status.value}">{esc(STATUS_LABEL[g.status])}</span></td>'
            f"<td>{esc(g.severity.value.upper())}</td><td>{esc(TIER_SHORT[g.tier])}</td>"
            f'<td class="check">{check}</td><td class="subject">{esc(g.pattern)}</td>'
            f'<td><a href="#{esc(g.anchor)}">{g.count:,}</a>{esc(waived, empty="")}</td>'
            f"<td>{esc(g.found, limit=400)}</td></tr>"
        )
    head = "".join(
        f'<th scope="col">{h}</th>'
        for h in ("Status", "Severity", "Tier", "Check", "Subject (pattern)", "Findings", "Found (first)")
    )
    opened = " open" if total > GROUPS_OPEN else ""  # at fleet size the groups are the readable view
    return (
        f"<details{opened}><summary><strong>By check and subject: {len(groups):,} groups of "
        f"{total:,} findings</strong></summary><p>Findings of one check and status on like subjects "
        "(numbers generalised to *) as one row, worst first; the count links to the first of them below.</p>"
        f'<div class="scroll"><table class="grid groups" id="groups-table"><thead><tr>{head}</tr></thead>'
        f"<tbody>{''.join(rows)}</tbody></table></div></details>"
    )


def findings_section(data: ReportData, groups: list[FindingGroup]) -> str:
    catalogue = {c.id for c in data.checks}
    ordered = ordered_findings(data)
    head = "".join(
        f'<th scope="col" data-col="{i}"><button type="button" class="sort">{esc(name)}</button></th>'
        for i, name in enumerate(COLUMNS)
    )
    rows = "".join(finding_row(i, f, catalogue) for i, f in enumerate(ordered, start=1))
    intro = (
        "<h3>Every finding</h3>"
        "<p>Failures first, then errors, not assessed, passes and not applicable; within each by severity, "
        "check and subject. Click a column header to sort by it (again to reverse), filter with the "
        "bar above the table, and open a message for what was expected, what was found and the evidence "
        "it rests on: each capture's sequence number in the evidence chain and its SHA-256.</p>"
    )
    if not data.findings:
        return '<section id="findings"><h2>4. Findings</h2><p>This run produced no findings.</p></section>'
    attention = sum(1 for f in data.findings if f.status in (Status.FAIL, Status.ERROR, Status.NOT_ASSESSED))
    return (
        '<section id="findings"><h2>4. Findings</h2>'
        f"{groups_table(groups, catalogue, len(data.findings))}{intro}"
        f'<p class="note">{attention:,} of {len(data.findings):,} findings need attention '
        "(FAIL, ERROR or NOT ASSESSED).</p>"
        f"{filter_bar(data)}"
        f'<div class="scroll"><table class="grid findings" id="findings-table" data-page="{PAGE}">'
        f"<thead><tr>{head}</tr></thead>"
        f"<tbody>{rows}</tbody></table></div>"
        f'<p id="f-more" hidden><button type="button" id="f-more-page">Show {PAGE} more</button> '
        '<button type="button" id="f-more-all">Show all</button></p>'
        '<p id="f-none" class="note" hidden>No finding matches the filters.</p></section>'
    )
