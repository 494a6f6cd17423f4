"""The chain of custody: every capture with its source, command or API call, time and SHA-256,
summarised per target kind and format, then listed in full (folded)."""

from __future__ import annotations

from reports.html.markup import esc, row, table
from reports.labels import utc_text
from reports.sections.records import Custody

LISTING_LIMIT = 20_000  # rows in the page; the pack's captures/index.json lists every capture


def custody_section(custody: Custody, capture_count: int) -> str:
    summary = [
        row(
            [
                f"<strong>{esc(s.group)}</strong>",
                f"{s.targets:,}",
                f"{s.captures:,}",
                f"{s.bytes:,}",
                esc(utc_text(s.first)),
                esc(utc_text(s.last)),
                f"#{s.first_seq} to #{s.last_seq}",
            ]
        )
        for s in custody.summary
    ]
    shown = custody.rows[:LISTING_LIMIT]
    listing = [
        row(
            [
                f"{c.seq}",
                esc(c.target),
                esc(c.source),
                esc(c.origin),
                esc(c.format),
                esc(utc_text(c.collected_at)),
                f'<code class="hash">{esc(c.sha256)}</code>',
                f"{c.size:,}",
            ]
        )
        for c in shown
    ]
    if not custody.rows:
        return (
            '<section id="custody"><h2>14. Chain of custody</h2><p>No capture of this run was read for this '
            f"report ({capture_count:,} in the run).</p></section>"
        )
    cut = (
        f" (the first {len(shown):,}; captures/index.json of the pack lists all)"
        if len(shown) < len(custody.rows)
        else ""
    )
    return (
        '<section id="custody"><h2>14. Chain of custody</h2>'
        "<p>Each capture as collected: the target, the command or API call, where it came from, when, and "
        "the SHA-256 of its (redacted) bytes; each is chained to the one before it.</p>"
        + table(["Targets and format", "Targets", "Captures", "Bytes", "First", "Last", "Sequence"], summary)
        + f"<details><summary>Every capture, {len(custody.rows):,} in chain order"
        + f"{esc(cut, empty='')}</summary>"
        + table(
            ["#", "Target", "Command or API call", "From", "Format", "Collected", "SHA-256", "Bytes"],
            listing,
            ident="custody-table",
        )
        + "</details></section>"
    )
