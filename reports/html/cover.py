"""The head of the report: who and what was audited, the verdict, the run, the hashes that pin it, and
the commands that verify it. An auditor should be able to identify the run and check it from here."""

from __future__ import annotations

from auditor.enums import Status, TargetStatus, WaiverState
from reports.html.markup import esc
from reports.labels import (
    STATUS_LABEL,
    STATUS_ORDER,
    declared_tiers_text,
    duration_text,
    status_totals,
    utc_text,
    verdict,
    waived_count,
)
from reports.model import ReportData


def _kv(rows: list[tuple[str, str, str]]) -> str:
    """A two-column facts table: label, value markup, and a tone class for the value cell."""
    body = "".join(
        f'<tr><th scope="row">{esc(k)}</th><td class="{tone}">{v}</td></tr>' for k, v, tone in rows
    )
    return f'<table class="facts"><tbody>{body}</tbody></table>'


def _targets(data: ReportData) -> str:
    counts = {s: sum(1 for t in data.targets if t.status is s) for s in TargetStatus}
    parts = [f"{counts[s]} {s.value}" for s in TargetStatus if counts[s]]
    text = f"{len(data.targets)} ({', '.join(parts)})" if parts else "0"
    if len(data.targets) > counts[TargetStatus.OK]:
        text += ": see “Targets not assessed”"
    return esc(text)


def _waivers(data: ReportData) -> str:
    waived = waived_count(data)
    expired = sum(1 for u in data.waivers if u.state is WaiverState.EXPIRED)
    text = f"{waived:,} failing finding{'s' if waived != 1 else ''} waived"
    if data.waivers:
        text += f" by {len(data.waivers) - expired} waiver(s) in force"
    if expired:
        text += f"; {expired} waiver(s) EXPIRED and no longer applied"
    return esc(text)


def chain_text(data: ReportData) -> tuple[str, str]:
    """Whether the evidence chain verified when the report was built, and the first mismatch if not."""
    v = data.verification
    if v is None:
        return "NOT VERIFIED: the chain was not recomputed for this report (run `auditor verify`)", "ERROR"
    if v.verified:
        return f"VERIFIED: {v.captures_checked:,} captures, the seal and the digests recomputed", "PASS"
    m = v.mismatch
    where = f" at capture #{m.seq} ({m.target}: {m.source})" if m is not None and m.seq is not None else ""
    detail = f"{m.what}{where}: {m.detail}" if m is not None else "unknown mismatch"
    return f"NOT VERIFIED: {detail}", "FAIL"


def signature_text(data: ReportData) -> tuple[str, str]:
    """Who sealed the run, in plain sight: the key's fingerprint, or UNSIGNED."""
    v = data.verification
    if v is None:
        return "UNKNOWN: the seal was not checked for this report", "ERROR"
    if v.signature == "unsigned":
        return (
            "UNSIGNED: no signing key sealed this run; the chain proves the evidence is intact, "
            "nothing proves who sealed it",
            "NOT_ASSESSED",
        )
    return v.signature[0].upper() + v.signature[1:], "PASS"


def verify_commands(data: ReportData) -> list[str]:
    """The commands that check this report's evidence: from the pack (no store) and from the store."""
    from reports.pack import pack_name  # noqa: PLC0415 (the pack renders this report: no import cycle)

    v = data.verification
    signed = v is not None and v.signature != "unsigned"
    pin = " --pubkey PUBLIC_KEY.pem" if signed else ""
    return [
        f"auditor verify {pack_name(data.run.id, signed)}.tar.gz{pin}",
        f"auditor verify --run {data.run.id} -c auditor.yaml",
    ]


def banner(data: ReportData) -> str:
    totals = status_totals(data)
    waived = waived_count(data)
    headline, status = verdict(totals, waived)
    tone = status.value if status else "WAIVED"
    detail = " · ".join(
        f"{totals[s]:,} {STATUS_LABEL[s]}" + (f" ({waived} waived)" if s is Status.FAIL and waived else "")
        for s in STATUS_ORDER
    )
    return (
        f'<div class="banner tone-{tone}" id="verdict"><strong>{esc(headline)}</strong>'
        f"<span>{esc(f'{len(data.findings):,} findings: {detail}')}</span></div>"
    )


