"""The cover page: what was audited, when, by which tool and config, and the hashes that pin the pack.

An auditor should be able to identify the run and check the evidence chain from this page alone."""

from __future__ import annotations

import re

from reportlab.lib.units import mm
from reportlab.platypus import Flowable, HRFlowable, Paragraph, Spacer, Table, TableStyle

from auditor.enums import Status, TargetStatus, WaiverState
from reports.labels import (
    STATUS_LABEL,
    STATUS_PRIORITY,
    declared_tiers_text,
    duration_text,
    status_totals,
    utc_text,
    verdict,
    waived_count,
)
from reports.model import ReportData
from reports.pdf.styles import MONO, NAVY, PANEL, RULE, RUN_STATUS_BG, STATUS_BG, STATUS_FG, Styles
from reports.pdf.text import esc, hex_lines
from reports.pdf.toc import Heading

LABEL_WIDTH = 130.0
CELL_PAD = 6.0
_FINGERPRINT = re.compile(r"SHA256:[0-9a-f]+")


def chain_text(data: ReportData) -> tuple[str, Status]:
    """Whether the evidence chain verified when this pack was built, and the first mismatch if not."""
    v = data.verification
    if v is None:
        return (
            "NOT VERIFIED: the chain was not recomputed for this report (run `auditor verify`)",
            Status.ERROR,
        )
    seal = "UNSIGNED" if v.signature == "unsigned" else "signed (the key is named below)"
    if v.verified:
        return (
            f"CHAIN VERIFIED at report time: {v.captures_checked:,} captures, seal and digests recomputed; "
            f"seal {seal}",
            (Status.PASS),
        )
    m = v.mismatch
    where = f" at capture #{m.seq} ({m.target}: {m.source})" if m is not None and m.seq is not None else ""
    detail = f"{m.what}{where}: {m.detail}" if m is not None else "unknown mismatch"
    return f"CHAIN NOT VERIFIED: {detail}; seal {seal}", Status.FAIL


def _waivers_text(data: ReportData) -> str:
    waived = waived_count(data)
    expired = [u for u in data.waivers if u.state is WaiverState.EXPIRED]
    text = f"{waived:,} failing finding{'s' if waived != 1 else ''} waived"
    text += f" by {len(data.waivers) - len(expired)} waiver(s) in force" if data.waivers else ""
    if expired:
        text += f"; {len(expired)} waiver(s) EXPIRED and no longer applied (section 10)"
    return esc(text)


def _kv_table(rows: list[tuple[str, str]], styles: Styles, width: float, *, mono: bool = False) -> Table:
    value_style = styles.mono if mono else styles.value
    body = [[Paragraph(esc(k), styles.label), Paragraph(v, value_style)] for k, v in rows]
    table = Table(body, colWidths=[LABEL_WIDTH, width - LABEL_WIDTH], hAlign="LEFT")
    table.setStyle(
        TableStyle(
            [
                ("VALIGN", (0, 0), (-1, -1), "TOP"),
                ("LINEBELOW", (0, 0), (-1, -1), 0.4, RULE),
                ("LEFTPADDING", (0, 0), (-1, -1), CELL_PAD),
                ("RIGHTPADDING", (0, 0), (-1, -1), CELL_PAD),
                ("TOPPADDING", (0, 0), (-1, -1), 2.5),
                ("BOTTOMPADDING", (0, 0), (-1, -1), 2.5),
                ("BACKGROUND", (0, 0), (0, -1), PANEL),
            ]
        )
    )
    return table


def _digest_rows(data: ReportData, per_line: int) -> list[tuple[str, str]]:
    run = data.run
    return [
        ("Evidence chain head", f"<b>{hex_lines(run.chain_head, per_line)}</b>"),
        ("Config SHA-256", hex_lines(run.config_sha256, per_line)),
        ("Facts digest", hex_lines(run.facts_digest, per_line)),
        ("Findings digest", hex_lines(run.findings_digest, per_line)),
    ]


def signature_text(data: ReportData) -> tuple[str, Status]:
    """Who sealed the run, in plain sight: the signing key's fingerprint, or UNSIGNED."""
    v = data.verification
    if v is None:
        return "UNKNOWN: the seal was not checked for this report", Status.ERROR
    if v.signature == "unsigned":
        return (
            "UNSIGNED: no signing key sealed this run; the chain proves the evidence is intact, nothing "
            "proves who sealed it",
            Status.NOT_ASSESSED,
        )
    fp = _FINGERPRINT.search(v.signature)
    text = esc(v.signature[0].upper() + v.signature[1:])
    return (text if fp is None else text.replace(fp.group(), f"<b>{fp.group()}</b>")), Status.PASS


def verify_commands(data: ReportData) -> str:
    """The two commands that check this report's evidence: from the evidence pack (no store, no network)
    and against the evidence store of the run."""
    from reports.pack import pack_name  # noqa: PLC0415 (the pack module renders this PDF: no import cycle)

    run = data.run
    v = data.verification
    signed = v is not None and v.signature != "unsigned"
    pack = f"{pack_name(run.id, signed)}.tar.gz"
    pin = " --pubkey PUBLIC_KEY.pem" if signed else ""
    from_pack = f"auditor verify {esc(pack)}{pin}"
    from_store = f"auditor verify --run {run.id} -c auditor.yaml"
    return (
        f'From the evidence pack, with no store: <font face="{MONO}">{from_pack}</font><br/>'
        f'Against the evidence store: <font face="{MONO}">{from_store}</font>'
    )


def _targets_text(data: ReportData) -> str:
    counts = {s: sum(1 for t in data.targets if t.status is s) for s in TargetStatus}
    parts = [f"{counts[s]} {s.value}" for s in TargetStatus if counts[s]]
    return esc(f"{len(data.targets)} ({', '.join(parts)})" if parts else "0")


