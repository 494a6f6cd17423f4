"""The control matrix per framework, the waivers (in force and expired), and the check catalogue."""

from __future__ import annotations

from collections import Counter

from auditor.enums import Status, WaiverState
from reports.html.markup import code_spans, esc, row, slug, table
from reports.labels import RESULT_LABEL, STATUS_LABEL, STATUS_ORDER, TIER_SHORT
from reports.model import CheckOutcome, FrameworkResult, ReportData

TEXT_LIMIT = 1000
APPENDIX = "<h2>Appendix A. Checks evaluated</h2>"


def check_link(check_id: str, catalogue: set[str]) -> str:
    text = esc(check_id)
    return f'<a href="#check-{esc(slug(check_id))}">{text}</a>' if check_id in catalogue else text


def _check_line(c: CheckOutcome, catalogue: set[str]) -> str:
    ident = f"<strong>{check_link(c.check_id, catalogue)}</strong>"
    if not c.evaluated:
        return f"{ident}: <em>not evaluated in this run</em>"
    parts = []
    for s in STATUS_ORDER:
        n = c.counts.get(s, 0)
        if n:
            waived = f" ({c.waived} waived)" if s is Status.FAIL and c.waived else ""
            parts.append(f"{n} {STATUS_LABEL[s]}{waived}")
    return f"{ident}: {esc(', '.join(parts) or 'no findings')}"


def _framework(fw: FrameworkResult, catalogue: set[str]) -> str:
    rows = []
    for req in fw.requirements:
        title = esc(req.title, limit=TEXT_LIMIT)
        if req.note:
            title += f'<br><em class="note">{esc(req.note, limit=TEXT_LIMIT)}</em>'
        total = Counter[Status]()
        for c in req.checks:
            total.update(c.counts)
        rows.append(
            row(
                [
                    f"<strong>{esc(req.id)}</strong>",
                    title,
                    "<br>".join(_check_line(c, catalogue) for c in req.checks),
                    f"{total[Status.PASS]:,}",
                    f"{total[Status.FAIL]:,}",
                    f"{total[Status.NOT_ASSESSED]:,}",
                    f'<span class="pill tone-{req.result.value}">{esc(RESULT_LABEL[req.result])}</span>',
                ]
            )
        )
    head = ["Requirement", "Summary (ours)", "Checks and their findings", "PASS", "FAIL", "NOT ASSESSED"]
    head.append("Result")
    return (
        f'<h3 id="fw-{esc(fw.key)}">{esc(fw.framework)}: {esc(fw.title)}</h3>'
        f'<p class="note">Version {esc(fw.version)} · {esc(fw.source)}</p>{table(head, rows)}'
    )


def controls_section(data: ReportData) -> str:
    if not data.controls:
        body = "<p>No control mappings were available for this report.</p>"
    else:
        catalogue = {c.id for c in data.checks}
        body = (
            "<p>Each requirement is evidenced by the checks listed beside it (the mappings ship with the "
            "tool as data, one file per framework). Counts are this run's findings of those checks; FAIL "
            "counts include waived failures, marked as such. Requirement summaries are our own wording: "
            "read the framework for its text.</p>"
            + "".join(_framework(fw, catalogue) for fw in data.controls)
        )
    return f'<section id="controls"><h2>13. Control matrix</h2>{body}</section>'


def waivers_section(data: ReportData) -> str:
    if not data.waivers:
        body = "<p>No waivers were configured for this run: every failure counts.</p>"
    else:
        rows = []
        for u in sorted(data.waivers, key=lambda u: u.index):
            w = u.waiver
            active = u.state is WaiverState.ACTIVE
            rows.append(
                row(
                    [
                        str(u.index),
                        f"<strong>{esc(w.check)}</strong>",
                        f"target <code>{esc(w.target)}</code><br>"
                        f"subject <code>{esc(w.subject, limit=TEXT_LIMIT)}</code>",
                        esc(w.owner),
                        esc(w.reason, limit=TEXT_LIMIT),
                        esc(w.expires.isoformat()),
                        f'<span class="pill tone-{"WAIVED" if active else "FAIL"}">'
                        f"{'IN FORCE' if active else 'EXPIRED'}</span>",
                        f"{u.matched:,}",
                    ],
                    cls="waiver-active" if active else "waiver-expired",
                )
            )
        head = ["#", "Check", "Applies to (globs)", "Owner", "Reason", "Expires", "State", "Failures"]
        body = (
            "<p>A waiver is an accepted risk: a failing check on matching subjects stays FAIL but does not "
            "fail the run, until the waiver expires. An expired waiver no longer applies and the failures it "
            f"matched count again.</p>{table(head, rows, ident='waivers-table')}"
        )
    return f'<section id="waivers"><h2>10. Waivers</h2>{body}</section>'


def checks_section(data: ReportData) -> str:
    if not data.checks:
        return f'<section id="checks">{APPENDIX}<p>No checks were recorded.</p></section>'
    per: dict[str, Counter[Status]] = {}
    for f in data.findings:
        per.setdefault(f.check_id, Counter())[f.status] += 1
    rows = []
    for c in sorted(data.checks, key=lambda c: c.id):
        counts = per.get(c.id, Counter())
        outcome = ", ".join(f"{counts[s]} {STATUS_LABEL[s]}" for s in STATUS_ORDER if counts[s])
        rows.append(
            f'<tr id="check-{esc(slug(c.id))}"><td><strong>{esc(c.id)}</strong><br>{esc(c.title)}</td>'
            f"<td>{esc(TIER_SHORT[c.tier])}</td><td>{esc(c.severity.value.upper())}</td>"
            f"<td>{esc(outcome or 'no findings')}</td><td>{code_spans(c.rationale, limit=TEXT_LIMIT)}</td>"
            f"<td>{code_spans(c.remediation, limit=TEXT_LIMIT)}</td></tr>"
        )
    head = ["Check", "Tier", "Severity", "Findings", "Rationale", "Remediation"]
    return f'<section id="checks">{APPENDIX}{table(head, rows)}</section>'
