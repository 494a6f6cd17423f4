"""The artifacts the frameworks ask for, as their own sections: the switch-port segregation manifest,
the default-deny declarations and the flow-log analysis (the lateral-movement analysis is in lateral.py)."""

from __future__ import annotations

from reportlab.platypus import Flowable, Paragraph

from reports.labels import utc_text
from reports.pdf.grid import CHAR_W, _lines, chunked, plain_tables, status_cell
from reports.pdf.styles import Styles
from reports.pdf.tables import SHORT_LIMIT, TEXT_LIMIT, Cell, _scaled
from reports.pdf.text import esc
from reports.sections.records import DefaultDenyRow, FlowAnalysis, PortManifest

BODY_PORT_GROUPS = 120
PORT_STYLE = [("FONTNAME", (0, 1), (0, -1), "Helvetica-Bold")]


def port_anchor(index: int) -> str:
    return f"port-{index}"


def ports_section(ports: PortManifest, styles: Styles, width: float, listing: bool) -> list[Flowable]:
    out: list[Flowable] = [
        Paragraph(
            f"{ports.total:,} switch ports on {ports.devices:,} devices, grouped by tier, VRF (routed "
            "ports), VLANs (switchports) and tenant. The tier is the port manifest's where the config "
            "declares the port, else the device's. Port placement is judged by the port-segregation checks: "
            f"<b>{esc(ports.result)}</b>.",
            styles.body,
        )
    ]
    if not ports.groups:
        return [*out, Paragraph("No switch port was read in this run.", styles.body)]
    listed = {f"{r.device} {r.port}": i for i, r in enumerate(ports.rows)} if listing else {}

    def tier_cell(tier: str, example: str) -> Cell:
        """The tier, linking to the group's first port in the listing when the listing holds it."""
        if example in listed:
            return Cell(f'<a href="#{port_anchor(listed[example])}"><b>{esc(tier)}</b></a>', styles.cell)
        return Cell(f"<b>{esc(tier)}</b>", styles.cell)

    rows = [
        [
            tier_cell(g.tier, g.example),
            Cell(esc(g.vrf), styles.cell_mono),
            Cell(esc(g.vlans), styles.cell_mono),
            Cell(esc(g.tenant, empty="-"), styles.cell),
            Cell(f"{g.devices:,}", styles.cell_right),
            Cell(f"{g.ports:,}", styles.cell_right),
            Cell(esc(g.example, limit=SHORT_LIMIT), styles.cell_mono),
        ]
        for g in ports.groups[:BODY_PORT_GROUPS]
    ]
    out += chunked(
        ["Tier", "VRF", "VLANs", "Tenant", "Devices", "Ports", "Example"],
        rows,
        [80, 110, 110, 90, 50, 50, 200],
        width,
        styles,
    )
    if len(ports.groups) > BODY_PORT_GROUPS:
        rest = ports.groups[BODY_PORT_GROUPS:]
        out.append(
            Paragraph(
                f"and {len(rest):,} smaller groups ({sum(g.ports for g in rest):,} ports).", styles.note
            )
        )
    if listing:
        shown = len(ports.rows)
        where = 'the <a href="#port-listing">port listing appendix</a>' + (
            f" (its first {shown:,}; every port is in the run's facts in the evidence pack)"
            if shown < ports.total
            else ""
        )
        out.append(Paragraph(f"Each port with its declared assignment: {where}.", styles.note))
    return out


def ports_listing(ports: PortManifest, styles: Styles, width: float) -> list[Flowable]:
    """Each port as plain-string cells (thousands of rows lay out in seconds), in chunked tables."""
    cols = _scaled([130, 80, 90, 90, 80, 60, 70, 160], width)
    chars = [max(4, int((w - 7) / CHAR_W)) for w in cols]
    firsts = {g.example for g in ports.groups}  # the summary's groups link to their first port
    rows = [
        [
            Cell(f'<a name="{port_anchor(i)}"/>{esc(r.device)}', styles.cell_bold)
            if f"{r.device} {r.port}" in firsts
            else _lines(r.device, chars[0]),
            _lines(r.port, chars[1]),
            _lines(f"{r.kind}, {r.mode}", chars[2]),
            _lines(r.vrf, chars[3]),
            _lines(r.vlans, chars[4]),
            r.tier,
            _lines(r.tenant or "-", chars[6]),
            _lines(r.declared or "not in the manifest", chars[7]),
        ]
        for i, r in enumerate(ports.rows)
    ]
    intro = Paragraph(
        f"{len(ports.rows):,} of {ports.total:,} switch ports"
        + (
            ""
            if len(ports.rows) == ports.total
            else " (the rest are in the run's facts in the evidence pack)"
        )
        + ", by device and port.",
        styles.body,
    )
    names = ["Device", "Port", "Kind, mode", "VRF", "VLANs", "Tier", "Tenant", "Declared in the manifest"]
    return [intro, *plain_tables(names, rows, cols, styles, PORT_STYLE)]


