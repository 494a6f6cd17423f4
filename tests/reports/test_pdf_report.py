"""The PDF evidence pack, checked the way an auditor would: read back its text, look at its pixels."""

from __future__ import annotations

import dataclasses
import re
import shutil
import subprocess
from collections import Counter
from datetime import date
from pathlib import Path

import pytest
from PIL import Image
from pypdf import PdfReader

from auditor.enums import Status, Tier
from reports.base import ReportRenderer, report_registry
from reports.model import Mismatch, Verification
from reports.pdf.renderer import PdfReport
from reports.pdf.text import esc, hex_lines
from tests.reports.sample_data import (
    CHAIN_HEAD,
    EXPIRED_WAIVER,
    FRAMEWORKS,
    HOST_KEY_NOTE,
    RUN_ID,
    WAIVER,
    make_report_data,
    many_findings,
    sample_findings,
)

FRONT = 2  # the cover and the contents page: section titles appear there before their sections

TIER_ROWS = {
    Tier.OOB: "Tier 1 · Out-of-band",
    Tier.FRONTEND: "Tier 2 · Frontend",
    Tier.BACKEND: "Tier 3 · Backend RDMA",
    Tier.CROSS: "Cross-tier",
}


def squash(text: str) -> str:
    """Text with all whitespace removed, so line wrapping inside cells does not matter."""
    return "".join(text.split())


def section_text(texts: list[str], title: str, next_title: str) -> str:
    """The text of one section of the body, which may run over several pages."""
    body = "\n".join(texts[FRONT:])
    return body[body.index(title) : body.index(next_title)]


def page_texts(path: Path) -> list[str]:
    return [page.extract_text() or "" for page in PdfReader(path).pages]


