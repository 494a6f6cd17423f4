"""The PDF as the auditor's document (issue 12, item 2), read back from the example lab audited twice
through the CLI: each section under its own bookmark, every finding, the charts and the tiers drawing,
the segmentation matrix, the framework artifacts, shared responsibility and the chain of custody."""

from __future__ import annotations

import dataclasses
import io
import json
import re
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from PIL import Image
from pypdf import PdfReader
from pypdf.generic import Destination
from sqlalchemy import Engine

from auditor.enums import Severity, Status
from tests.e2e.conftest import LAB, run_cli

STATUS_ORDER = [Status.FAIL, Status.ERROR, Status.NOT_ASSESSED, Status.PASS, Status.NOT_APPLICABLE]

SECTIONS = [
    "1. Executive summary",
    "2. The tiers and what crosses them",
    "3. Segmentation matrix",
    "4. Findings by check and subject",
    "5. Switch-port segregation manifest",
    "6. Default-deny declarations",
    "7. Flow-log analysis",
    "8. Lateral-movement analysis",
    "9. Shared responsibility",
    "10. Waivers",
    "11. Not assessed and evidence gaps",
    "12. Targets and collection status",
    "13. Control matrix",
    "14. Chain of custody",
    "Appendix A. Checks evaluated",
    "Appendix B. Every finding",
    "Appendix C. Switch ports",
    "Appendix D. Every capture",
    "Appendix E. Targets",
]


def squash(text: str) -> str:
    return "".join(text.split())


class Lab:
    """The lab's second run: its PDF (pages, text, bookmarks), JSON report and store."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.pdf = root / "out" / "run-2.pdf"
        self.reader = PdfReader(self.pdf)
        self.texts = [p.extract_text() or "" for p in self.reader.pages]
        self.report = json.loads((root / "out" / "run-2.json").read_text())
        self.marks: dict[str, int] = {}
        for item in self.reader.outline:
            if isinstance(item, Destination):
                self.marks[str(item.title)] = (self.reader.get_destination_page_number(item) or 0) + 1

    def links_from(self, title: str) -> list[int]:
        """The pages the links on a section's first page lead to."""
        page_of = {
            p.indirect_reference.idnum: n for n, p in enumerate(self.reader.pages, 1) if p.indirect_reference
        }
        out = []
        for annot in self.reader.pages[self.marks[title] - 1].get("/Annots", []):
            dest = annot.get_object().get("/Dest")
            if isinstance(dest, list) and dest:
                out.append(page_of[dest[0].idnum])
        return out

    def span(self, title: str) -> range:
        """The pages of a top-level section."""
        start = self.marks[title]
        return range(start, min([p for p in self.marks.values() if p > start] + [len(self.texts) + 1]))

    def section(self, title: str) -> str:
        """The text of one top-level section: from its page to the page before the next section."""
        start = self.marks[title]
        end = min([p for t, p in self.marks.items() if p > start] + [len(self.texts) + 1])
        return "\n".join(self.texts[start - 1 : end - 1])


@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory) -> Lab:
    """The example lab audited twice (the second run has a trend to show), as a user runs it."""
    root = tmp_path_factory.mktemp("pdf-sections") / "lab"
    shutil.copytree(LAB, root, ignore=shutil.ignore_patterns(".auditor", "out"))
    with (root / "auditor.yaml").open("a") as config:
        config.write("organisation: Example GPU Cloud\naudit_period: {start: 2026-01-01, end: 2026-03-31}\n")
    for _ in range(2):
        result = run_cli("audit", "-c", str(root / "auditor.yaml"), "--quiet")
        assert result.returncode == 1, result.stdout + result.stderr
    return Lab(root)


def test_every_section_has_its_bookmark_on_its_own_page(lab: Lab) -> None:
    assert list(lab.marks)[:2] == ["Cover: run 2", "Contents"]
    assert [t for t in lab.marks if t in SECTIONS] == SECTIONS
    for title in SECTIONS:
        page = lab.marks[title]
        text = lab.texts[page - 1]
        assert squash(title) in squash(text), (title, page)
        # a section opens its own page: no other section's title on it
        others = [t for t in SECTIONS if t != title and squash(t) in squash(text)]
        assert not others, (title, page, others)
    pages = [lab.marks[t] for t in SECTIONS]
    assert pages == sorted(pages) and len(set(pages)) == len(pages)


def test_every_lab_finding_is_listed_and_the_failures_grouped(lab: Lab) -> None:
    listing = squash(lab.section("Appendix B. Every finding"))
    grouped = squash(lab.section("4. Findings by check and subject"))
    findings = lab.report["findings"]
    assert len(findings) == 144
    for f in findings:
        assert squash(f["subject"]) in listing, f["subject"]
        assert squash(f["check_id"]) in listing
        if f["status"] == "FAIL":
            assert squash(f["subject"]) in grouped, f["subject"]
    assert "PASS" not in re.sub(r"\d+PASS", "", grouped.split("Passingandnotapplicable")[0])