def default_deny_section(rows: list[DefaultDenyRow], styles: Styles, width: float) -> list[Flowable]:
    out: list[Flowable] = [
        Paragraph(
            "Each family of filters per scope: how many there are, how many deny by default and how many "
            "open to any source. The result is the worst outcome of the checks that judge the family.",
            styles.body,
        )
    ]
    if not rows:
        return [
            *out,
            Paragraph(
                "No security group, network ACL, device ACL or Kubernetes policy was read.", styles.body
            ),
        ]
    body = [
        [
            Cell(f"<b>{esc(r.family)}</b>", styles.cell),
            Cell(esc(r.scope, limit=SHORT_LIMIT), styles.cell_mono),
            Cell(f"{r.total:,}", styles.cell_right),
            Cell(f"{r.deny_by_default:,}", styles.cell_right),
            Cell(f"{r.opening:,}", styles.cell_right),
            Cell(esc(r.detail, limit=TEXT_LIMIT), styles.cell),
            status_cell(r.status, styles, r.result),
            Cell(esc(", ".join(r.checks)), styles.cell_muted),
        ]
        for r in rows
    ]
    names = ["Family", "Scope", "Total", "Deny by default", "Open", "What counts", "Result", "Checks"]
    return out + chunked(names, body, [90, 120, 40, 50, 40, 170, 90, 120], width, styles)


def flows_section(flows: FlowAnalysis, styles: Styles, width: float) -> list[Flowable]:
    out: list[Flowable] = [
        Paragraph("Flow-log sources read", styles.h2),
    ]
    if flows.sources:
        rows = [
            [
                Cell(esc(s.source, limit=SHORT_LIMIT), styles.cell_mono),
                Cell(f"{s.files:,}", styles.cell_right),
                Cell(f"{s.records:,}", styles.cell_right),
                Cell(f"{s.accepted:,}", styles.cell_right),
                Cell(f"{s.rejected:,}", styles.cell_right),
                Cell(f"{s.unusable:,}", styles.cell_right),
                Cell(f"{esc(utc_text(s.first_seen))}<br/>{esc(utc_text(s.last_seen))}", styles.cell),
            ]
            for s in flows.sources
        ]
        out += chunked(
            ["Source", "Files", "Records", "Accepted", "Rejected", "Unusable", "Window (first, last record)"],
            rows,
            [260, 40, 50, 50, 50, 50, 130],
            width,
            styles,
        )
    else:
        out.append(Paragraph("No flow-log records were read in this run.", styles.body))
    out.append(Paragraph("Flows between zones", styles.h2))
    if flows.classes:
        rows = [
            [
                Cell(f"<b>{esc(c.source)}</b>", styles.cell),
                Cell(f"<b>{esc(c.destination)}</b>", styles.cell),
                Cell(
                    esc(c.action),
                    styles.cell_bold if c.action == "ACCEPT" and c.source != c.destination else styles.cell,
                ),
                Cell(f"{c.conversations:,}", styles.cell_right),
                Cell(f"{c.records:,}", styles.cell_right),
                Cell(f"{c.packets:,}", styles.cell_right),
            ]
            for c in flows.classes
        ]
        out.append(
            Paragraph(
                "Conversations by the declared zone of their source and destination address (a tier by its "
                "CIDRs; internet: public space; other internal: private space no tier declares). Cross-zone "
                "conversations first.",
                styles.note,
            )
        )
        out += chunked(
            ["From", "Into", "Action", "Conversations", "Records", "Packets"],
            rows,
            [120, 120, 70, 80, 80, 80],
            width,
            styles,
        )
    out.append(
        Paragraph("Unauthorised attempts, DNS to unapproved resolvers and cross-tier flows", styles.h2)
    )
    if flows.findings:
        rows = [
            [
                Cell(f"<b>{esc(r.category)}</b>", styles.cell),
                Cell(esc(r.check_id), styles.cell),
                Cell(esc(r.subject, limit=SHORT_LIMIT), styles.cell_mono),
                Cell(esc(r.found, limit=TEXT_LIMIT), styles.cell),
                status_cell(r.status, styles),
            ]
            for r in flows.findings
        ]
        out += chunked(
            ["Category", "Check", "Flow", "Found", "Status"], rows, [120, 140, 160, 250, 60], width, styles
        )
        if flows.findings_total > len(flows.findings):
            out.append(
                Paragraph(
                    f"{flows.findings_total - len(flows.findings):,} more in the complete findings listing.",
                    styles.note,
                )
            )
    else:
        out.append(Paragraph("No failing flow finding in this run.", styles.body))
    out.append(Paragraph("Retention and immutability of the logs", styles.h2))
    out.append(Paragraph(esc(flows.coverage), styles.body))
    if flows.retention_days is not None:
        out.append(Paragraph(f"Declared minimum retention: {flows.retention_days:,} days.", styles.body))
    if flows.stores:
        rows = [
            [
                Cell(esc(s.destination, limit=SHORT_LIMIT), styles.cell_mono),
                Cell(esc(s.kind), styles.cell),
                Cell(esc(s.immutability), styles.cell),
                Cell(esc(s.retention), styles.cell),
                status_cell(s.status, styles),
            ]
            for s in flows.stores
        ]
        out += chunked(
            ["Destination", "Kind", "Immutability", "Retention", "Status"],
            rows,
            [260, 70, 200, 100, 80],
            width,
            styles,
        )
    else:
        out.append(Paragraph("No flow-log destination was read in this run.", styles.body))
    return out