@pytest.fixture(scope="module")
def sample_pdf(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return PdfReport().render(make_report_data(), tmp_path_factory.mktemp("pdf") / "pack.pdf")


@pytest.fixture(scope="module")
def sample_text(sample_pdf: Path) -> list[str]:
    return page_texts(sample_pdf)


def test_cover_names_the_run_and_the_full_chain_head(sample_text: list[str]) -> None:
    cover = sample_text[0]
    assert "Network Segmentation Audit" in cover
    assert str(RUN_ID) in cover
    assert CHAIN_HEAD in squash(cover)
    data = make_report_data()
    for digest in (data.run.config_sha256, data.run.facts_digest, data.run.findings_digest):
        assert digest is not None
        assert digest in squash(cover)
    assert "PARTIAL" in cover
    assert "2025-03-14 09:26:53 UTC" in cover
    assert "2025-03-14 09:40:34 UTC" in cover
    assert "segmentation-auditor 0.1.0" in cover
    assert "1,873" in cover
    assert "54" in cover
    assert "FAILURES FOUND" in cover


def test_every_fail_finding_appears_with_check_and_subject(sample_text: list[str]) -> None:
    body = squash("".join(sample_text))
    fails = [f for f in sample_findings() if f.status is Status.FAIL]
    assert len(fails) == 5
    for f in fails:
        assert squash(f.check_id) in body
        assert squash(f.subject) in body, f.subject  # includes "tenant-<acme> & co"
        assert squash(f.found) in body
        assert squash(f.expected) in body
        for ref in f.evidence:
            assert f"#{ref.seq}{ref.sha256[:12]}" in body


def test_failures_are_listed_first(sample_text: list[str]) -> None:
    body = squash(section_text(sample_text, "Appendix B. Every finding", "Appendix D. Every capture"))
    order = [Status.FAIL, Status.ERROR, Status.NOT_ASSESSED, Status.PASS, Status.NOT_APPLICABLE]
    positions = sorted((body.index(squash(f.found)), order.index(f.status)) for f in sample_findings())
    ranks = [rank for _, rank in positions]
    assert ranks == sorted(ranks)
    assert ranks[0] == 0
    assert ranks[-1] == 4


def test_summary_table_shows_counts_per_tier(sample_text: list[str]) -> None:
    summary = " ".join(next(t for t in sample_text[FRONT:] if "1. Executive summary" in t).split())
    counted = Counter((f.tier, f.status) for f in sample_findings())
    for tier, label in TIER_ROWS.items():
        numbers = [counted[(tier, s)] for s in Status]
        expected = " ".join(str(n) for n in [*numbers, sum(numbers)])
        assert f"{label} {expected}" in summary, (label, expected)
    totals = [sum(counted[(t, s)] for t in Tier) for s in Status]
    assert f"Total {' '.join(str(n) for n in [*totals, sum(totals)])}" in summary


def test_gaps_and_targets_with_collection_status(sample_text: list[str]) -> None:
    text = "\n".join(sample_text[FRONT:])
    assert "11. Not assessed and evidence gaps" in text
    assert "12. Targets and collection status" in text
    body = squash(text)
    for p in make_report_data().problems:
        assert squash(p.message) in body
        assert squash(p.hint) in body
    for t in make_report_data().targets:
        assert squash(t.name) in body
    assert "FAILED" in text
    assert "PARTIAL" in text
    assert squash("SSH authentication failed for user audit-ro") in body


def test_every_page_has_the_footer(sample_text: list[str]) -> None:
    total = len(sample_text)
    assert total >= 4
    for number, text in enumerate(sample_text, start=1):
        assert f"Page {number} of {total}" in text
        assert f"Run {RUN_ID}" in text
        assert f"chain head {CHAIN_HEAD[:16]}" in text


def test_document_metadata(sample_pdf: Path) -> None:
    meta = PdfReader(sample_pdf).metadata
    assert meta is not None
    assert meta.title == f"Network segmentation audit, run {RUN_ID}"
    assert meta.author == "segmentation-auditor 0.1.0"
    assert meta.subject == make_report_data().run.scope


def test_first_page_renders_to_a_non_blank_image(sample_pdf: Path, tmp_path: Path) -> None:
    pdftoppm = shutil.which("pdftoppm")
    assert pdftoppm, "pdftoppm (poppler-utils) is needed to rasterise the PDF"
    subprocess.run(
        [pdftoppm, "-png", "-r", "50", "-f", "1", "-l", "1", str(sample_pdf), str(tmp_path / "page")],
        check=True,
        capture_output=True,
    )
    (png,) = tmp_path.glob("page*.png")
    with Image.open(png) as img:
        gray = img.convert("L")
        width, height = gray.size
        hist = gray.histogram()
    assert (width, height) == pytest.approx((413, 585), abs=2)  # A4 portrait at 50 dpi
    pixels = width * height
    inked = sum(hist[:200])  # clearly darker than paper
    dark = sum(hist[:80])  # text and rules
    assert inked / pixels > 0.02
    assert dark / pixels > 0.005
    assert hist[255] / pixels > 0.5  # still mostly paper, not a black page


def test_markup_in_texts_is_escaped_and_reads_back(tmp_path: Path) -> None:
    data = make_report_data()
    nasty = dataclasses.replace(
        data.findings[0],
        subject="<script>&alert('x')</script> & <b>bold</b> <br/> &amp;",
        found="found <para> & </font> > <",
        message="msg with & and <",
    )
    out = PdfReport().render(dataclasses.replace(data, findings=[nasty]), tmp_path / "x.pdf")
    body = squash("".join(page_texts(out)))
    assert squash(nasty.subject) in body
    assert squash(nasty.found) in body


def test_undrawable_and_control_characters_do_not_break_rendering(tmp_path: Path) -> None:
    data = make_report_data()
    odd = dataclasses.replace(data.findings[0], subject="节点\x00-Zürich\x1b[31m ok\ttab\nline")
    out = PdfReport().render(dataclasses.replace(data, findings=[odd]), tmp_path / "u.pdf")
    body = squash("".join(page_texts(out)))
    assert "[U+8282][U+70B9]" in body
    assert "Zürich" in body


def test_escape_helper() -> None:
    assert esc("<a & b>") == "&lt;a &amp; b&gt;"
    assert esc(None) == "—"
    assert esc("line1\nline2") == "line1<br/>line2"
    cut = esc("y" * 1000, limit=100)
    assert cut.startswith("y" * 100)
    assert "truncated: 1,000 characters" in cut


def test_digests_wrap_without_losing_characters() -> None:
    digest = CHAIN_HEAD
    assert hex_lines(digest, 64) == digest
    assert hex_lines(digest, 32) == f"{digest[:32]}<br/>{digest[32:]}"
    assert hex_lines(None) == "—"


def test_rendering_is_reproducible(tmp_path: Path) -> None:
    data = make_report_data()
    first = PdfReport().render(data, tmp_path / "a.pdf").read_bytes()
    second = PdfReport().render(data, tmp_path / "b.pdf").read_bytes()
    assert first == second
    assert first.startswith(b"%PDF-")


def test_empty_run_renders(tmp_path: Path) -> None:
    data = make_report_data(findings=[])
    run = dataclasses.replace(data.run, finished_at=None, chain_head=None, facts_digest=None)
    empty = dataclasses.replace(data, run=run, targets=[], problems=[], checks=[])
    text = "\n".join(page_texts(PdfReport().render(empty, tmp_path / "e.pdf")))
    assert "This run produced no findings." in text
    assert "No evidence gaps were recorded" in text
    assert "chain head none" in text
    assert "NO APPLICABLE FINDINGS" in text


def test_writes_into_a_directory_without_leftovers(tmp_path: Path) -> None:
    out = PdfReport().render(make_report_data(), tmp_path)
    assert out == tmp_path / f"auditor-run-{RUN_ID}.pdf"
    assert sorted(p.name for p in tmp_path.iterdir()) == [out.name]


def test_registered_through_the_entry_point() -> None:
    renderer = report_registry().get("pdf")
    assert isinstance(renderer, ReportRenderer)
    assert (renderer.format, renderer.extension) == ("pdf", ".pdf")


@pytest.mark.slow
def test_two_thousand_findings_with_long_texts(tmp_path: Path) -> None:
    data = make_report_data(many_findings(2000))
    out = PdfReport().render(data, tmp_path / "big.pdf")
    reader = PdfReader(out)
    pages = len(reader.pages)
    marks = {
        str(m.title): (reader.get_destination_page_number(m) or 0) + 1
        for m in reader.outline
        if not isinstance(m, list)
    }
    listing, after = marks["Appendix B. Every finding"], marks["Appendix D. Every capture"]
    assert after - listing > 20
    # Text extraction is slow: read the first pages of the listing (failures come first) and the last page.
    head = [reader.pages[i].extract_text() or "" for i in range(listing - 1, listing + 11)]
    assert all("finding-0" in text for text in head)
    for text in head:
        assert "Evidence (seq, sha256)" in text  # the header row repeats on every page
    assert "truncated:" in "".join(head)  # over-long texts are cut with a note, layout intact
    last = reader.pages[-1].extract_text() or ""
    assert f"Page {pages} of {pages}" in last
    assert "Appendix E. Targets" in (reader.pages[marks["Appendix E. Targets"] - 1].extract_text() or "")
    # the body stays short: every section before the appendices together
    assert marks["Appendix A. Checks evaluated"] < 60
    gaps_page = reader.pages[marks["11. Not assessed and evidence gaps"] - 1].extract_text() or ""
    assert "11. Not assessed and evidence gaps" in gaps_page
    contents = reader.pages[FRONT - 1].extract_text(extraction_mode="layout")
    assert re.search(rf"Appendix B\. Every finding\s+{listing}\n", contents)


def test_cover_says_the_chain_verified_and_counts_waivers(sample_text: list[str]) -> None:
    cover = " ".join(sample_text[0].split())
    assert "CHAIN VERIFIED at report time: 54 captures" in cover
    assert "1 failing finding waived by 1 waiver(s) in force" in cover
    assert "1 waiver(s) EXPIRED" in cover
    assert "5 FAIL (1 waived)" in cover


def test_cover_names_the_first_mismatch_when_the_chain_does_not_verify(tmp_path: Path) -> None:
    bad = Verification(
        False, 7, Mismatch("capture", "content hash 1a2b != 3c4d", 7, "be-leaf2", "running-config")
    )
    unchecked = PdfReport().render(
        dataclasses.replace(make_report_data(), verification=None), tmp_path / "n.pdf"
    )
    assert "NOT VERIFIED" in page_texts(unchecked)[0]
    out = PdfReport().render(dataclasses.replace(make_report_data(), verification=bad), tmp_path / "v.pdf")
    cover = " ".join(page_texts(out)[0].split())
    assert "CHAIN NOT VERIFIED: capture at capture #7 (be-leaf2: running-config)" in cover
    assert "content hash 1a2b != 3c4d" in cover
    assert "CHAIN VERIFIED" not in cover.replace("CHAIN NOT VERIFIED", "")


def test_waived_failure_is_marked_with_owner_and_end_date(sample_text: list[str]) -> None:
    findings = squash(section_text(sample_text, "Appendix B. Every finding", "Appendix D. Every capture"))
    assert "FAILWAIVED" in findings
    assert squash(f"waived by {WAIVER.owner} until 2025-06-30: {WAIVER.reason}") in findings


def test_control_matrix_per_framework(sample_text: list[str]) -> None:
    text = "\n".join(sample_text[FRONT:])
    assert "13. Control matrix" in text
    body = squash(text[text.index("13. Control matrix") : text.index("14. Chain of custody")])
    for fw in FRAMEWORKS:
        assert squash(f"{fw.framework}: {fw.title}") in body
        for req in fw.requirements:
            assert squash(req.id) in body
    assert squash("T1-OOB-MGMT-FROM-JUMP-ONLY: 1 FAIL (1 waived)") in body
    assert squash("X-FLOWS-NO-CROSS-TIER: not evaluated in this run") in body
    for result in ("FAIL", "WAIVED", "ERROR", "NOT ASSESSED"):
        assert squash(result) in body
    glance = squash(next(t for t in sample_text[FRONT:] if "1. Executive summary" in t))
    assert "Controlframeworksataglance" in glance and "SOC22017TSC" in glance


def test_waivers_section_lists_in_force_and_expired(sample_text: list[str]) -> None:
    text = "\n".join(sample_text[FRONT:])
    section = squash(text[text.index("10. Waivers") : text.index("11. Not assessed")])
    for w in (WAIVER, EXPIRED_WAIVER):
        assert squash(w.owner) in section and squash(w.reason) in section and squash(w.subject) in section
    assert "INFORCE" in section and "EXPIRED" in section


def test_target_notes_are_shown(sample_text: list[str]) -> None:
    assert squash(f"note: {HOST_KEY_NOTE}") in squash("".join(sample_text))


def test_all_failures_waived_reads_as_pass_with_waivers(tmp_path: Path) -> None:
    data = make_report_data()
    kept = [f for f in data.findings if f.waived or f.status is Status.PASS]
    out = PdfReport().render(dataclasses.replace(data, findings=kept), tmp_path / "w.pdf")
    cover = " ".join(page_texts(out)[0].split())
    assert "PASS WITH 1 WAIVED FAILURE" in cover
    assert "FAILURES FOUND" not in cover


def test_code_syntax_reads_as_prose() -> None:
    assert esc("outside VRF(s) ['MGMT', 'management']") == "outside VRF(s) MGMT, management"
    assert (
        esc("PFC no-drop on priorities [3, 4]; tcp/udp [443]")
        == "PFC no-drop on priorities 3, 4; tcp/udp 443"
    )
    assert esc('live adds {"port": 9090, "protocol": "TCP"}') == "live adds (port 9090, protocol TCP)"
    assert esc("VRFs []") == "VRFs none"
    assert esc("(`25 permit tcp <any>`)") == '(<font face="Courier">25 permit tcp &lt;any&gt;</font>)'
    assert esc("a stray ` backtick") == "a stray  backtick"
    # decoys: an index, a numbered line, a spelled-out character, YAML inside code
    assert esc("egress[0] opens DNS") == "egress[0] opens DNS"
    assert esc("[1] fe-leaf2 -> oob\n[2] b") == "[1] fe-leaf2 -&gt; oob<br/>[2] b"
    assert esc("[U+8282] node") == "[U+8282] node"
    assert esc("`policyTypes: ['Egress']`") == "<font face=\"Courier\">policyTypes: ['Egress']</font>"


def test_cover_shows_the_seal_signature_and_how_to_verify(sample_text: list[str], tmp_path: Path) -> None:
    cover = " ".join(sample_text[0].split())
    assert "Seal signature UNSIGNED: no signing key sealed this run" in cover
    assert f"auditor verify auditor-run-{RUN_ID}-pack-UNSIGNED.tar.gz" in cover
    assert f"auditor verify --run {RUN_ID} -c auditor.yaml" in cover
    data = make_report_data()
    assert data.verification is not None
    signed = dataclasses.replace(
        data.verification, signature="signed by the pinned key SHA256:0123456789abcdef"
    )
    out = PdfReport().render(dataclasses.replace(data, verification=signed), tmp_path / "s.pdf")
    cover = " ".join(page_texts(out)[0].split())
    assert "Seal signature Signed by the pinned key SHA256:0123456789abcdef" in cover
    assert "UNSIGNED" not in cover
    assert f"auditor verify auditor-run-{RUN_ID}-pack.tar.gz --pubkey PUBLIC_KEY.pem" in cover
    assert "Page 1 of" in cover and "Network Segmentation Audit" not in page_texts(out)[1]  # one page


def test_cover_names_the_organisation_and_audit_period(sample_text: list[str], tmp_path: Path) -> None:
    assert "Organisation." not in sample_text[0] and "Audit period." not in sample_text[0]  # not configured
    data = make_report_data()
    run = dataclasses.replace(
        data.run,
        organisation="Example GPU Cloud <EU> & Co",
        audit_period=(date(2025, 1, 1), date(2025, 3, 31)),
    )
    cover = " ".join(
        page_texts(PdfReport().render(dataclasses.replace(data, run=run), tmp_path / "o.pdf"))[0].split()
    )
    assert "Organisation. Example GPU Cloud <EU> & Co" in cover
    assert "Audit period. 2025-01-01 to 2025-03-31 (90 days)" in cover