def test_group_counts_link_to_their_findings_in_the_listing(lab: Lab) -> None:
    page_of = {
        p.indirect_reference.idnum: n for n, p in enumerate(lab.reader.pages, 1) if p.indirect_reference
    }
    start, end = lab.marks["Appendix B. Every finding"], lab.marks["Appendix C. Switch ports"]
    targets = []
    for annot in lab.reader.pages[lab.marks["4. Findings by check and subject"] - 1].get("/Annots", []):
        dest = annot.get_object().get("/Dest")
        if isinstance(dest, list) and dest and page_of[dest[0].idnum] >= start:
            targets.append(page_of[dest[0].idnum])
    assert targets and all(start <= p < end for p in targets), (targets, start, end)


def test_chain_head_on_the_cover_and_every_footer(lab: Lab) -> None:
    head = lab.report["run"]["chain_head"]
    assert head in squash(lab.texts[0])
    assert all(f"chainhead{head[:16]}…" in squash(t) for t in lab.texts)


def test_executive_summary_charts_and_trend(lab: Lab) -> None:
    text = " ".join(lab.section("1. Executive summary").split())
    for title in (
        "Findings per tier and status",
        "Findings per severity and status",
        "Framework requirements per result",
        "Trend over the runs of this scope",
    ):
        assert title in text
    assert "OOB: 8 FAIL, 22 PASS" in text  # the numbers under the tier chart
    assert "critical: 16 FAIL, 61 PASS" in text
    assert "run 1, " in text and "run 2 (this run), " in text and "44 FAIL, 100 PASS" in text


def test_tiers_drawing_and_the_crossings(lab: Lab) -> None:
    text = " ".join(lab.section("2. The tiers and what crosses them").split())
    for declared in (
        "10.250.0.0/16",
        "10.30.0.0/15",
        "VRFs: MGMT, management",
        "jump hosts 10.250.200.10/32",
    ):
        assert declared in text
    assert "9 findings" in text and "3 findings" in text  # frontend into OOB, frontend into backend
    for row in (
        "frontend oob X-LATERAL-NO-PATH 2",
        "frontend oob X-FLOWS-NO-CROSS-TIER 1",
        "frontend backend T3-NO-ROUTE-LEAK 1",
        "internet backend T3-VRF-NO-FOREIGN-PREFIXES 1",
    ):
        assert row in text, row


def test_segmentation_matrix_declared_beside_observed(lab: Lab) -> None:
    text = " ".join(lab.section("3. Segmentation matrix").split())
    for cell in (
        "9000 or more, end to end",
        "12 ports, MTU 1500 to 9214; 1 under 9000",
        "PFC no-drop on priority 3 only",
        "worst ratio 1.33",
        "only through the proxy 10.20.5.10:3128",
        "3000-3999",
        "3001-3002",
    ):
        assert cell in text, cell
    for aspect in (
        "VRFs",
        "VLAN ranges",
        "MTU",
        "PFC, ECN and trust",
        "Link capacity and oversubscription",
        "Default-deny posture",
        "Egress path",
    ):
        assert aspect in text


def test_port_manifest_default_deny_and_flow_logs(lab: Lab) -> None:
    ports = " ".join(lab.section("5. Switch-port segregation manifest").split())
    assert "28 switch ports on 7 devices" in ports
    listing = " ".join(lab.section("Appendix C. Switch ports").split())
    assert "oob-sw1 Ethernet45 ethernet, access - 3001 oob" in listing
    deny = " ".join(lab.section("6. Default-deny declarations").split())
    assert "security groups 111122223333/us-east-1 5 3 2" in deny
    assert "Kubernetes policies lab-cluster" in deny
    flows = " ".join(lab.section("7. Flow-log analysis").split())
    assert "10.20.145.7 -> 8.8.8.8:53/17" in flows and "DNS to an unapproved resolver" in flows
    assert "unauthorised flow into OOB" in flows and "cross-tier flow" in flows
    assert "frontend oob ACCEPT 2 2 24" in flows
    assert (
        "Object Lock GOVERNANCE" in flows
        and "30 days" in flows
        and "Declared minimum retention: 365 days" in flows
    )


def test_lateral_paths_hop_by_hop(lab: Lab) -> None:
    text = " ".join(lab.section("8. Lateral-movement analysis").split())
    assert "18 zone and tier pairs, 15 with no path, 3 with a path" in text
    assert "Path 1: fe-leaf2/vrf FRONTEND into tier oob" in text
    assert "oob-sw1 Vlan100 out ACL BMC-FROM-JUMP-HOSTS permits" in text
    assert text.count("Why: the routes, filters and policies on the way") == 3


