"""What the run could not see: checks and targets not assessed (and why), evidence gaps, every target's
collection status, and what redaction took out of the captures (counts only, never a value)."""

from __future__ import annotations

from auditor.enums import TargetStatus
from reports.html.markup import esc, pill, row, table
from reports.labels import TIER_SHORT
from reports.model import ReportData, TargetInfo
from reports.sections.records import NotAssessedRow

TEXT_LIMIT = 1000
HEAD = ["Target", "Kind", "Platform", "Tier", "Role", "Collection", "Captures", "Reason and notes"]


def _reason(t: TargetInfo) -> str:
    parts = [esc(t.reason, limit=TEXT_LIMIT, empty="")] if t.reason else []
    parts += [f'<span class="warn">{esc(n, limit=TEXT_LIMIT)}</span>' for n in t.notes]
    return "<br>".join(parts) or "—"


def _target_row(t: TargetInfo) -> str:
    tone = "PASS" if t.status is TargetStatus.OK else "NOT_ASSESSED"
    return row(
        [
            esc(t.name),
            esc(t.kind),
            esc(t.platform),
            esc(TIER_SHORT[t.tier] if t.tier else None),
            esc(t.role),
            pill(tone, t.status.value.upper()),
            f"{t.captures:,}",
            _reason(t),
        ]
    )


def gaps_section(data: ReportData, not_assessed: list[NotAssessedRow]) -> str:
    """Section 11: what was not assessed and why, the targets not collected in full, the evidence gaps."""
    checks = [
        row([f"<strong>{esc(r.what)}</strong>", esc(r.kind), esc(r.reason, limit=TEXT_LIMIT), f"{r.count:,}"])
        for r in not_assessed
    ]
    parts = [
        "<p>A check without the evidence it needs is NOT ASSESSED, never PASS. These are the checks and "
        "targets that could not be assessed, and why.</p>",
        table(["Check or target", "Kind", "Why", "Findings"], checks, ident="not-assessed-why")
        if checks
        else "<p>Every check that applied was assessed.</p>",
        '<h3 id="not-assessed">Targets not assessed</h3>',
    ]
    missed = sorted(
        (t for t in data.targets if t.status is not TargetStatus.OK), key=lambda t: (t.name, t.kind)
    )
    if missed:
        parts += [
            "<p>Targets whose evidence was not collected in full: their checks are NOT ASSESSED or "
            "partial.</p>",
            table(HEAD, [_target_row(t) for t in missed], ident="not-assessed-table"),
        ]
    else:
        parts.append("<p>Every planned target was collected in full.</p>")
    parts.append('<h3 id="evidence-gaps">Evidence gaps</h3>')
    if data.problems:
        rows = [
            row(
                [
                    esc(p.target),
                    esc(p.location),
                    esc(p.message, limit=TEXT_LIMIT),
                    esc(p.hint, limit=TEXT_LIMIT),
                ]
            )
            for p in sorted(data.problems, key=lambda p: (p.target or "", p.location, p.message))
        ]
        parts += [
            "<p>Evidence that could not be collected or read. Checks that needed it are NOT ASSESSED.</p>",
            table(["Target", "Where", "What happened", "What to do"], rows, ident="gaps-table"),
        ]
    else:
        parts.append("<p>No evidence gaps were recorded for this run.</p>")
    return f'<section id="gaps"><h2>11. Not assessed and evidence gaps</h2>{"".join(parts)}</section>'


def targets_section(data: ReportData) -> str:
    """Section 12: every target and its collection status, and the redaction report."""
    everything = (
        table(
            HEAD,
            [_target_row(t) for t in sorted(data.targets, key=lambda t: (t.name, t.kind))],
            ident="targets-table",
        )
        if data.targets
        else "<p>No targets were planned for this run.</p>"
    )
    title = "<h2>12. Targets and collection status</h2>"
    return f'<section id="targets">{title}{everything}{redactions(data)}</section>'


def redactions(data: ReportData) -> str:
    r = data.redactions
    if r is None:
        return ""
    rules = ", ".join(f"{n:,} {name}" for name, n in sorted(r.by_rule.items())) or "none"
    refused = ""
    if r.refused:
        refused = f"; {r.refused:,} capture(s) refused (not stored: could not be redacted safely)"
    return (
        '<h3 id="redactions">Redaction</h3>'
        f"<p>{r.redactions:,} secret(s) replaced in the stored captures ({esc(rules)})"
        f"{esc(refused, empty='')}. "
        "The report holds counts only, never a redacted value.</p>"
    )
