"""What the run could not see: evidence gaps, targets not assessed (and why), all targets, and what
redaction took out of the captures (counts only, never a value)."""

from __future__ import annotations

from auditor.enums import TargetStatus
from reports.html.labels import TIER_SHORT
from reports.html.markup import esc, row, table
from reports.model import ReportData, TargetInfo

TEXT_LIMIT = 1000


def gaps_section(data: ReportData) -> str:
    if not data.problems:
        return '<section id="gaps"><h2>3. Evidence gaps</h2><p>No evidence gaps were recorded.</p></section>'
    rows = [
        row([esc(p.target), esc(p.location), esc(p.message, limit=TEXT_LIMIT), esc(p.hint, limit=TEXT_LIMIT)])
        for p in sorted(data.problems, key=lambda p: (p.target or "", p.location, p.message))
    ]
    return (
        '<section id="gaps"><h2>3. Evidence gaps</h2><p>Evidence that could not be collected or read. '
        "Checks that needed it are NOT ASSESSED.</p>"
        f"{table(['Target', 'Where', 'What happened', 'What to do'], rows, ident='gaps-table')}</section>"
    )


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
            f'<span class="pill tone-{tone}">{esc(t.status.value.upper())}</span>',
            f"{t.captures:,}",
            _reason(t),
        ]
    )


HEAD = ["Target", "Kind", "Platform", "Tier", "Role", "Collection", "Captures", "Reason and notes"]


def targets_section(data: ReportData) -> str:
    """Targets not assessed (not collected in full) first, with the reason; then every target."""
    missed = [t for t in data.targets if t.status is not TargetStatus.OK]
    if missed:
        rows = [_target_row(t) for t in sorted(missed, key=lambda t: (t.name, t.kind))]
        not_assessed = (
            "<p>Targets whose evidence was not collected in full: their checks are NOT ASSESSED or "
            f"partial.</p>{table(HEAD, rows, ident='not-assessed-table')}"
        )
    else:
        not_assessed = "<p>Every planned target was collected in full.</p>"
    everything = (
        table(HEAD, [_target_row(t) for t in sorted(data.targets, key=lambda t: (t.name, t.kind))])
        if data.targets
        else "<p>No targets were planned for this run.</p>"
    )
    return (
        '<section id="targets"><h2>4. Targets</h2>'
        f'<h3 id="not-assessed">Targets not assessed</h3>{not_assessed}'
        f"<details><summary>All {len(data.targets):,} targets and their collection status</summary>"
        f"{everything}</details>{redactions(data)}</section>"
    )


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
        f"<p>{r.redactions:,} secret(s) replaced in the stored captures ({esc(rules)}){esc(refused)}. "
        "The report holds counts only, never a redacted value.</p>"
    )