def test_shared_responsibility_beside_its_controls(lab: Lab) -> None:
    text = " ".join(lab.section("9. Shared responsibility").split())
    for area, owner in (
        ("backend-fabric", "Provider"),
        ("kubernetes-policy", "Tenant"),
        ("cloud-network", "Tenant"),
    ):
        assert f"{area} {owner}" in text
    assert "T3-NO-ROUTE-LEAK" in text and "T2-NS-DEFAULT-DENY" in text and "X-FLOWLOGS-IMMUTABLE" in text


def test_custody_lists_every_capture_with_its_hash(lab: Lab) -> None:
    with sqlite3.connect(lab.root / ".auditor" / "auditor.db") as db:
        captures = db.execute("select seq, content_sha256, source from captures where run_id = 2").fetchall()
    assert len(captures) == 29
    listing = squash(lab.section("Appendix D. Every capture"))
    for seq, sha, source in captures:
        assert sha in listing and squash(source)[:20] in listing, seq
    summary = " ".join(lab.section("14. Chain of custody").split())
    assert "29 captures" in summary and "device: eos.running-config" in summary


def test_pages_render_with_the_drawings_in_colour(lab: Lab, tmp_path: Path) -> None:
    pdftoppm = shutil.which("pdftoppm")
    assert pdftoppm, "pdftoppm (poppler-utils) is needed to rasterise the PDF"
    for title in ("2. The tiers and what crosses them", "8. Lateral-movement analysis"):
        page = lab.marks[title]
        prefix = tmp_path / f"p{page}"
        subprocess.run(
            [pdftoppm, "-png", "-r", "40", "-f", str(page), "-l", str(page), str(lab.pdf), str(prefix)],
            check=True,
        )
        (png,) = tmp_path.glob(f"p{page}*.png")
        with Image.open(png) as img:
            rgb = img.convert("RGB")
            raw = rgb.tobytes()
        pixels = zip(raw[0::3], raw[1::3], raw[2::3], strict=True)
        red = sum(1 for r, g, b in pixels if r > 150 and g < 90 and b < 90)  # the crossing arrows
        assert red > 30, (title, red)