def cover(data: ReportData, contents: str = "") -> str:
    """The report's header: title, who/when/what, verdict, run facts, integrity and verify commands."""
    run = data.run
    who = []
    if run.organisation:
        who.append(f"<p><strong>Organisation.</strong> {esc(run.organisation)}</p>")
    if run.audit_period is not None:
        start, end = run.audit_period
        days = (end - start).days + 1
        span = f"{start.isoformat()} to {end.isoformat()} ({days:,} day{'s' * (days != 1)})"
        who.append(f"<p><strong>Audit period.</strong> {esc(span)}</p>")
    who.append(f"<p><strong>Scope.</strong> {esc(run.scope, empty='not stated in the config')}</p>")
    finished = utc_text(run.finished_at)
    if run.finished_at is not None:
        finished += f" (after {duration_text(run.started_at, run.finished_at)})"
    facts = _kv(
        [
            ("Run ID", f"<strong>{run.id}</strong>", ""),
            ("Run status", f"<strong>{esc(run.status.value.upper())}</strong>", f"run-{run.status.value}"),
            ("Started", esc(utc_text(run.started_at)), ""),
            ("Finished", esc(finished), ""),
            ("Tool version", esc(f"segmentation-auditor {run.tool_version}"), ""),
            ("Declared tiers", esc(declared_tiers_text(data)), ""),
            ("Targets", _targets(data), ""),
            ("Evidence captures", f"{run.capture_count:,}", ""),
            ("Normalized facts", f"{run.fact_count:,}", ""),
            ("Findings", f"{len(data.findings):,} from {len(data.checks):,} checks", ""),
            ("Evidence gaps", f"{len(data.problems):,}", ""),
            ("Waivers", _waivers(data), ""),
            ("Report schema", esc(data.schema_version), ""),
        ]
    )
    chain, chain_tone = chain_text(data)
    seal, seal_tone = signature_text(data)
    integrity = _kv(
        [
            ("Evidence chain", f"<strong>{esc(chain)}</strong>", f"tone-{chain_tone}"),
            ("Seal signature", f'<strong id="signature">{esc(seal)}</strong>', f"tone-{seal_tone}"),
            ("Evidence chain head", f'<code class="hash" id="chain-head">{esc(run.chain_head)}</code>', ""),
            ("Config SHA-256", f'<code class="hash">{esc(run.config_sha256)}</code>', ""),
            ("Facts digest", f'<code class="hash">{esc(run.facts_digest)}</code>', ""),
            ("Findings digest", f'<code class="hash">{esc(run.findings_digest)}</code>', ""),
        ]
    )
    pack_cmd, store_cmd = verify_commands(data)
    verify = (
        '<ul class="commands">'
        f"<li>From the evidence pack, with no store and no network: <code>{esc(pack_cmd)}</code> "
        "(the pack may be a <code>.zip</code>: give its name)</li>"
        f"<li>Against the evidence store: <code>{esc(store_cmd)}</code></li></ul>"
    )
    return (
        '<header class="cover" id="cover">'
        '<p class="eyebrow">SEGMENTATION AUDITOR · EVIDENCE REPORT</p>'
        "<h1>Network Segmentation Audit</h1>"
        '<p class="subtitle">AI GPU cluster: out-of-band management, frontend and backend RDMA tiers</p>'
        f'<div class="who">{"".join(who)}</div>{banner(data)}</header>{contents}'
        '<section id="run"><h2>Run</h2>'
        f'{facts}</section><section id="integrity"><h2>Integrity</h2>{integrity}'
        f"<h3>Verify it yourself</h3>{verify}"
        '<p class="note">Every capture is hashed (SHA-256) and chained to the one before it. The chain head '
        "commits to all captures of this run in order: any altered, missing or reordered capture changes "
        "it.</p></section>"
    )
