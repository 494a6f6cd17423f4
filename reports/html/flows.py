"""What the traffic shows: the flow-log analysis (sources, zone-to-zone conversations, unauthorised and
cross-tier flows, where the logs are kept and for how long) and the lateral paths, hop by hop."""

from __future__ import annotations

from reports.html.markup import esc, pill, row, status_pill, table
from reports.labels import utc_text
from reports.sections.records import FlowAnalysis, LateralAnalysis, LateralPath


def flows_section(flows: FlowAnalysis) -> str:
    retention = f"{flows.retention_days:,} days" if flows.retention_days is not None else "not declared"
    sources = [
        row(
            [
                esc(s.source),
                f"{s.files:,}",
                f"{s.records:,}",
                f"{s.accepted:,}",
                f"{s.rejected:,}",
                f"{s.unusable:,}",
                esc(utc_text(s.first_seen)),
                esc(utc_text(s.last_seen)),
            ]
        )
        for s in flows.sources
    ]
    classes = [
        row(
            [
                esc(c.source),
                esc(c.destination),
                esc(c.action),
                f"{c.conversations:,}",
                f"{c.records:,}",
                f"{c.packets:,}",
            ],
            cls="reject" if c.action == "REJECT" else "",
        )
        for c in flows.classes
    ]
    found = [
        row(
            [
                esc(f.category),
                f"<strong>{esc(f.check_id)}</strong>",
                esc(f.subject),
                esc(f.found),
                pill(f.status.value, f.status.value),
            ]
        )
        for f in flows.findings
    ]
    more = len(flows.findings) < flows.findings_total
    stores = [
        row([esc(s.destination), esc(s.kind), esc(s.immutability), esc(s.retention), status_pill(s.status)])
        for s in flows.stores
    ]
    parts = [
        f"<p><strong>Coverage.</strong> {esc(flows.coverage)}. <strong>Declared retention.</strong> "
        f"{esc(retention)}.</p>",
        "<h3>Flow-log sources</h3>",
        table(["Source", "Files", "Records", "Accepted", "Rejected", "Unusable", "First", "Last"], sources)
        if sources
        else "<p>No flow logs were read in this run.</p>",
        "<h3>Conversations between zones</h3>",
        table(["From", "To", "Action", "Conversations", "Records", "Packets"], classes, ident="flow-classes")
        if classes
        else "<p>No conversations were classified.</p>",
        "<h3>Unauthorised, unapproved-resolver and cross-tier flows</h3>",
        table(["Category", "Check", "Subject", "Found", "Status"], found, ident="flow-findings")
        if found
        else "<p>No failing flow finding.</p>",
        f'<p class="note">The first {len(flows.findings):,} of {flows.findings_total:,}; the findings '
        "table has all.</p>"
        if more
        else "",
        "<h3>Where the logs are kept</h3>",
        table(["Destination", "Kind", "Immutability", "Retention", "Result"], stores)
        if stores
        else "<p>No flow-log destination was observed.</p>",
    ]
    return f'<section id="flows"><h2>7. Flow-log analysis</h2>{"".join(parts)}</section>'


def _path(p: LateralPath) -> str:
    hops = "".join(
        f"<li><strong>{esc(h.source)}</strong> → <strong>{esc(h.destination)}</strong>: {esc(h.allows)}"
        + (f'<ul class="via">{"".join(f"<li>{esc(v)}</li>" for v in h.via)}</ul>' if h.via else "")
        + "</li>"
        for h in p.hops
    )
    return (
        f'<div class="path"><h3>{esc(p.subject)}</h3><p>{pill(p.status.value, p.status.value)} '
        f"{esc(p.severity.value.upper())} · from {esc(p.source)} into tier {esc(p.target_tier)}, "
        f'{len(p.hops)} hop{"s" if len(p.hops) != 1 else ""}</p><ol class="hops">{hops}</ol></div>'
    )


def lateral_section(lateral: LateralAnalysis) -> str:
    summary = (
        f"<p>{lateral.checked:,} zone-to-tier pairs examined: {lateral.passed:,} without a path, "
        f"{len(lateral.paths):,} with one, {lateral.not_assessed:,} not assessed. Each path below is "
        "drawn hop by hop, with the routes, policies and rules that allow each hop.</p>"
    )
    paths = (
        "".join(_path(p) for p in lateral.paths) or "<p>No lateral path into tier 1 or tier 3 was found.</p>"
    )
    return f'<section id="lateral"><h2>8. Lateral-movement analysis</h2>{summary}{paths}</section>'