def test_sections_package_imports_no_reportlab() -> None:
    code = (
        "import sys, reports.sections, reports.sections.derive, reports.build; "
        "bad = sorted(m for m in sys.modules if m.startswith('reportlab')); print(bad); assert not bad"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


# Units on data the lab does not hold: a long path, a listing beyond its bound, an unknown control area.

LONG_PATH = " ".join(
    f"[{n}] zone-{n - 1} -> zone-{n} (TCP 22 to 10.250.{n}.0/24 and more (2 range(s) not shown)): "
    f"route {n} via 10.0.0.{n}; ACL {n} permits"
    for n in range(1, 8)
)


def test_lateral_path_with_many_hops_wraps_and_keeps_every_hop() -> None:
    from reportlab.graphics import renderPDF

    from reports.pdf.lateral import path_drawing
    from reports.sections.lateral import hops
    from reports.sections.records import LateralPath

    parsed = hops(LONG_PATH)
    assert [h.number for h in parsed] == list(range(1, 8))
    assert parsed[3].source == "zone-3" and parsed[3].destination == "zone-4"
    assert parsed[3].allows == "TCP 22 to 10.250.4.0/24 and more (2 range(s) not shown)"
    assert parsed[3].via == ["route 4 via 10.0.0.4", "ACL 4 permits"]
    one_row = path_drawing(
        LateralPath("a -> oob", "a", "oob", Status.FAIL, Severity.CRITICAL, parsed[:2]), 757
    )
    wrapped = path_drawing(LateralPath("a -> oob", "a", "oob", Status.FAIL, Severity.CRITICAL, parsed), 757)
    assert wrapped.height > one_row.height  # eight zones do not fit one row of a landscape page
    text = squash(PdfReader(io.BytesIO(renderPDF.drawToString(wrapped))).pages[0].extract_text())
    assert all(f"zone-{n}" in text for n in range(8))


def test_listing_beyond_its_bound_lists_what_needs_attention_and_counts_the_rest(tmp_path: Path) -> None:
    from reportlab.lib.pagesizes import A4, landscape
    from reportlab.platypus import SimpleDocTemplate

    from reports.pdf.findings import listing_section
    from reports.pdf.styles import Styles
    from tests.reports.sample_data import sample_findings

    findings = sorted(sample_findings(), key=lambda f: STATUS_ORDER.index(f.status))
    attention = [f for f in findings if f.status in (Status.FAIL, Status.ERROR, Status.NOT_ASSESSED)]
    out = tmp_path / "listing.pdf"
    SimpleDocTemplate(str(out), pagesize=landscape(A4)).build(
        listing_section(findings, Styles(), 750, set(), list_all=len(attention))
    )
    text = " ".join(" ".join(p.extract_text() or "" for p in PdfReader(out).pages).split())
    assert f"the {len(attention)} that need attention are listed here in full" in text
    for f in attention:
        assert squash(f.subject) in squash(text)
    passing = [f for f in findings if f not in attention]
    shown = {squash(f.found) for f in attention}
    assert all(squash(f.found) not in squash(text) for f in passing if squash(f.found) not in shown)
    assert f"The other {len(passing)} findings (passes and not applicable), per check" in text


def test_a_control_area_no_check_covers_is_listed_as_such() -> None:
    from reports.sections.responsibility import responsibility
    from tests.reports.sample_data import make_report_data

    data = dataclasses.replace(
        make_report_data(),
        intent={"shared_responsibility": {"facilities": "provider", "backend-fabric": "shared"}},
    )
    rows = {r.area: r for r in responsibility(data)}
    assert (
        rows["facilities"].checks == []
        and rows["facilities"].result == "no check of this run covers this area"
    )
    assert rows["backend-fabric"].owner == "shared"
    assert rows["backend-fabric"].checks and all(c.startswith("T3-") for c in rows["backend-fabric"].checks)


def test_flat_facts_read_back_the_fields_the_sections_use(engine: Engine) -> None:
    """The sections' fast read (fields extracted by the database, records built without validation)
    gives the stored values, JSON lists included, on SQLite and PostgreSQL alike."""
    from datetime import UTC, datetime

    from auditor.capture import RawCapture
    from auditor.enums import FactKind, RunStatus, TargetStatus
    from auditor.facts import FlowConversation, Interface, QosInterface
    from auditor.store.writer import RunWriter
    from reports.build import flat_facts

    writer = RunWriter.start(engine, config={"intent": {}}, config_sha256="0" * 64, scope="flat")
    target = writer.add_target(kind="device", name="be-leaf9")
    records = [
        Interface(
            device="be-leaf9",
            name="Ethernet1",
            type="ethernet",
            mode="trunk",
            switchport=True,
            trunk_allowed_vlans=[(3000, 3010), (3100, 3100)],
            mtu=9214,
            speed_mbps=400000,
        ),
        Interface(device="be-leaf9", name="Ethernet2", type="ethernet", mode="routed", vrf="RDMA-A"),
        QosInterface(
            device="be-leaf9",
            interface="Ethernet1",
            pfc_no_drop_priorities=[3, 4],
            ecn_queues=[3],
            trust="dscp",
        ),
        FlowConversation(
            source="s3://logs",
            src_addr="10.20.0.1",
            dst_addr="10.250.0.9",
            action="ACCEPT",
            records=3,
            packets=40,
        ),
    ]
    capture = RawCapture("be-leaf9", "synthetic", "show all", "be-leaf9", datetime.now(UTC), b"x", {})
    writer.ingest(target, capture, redactions=0, redaction_kinds={}, facts=records)
    writer.finish_target(target, TargetStatus.OK)
    writer.seal(RunStatus.COMPLETE)
    ports = [
        f.record
        for f in flat_facts(engine, writer.run_id, FactKind.INTERFACE)
        if isinstance(f.record, Interface)
    ]
    assert len(ports) == 2
    assert [(p.name, p.mode, p.vrf, p.mtu) for p in ports] == [
        ("Ethernet1", "trunk", "default", 9214),
        ("Ethernet2", "routed", "RDMA-A", None),
    ]
    assert [tuple(r) for r in ports[0].trunk_allowed_vlans or []] == [(3000, 3010), (3100, 3100)]
    assert (
        ports[0].speed_mbps == 400000 and ports[0].switchport is True and ports[1].trunk_allowed_vlans is None
    )
    (qos,) = flat_facts(engine, writer.run_id, FactKind.QOS_INTERFACE)
    assert isinstance(qos.record, QosInterface)
    assert (qos.record.pfc_no_drop_priorities, qos.record.ecn_queues, qos.record.trust) == (
        [3, 4],
        [3],
        "dscp",
    )
    assert qos.target == "be-leaf9" and len(qos.capture_sha256) == 64
    (flow,) = flat_facts(engine, writer.run_id, FactKind.FLOW_CONVERSATION)
    assert isinstance(flow.record, FlowConversation)
    assert (flow.record.src_addr, flow.record.action, flow.record.records, flow.record.packets) == (
        "10.20.0.1",
        "ACCEPT",
        3,
        40,
    )
