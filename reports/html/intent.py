"""Declared against observed: the tiers as declared with what was seen crossing between them (an inline
SVG drawing and the same as a table), the trend over earlier runs, and the segmentation matrix."""

from __future__ import annotations

from collections import defaultdict

from reports.html.markup import esc, row, status_pill, table
from reports.html.summary import bar
from reports.labels import STATUS_LABEL, STATUS_ORDER, TIER_LABEL, utc_text
from reports.sections.common import words
from reports.sections.records import Crossing, MatrixRow, TierPicture, TrendPoint

ZONES = ["internet", "frontend", "backend", "oob"]
ZONE_LABEL = {"internet": "Internet", "frontend": "Tier 2 · Frontend", "backend": "Tier 3 · Backend RDMA"}
ZONE_LABEL["oob"] = "Tier 1 · Out-of-band"
BOX_W, BOX_H, GAP, LANE = 200, 64, 60, 24


def trend_table(trend: list[TrendPoint]) -> str:
    """Findings per status of each run of the same scope, oldest first, this run marked."""
    if len(trend) < 2:
        return "<p>No earlier run of the same scope is in the store: there is no trend yet.</p>"
    scale = max(sum(p.counts.values()) for p in trend)
    rows = []
    for p in trend:
        label = f"run {p.run_id}" + (" (this run)" if p.current else "")
        segments = [(s.value, STATUS_LABEL[s], p.counts.get(s.value, 0)) for s in STATUS_ORDER]
        rows.append(
            row(
                [f"<strong>{esc(label)}</strong>", esc(utc_text(p.started_at)), esc(p.run_status)]
                + [f"{p.counts.get(s.value, 0):,}" for s in STATUS_ORDER]
                + [bar(label, segments, scale)],
                cls="current" if p.current else "",
            )
        )
    head = ["Run", "Started", "Status", *[esc(STATUS_LABEL[s]) for s in STATUS_ORDER], "Findings"]
    return table(head, rows, cls="grid counts", ident="trend-table")


def _x(slot: int) -> int:
    return 20 + slot * (BOX_W + GAP)


def _lanes(pairs: list[tuple[str, str]], slot: dict[str, int]) -> dict[tuple[str, str], int]:
    """A lane per crossing, counted apart above (left to right) and below (right to left); short spans
    get the inner lanes so lines cross as little as possible."""
    lanes: dict[tuple[str, str], int] = {}
    for above in (True, False):
        mine = [p for p in pairs if (slot[p[0]] < slot[p[1]]) == above]
        mine.sort(key=lambda p: (abs(slot[p[1]] - slot[p[0]]), min(slot[p[0]], slot[p[1]])))
        lanes.update({p: k for k, p in enumerate(mine)})
    return lanes