def _banner(data: ReportData, styles: Styles, width: float) -> Table:
    totals = status_totals(data)
    waived = waived_count(data)
    headline, tone = verdict(totals, waived)
    status = tone or Status.NOT_ASSESSED  # only waived failures: the tint of an open question
    detail = " · ".join(
        f"{totals[s]} {STATUS_LABEL[s]}" + (f" ({waived} waived)" if s is Status.FAIL and waived else "")
        for s in sorted(Status, key=STATUS_PRIORITY.__getitem__)
    )
    body = [
        [
            Paragraph(f"<b>{esc(headline)}</b>", styles.banner),
            Paragraph(esc(f"{len(data.findings):,} findings: {detail}"), styles.value),
        ]
    ]
    table = Table(body, colWidths=[LABEL_WIDTH + 40, width - LABEL_WIDTH - 40], hAlign="LEFT")
    table.setStyle(
        TableStyle(
            [
                ("BACKGROUND", (0, 0), (-1, -1), STATUS_BG[status]),
                ("LINEBEFORE", (0, 0), (0, 0), 4, STATUS_FG[status]),
                ("VALIGN", (0, 0), (-1, -1), "MIDDLE"),
                ("TOPPADDING", (0, 0), (-1, -1), 8),
                ("BOTTOMPADDING", (0, 0), (-1, -1), 8),
                ("LEFTPADDING", (0, 0), (-1, -1), 10),
            ]
        )
    )
    return table


def _finished_text(data: ReportData) -> str:
    run = data.run
    if run.finished_at is None:
        return utc_text(None)
    return f"{utc_text(run.finished_at)} (after {duration_text(run.started_at, run.finished_at)})"


def _audited(data: ReportData, styles: Styles) -> list[Flowable]:
    """Who and which period the audit covers, when the config says (organisation, audit_period)."""
    run = data.run
    out: list[Flowable] = []
    if run.organisation:
        out.append(Paragraph(f"<b>Organisation.</b> {esc(run.organisation)}", styles.body))
    if run.audit_period is not None:
        start, end = run.audit_period
        days = (end - start).days + 1
        span = f"{start.isoformat()} to {end.isoformat()} ({days:,} day{'s' * (days != 1)})"
        out.append(Paragraph(f"<b>Audit period.</b> {span}", styles.body))
    return out


def cover_page(data: ReportData, styles: Styles, width: float) -> list[Flowable]:
    """The flowables of page one."""
    run = data.run
    per_line = max(16, int((width - LABEL_WIDTH - 2 * CELL_PAD) // (0.6 * styles.mono.fontSize)))
    run_rows = [
        ("Run ID", f"<b>{run.id}</b>"),
        ("Run status", f"<b>{esc(run.status.value.upper())}</b>"),
        ("Started", esc(utc_text(run.started_at))),
        ("Finished", esc(_finished_text(data))),
        ("Report generated", esc(utc_text(data.generated_at))),
        ("Tool version", esc(f"segmentation-auditor {run.tool_version}")),
        ("Declared tiers", esc(declared_tiers_text(data))),
        ("Targets", _targets_text(data)),
        ("Evidence captures", f"{run.capture_count:,}"),
        ("Normalized facts", f"{run.fact_count:,}"),
        ("Findings", f"{len(data.findings):,} from {len(data.checks):,} checks"),
        ("Evidence gaps", f"{len(data.problems):,}"),
        ("Waivers", _waivers_text(data)),
        ("Report schema", esc(data.schema_version)),
    ]
    run_table = _kv_table(run_rows, styles, width)
    run_table.setStyle(TableStyle([("BACKGROUND", (1, 1), (1, 1), RUN_STATUS_BG[run.status])]))
    chain, chain_status = chain_text(data)
    signature, signature_status = signature_text(data)
    chain_table = _kv_table(
        [("Evidence chain", f"<b>{esc(chain)}</b>"), ("Seal signature", f"<b>{signature}</b>")], styles, width
    )
    chain_table.setStyle(
        TableStyle(
            [
                ("BACKGROUND", (1, 0), (1, 0), STATUS_BG[chain_status]),
                ("BACKGROUND", (1, 1), (1, 1), STATUS_BG[signature_status]),
            ]
        )
    )
    return [
        Spacer(1, 2 * mm),
        Paragraph("SEGMENTATION AUDITOR · EVIDENCE PACK", styles.eyebrow),
        Spacer(1, 4),
        Heading(
            "Network Segmentation Audit", styles.title, "cover", toc=False, outline=f"Cover: run {run.id}"
        ),
        Paragraph("AI GPU cluster: out-of-band management, frontend and backend RDMA tiers", styles.subtitle),
        Spacer(1, 8),
        HRFlowable(width="100%", thickness=1.6, color=NAVY, spaceAfter=10),
        *_audited(data, styles),
        Paragraph(f"<b>Scope.</b> {esc(run.scope)}", styles.body),
        Spacer(1, 4),
        _banner(data, styles, width),
        Spacer(1, 14),
        Paragraph("Run", styles.h2),
        run_table,
        Spacer(1, 6),
        Paragraph("Integrity", styles.h2),
        chain_table,
        _kv_table(_digest_rows(data, per_line), styles, width, mono=True),
        _kv_table([("Verify it yourself", verify_commands(data))], styles, width),
        Spacer(1, 6),
        Paragraph(
            "Every capture is hashed (SHA-256) and chained to the one before it. The chain head above "
            "commits to all captures of this run in order: any altered, missing or reordered capture changes "
            "it. The first 16 hex digits of the chain head are repeated in the footer of every page.",
            styles.note,
        ),
    ]