def tiers_drawing(picture: TierPicture) -> str:
    """The zones side by side; each observed crossing an arrow from its source into its tier, routed in
    its own lane above (left to right) or below (right to left) and labelled with its count."""
    seen = {c.source for c in picture.crossings} | {c.target for c in picture.crossings}
    zones = ZONES + sorted(seen - set(ZONES))
    declared = {b.tier.value: b.declared for b in picture.boxes}
    slot = {z: i for i, z in enumerate(zones)}
    pairs: dict[tuple[str, str], list[Crossing]] = defaultdict(list)
    for c in picture.crossings:
        pairs[(c.source, c.target)].append(c)
    lanes = _lanes(sorted(pairs), slot)
    n_above = sum(1 for a, b in pairs if slot[a] < slot[b])
    n_below = len(pairs) - n_above
    top = 24 + LANE * n_above
    width, height = _x(len(zones)), top + BOX_H + 24 + LANE * n_below
    parts = [
        '<defs><marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" '
        'orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" class="arrowhead"/></marker></defs>'
    ]
    for z in zones:
        x = _x(slot[z])
        dashed = "" if z == "internet" or declared.get(z, False) else " undeclared"
        state = "outside" if z == "internet" else ("declared" if declared.get(z, False) else "not declared")
        parts.append(
            f'<g class="zone zone-{esc(z)}{dashed}">'
            f'<rect x="{x}" y="{top}" width="{BOX_W}" height="{BOX_H}" rx="6"/>'
            f'<text x="{x + BOX_W // 2}" y="{top + 30}" text-anchor="middle" class="zone-name">'
            f"{esc(ZONE_LABEL.get(z, z))}</text>"
            f'<text x="{x + BOX_W // 2}" y="{top + 50}" text-anchor="middle" class="zone-state">'
            f"{esc(state)}</text></g>"
        )
    for (source, target), items in sorted(pairs.items(), key=lambda kv: -lanes[kv[0]]):
        a, b, k = slot[source], slot[target], lanes[(source, target)]
        above = a < b
        spread = 14 * (k % 4) - 21  # start and end points apart, so lanes do not share a vertical
        x0, x1 = _x(a) + BOX_W // 2 + spread, _x(b) + BOX_W // 2 - spread
        edge = top if above else top + BOX_H
        lane = edge - 16 - LANE * k if above else edge + 16 + LANE * k
        count = sum(c.count for c in items)
        checks = words(c.check_id for c in items)
        examples = words((e for c in items for e in c.examples), shown=3)
        into = f"{ZONE_LABEL.get(source, source)} into {ZONE_LABEL.get(target, target)}"
        tip = f"{into}: {count} failing finding(s) of {checks}; e.g. {examples}"
        parts.append(
            f'<g class="crossing"><title>{esc(tip)}</title>'
            f'<path d="M{x0},{edge} V{lane} H{x1} V{edge}" marker-end="url(#arrow)"/>'
            f'<text x="{(x0 + x1) // 2}" y="{lane - 4 if above else lane + 14}" text-anchor="middle">'
            f"{count} finding{'s' if count != 1 else ''}: {esc(ZONE_LABEL.get(source, source))} into "
            f"{esc(ZONE_LABEL.get(target, target))}</text></g>"
        )
    label = f"The tiers as declared; {len(pairs)} observed crossing(s) between zones drawn as arrows"
    return (
        f'<svg class="tiers" viewBox="0 0 {width} {height}" width="{width}" height="{height}" role="img" '
        f'aria-label="{esc(label)}">{"".join(parts)}</svg>'
    )


def tiers_section(picture: TierPicture) -> str:
    boxes = [
        row(
            [
                f"<strong>{esc(TIER_LABEL[b.tier])}</strong>",
                "declared" if b.declared else "<em>not declared: its checks are NOT APPLICABLE</em>",
                esc(words(b.cidrs)),
                esc(words(b.vrfs)),
                esc(words(b.vlans)),
                esc(words(b.notes, empty="—")),
            ]
        )
        for b in picture.boxes
    ]
    crossings = [
        row(
            [
                esc(ZONE_LABEL.get(c.source, c.source)),
                esc(ZONE_LABEL.get(c.target, c.target)),
                f"<strong>{esc(c.check_id)}</strong>",
                f"{c.count:,}",
                esc(words(c.examples, shown=3)),
            ]
        )
        for c in sorted(picture.crossings, key=lambda c: (c.source, c.target, c.check_id))
    ]
    observed = (
        table(
            ["From", "Into", "Check", "Failing findings", "For example"], crossings, ident="crossings-table"
        )
        if crossings
        else "<p>Nothing was observed crossing between the tiers.</p>"
    )
    return (
        '<section id="tiers"><h2>2. The tiers and what crosses them</h2>'
        "<p>The three tiers as the audit config declares them. Each arrow is observed traffic, routing or "
        "reachability from one zone into a tier: the failing findings of one or more checks.</p>"
        f'<div class="scroll">{tiers_drawing(picture)}</div>'
        f"<h3>As declared</h3>{table(['Tier', 'Declared', 'CIDRs', 'VRFs', 'VLANs', 'Also'], boxes)}"
        f"<h3>Observed crossings</h3>{observed}</section>"
    )


def matrix_section(rows: list[MatrixRow], notes: list[str]) -> str:
    body = [
        row(
            [
                f"<strong>{esc(TIER_LABEL[r.tier])}</strong>",
                esc(r.aspect),
                esc(r.declared),
                esc(r.observed),
                status_pill(r.status, r.result),
                esc(words(r.checks)),
            ]
        )
        for r in rows
    ]
    shown = (
        table(["Tier", "Aspect", "Declared", "Observed", "Result", "Checks"], body, ident="matrix-table")
        if body
        else "<p>No aspect of the segmentation could be compared for this run.</p>"
    )
    extra = "".join(f'<p class="note">{esc(n)}</p>' for n in notes)
    return (
        '<section id="matrix"><h2>3. Segmentation matrix</h2>'
        "<p>Per tier, what the config declares beside what the evidence shows, and the worst result of the "
        f"checks that compare them.</p>{extra}{shown}</section>"
    )
