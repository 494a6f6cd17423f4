"""ReportData built from a real store (SQLite and PostgreSQL): waivers on findings and in the run,
target notes, the control matrix over the shipped mappings, and the chain verified at report time."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

from sqlalchemy import Engine, text

from auditor.capture import RawCapture
from auditor.config.models import Waiver
from auditor.enums import RunStatus, Status, TargetStatus, WaiverState
from auditor.pipeline.waivers import apply_waivers, run_date
from auditor.store.writer import FindingRow, RunWriter
from checks.base import check_registry
from reports.build import build_report_data
from reports.model import RequirementStatus

NOTE = "SSH host key not verified: explicit opt-out (insecure_host_keys) for this target"


def _row(check: str, status: Status, subject: str, target: str = "be-leaf2") -> FindingRow:
    return FindingRow(check, status.value, "critical", "backend", target, subject, "m", "e", "f", [], [])


def _stored_run(engine: Engine) -> int:
    today = datetime.now(UTC).date()
    waivers = [
        Waiver(
            check="T3-VRF-NO-DEFAULT-ROUTE",
            target="be-leaf*",
            subject="*/vrf RDMA-B",
            owner="fabric-team",
            reason="drivers mirror until CHG-1",
            expires=today + timedelta(days=30),
        ),
        Waiver(
            check="T2-NS-DEFAULT-DENY",
            owner="platform",
            reason="rollout",
            expires=today - timedelta(days=30),
        ),
    ]
    config = {"intent": {"tiers": {"backend": {"cidrs": ["10.30.0.0/15"]}}}}
    config["waivers"] = [w.model_dump(mode="json") for w in waivers]
    writer = RunWriter.start(engine, config=config, config_sha256="0" * 64, scope="build test")
    tid = writer.add_target(kind="device", name="be-leaf2", platform="eos", tier="backend", notes=[NOTE])
    capture = RawCapture(
        "be-leaf2",
        "eos.running-config",
        "show running-config",
        "be-leaf2.cfg",
        datetime.now(UTC),
        b"hostname be-leaf2\nend\n",
        {"platform": "eos"},
    )
    writer.ingest(tid, capture, redactions=0, redaction_kinds={}, facts=[])
    writer.finish_target(tid, TargetStatus.OK)
    rows = [
        _row("T3-VRF-NO-DEFAULT-ROUTE", Status.FAIL, "be-leaf2/vrf RDMA-B"),
        _row("T3-VRF-NO-DEFAULT-ROUTE", Status.FAIL, "be-leaf2/vrf RDMA-A"),
        _row("T3-VRF-NO-DEFAULT-ROUTE", Status.PASS, "be-leaf2/vrf default"),
        _row("T2-NS-DEFAULT-DENY", Status.FAIL, "lab/ns team-c", target="lab"),
    ]
    waived = apply_waivers(rows, waivers, run_date(engine, writer.run_id))
    writer.add_findings(waived.rows)
    writer.seal(RunStatus.COMPLETE)
    return writer.run_id


def test_waivers_notes_controls_and_verification_from_the_store(engine: Engine) -> None:
    run_id = _stored_run(engine)
    data = build_report_data(engine, run_id, [c for _, c in check_registry().items()])

    by_subject = {f.subject: f for f in data.findings}
    waived = by_subject["be-leaf2/vrf RDMA-B"]
    assert waived.status is Status.FAIL and waived.waiver is not None
    assert waived.waiver.owner == "fabric-team"
    assert waived.waiver.expires == datetime.now(UTC).date() + timedelta(days=30)
    assert by_subject["be-leaf2/vrf RDMA-A"].waiver is None  # the subject glob does not match
    expired = by_subject["lab/ns team-c"]
    assert expired.waiver is None
    assert "[waiver by platform expired" in expired.message

    uses = {u.index: u for u in data.waivers}
    assert (uses[0].state, uses[0].matched) == (WaiverState.ACTIVE, 1)
    assert (uses[1].state, uses[1].matched) == (WaiverState.EXPIRED, 1)
    assert isinstance(uses[1].waiver.expires, date)

    assert data.targets[0].notes == [NOTE]

    soc2 = next(fw for fw in data.controls if fw.key == "soc2")
    cc66 = next(r for r in soc2.requirements if r.id == "CC6.6")
    vrf = next(c for c in cc66.checks if c.check_id == "T3-VRF-NO-DEFAULT-ROUTE")
    assert (vrf.counts[Status.FAIL], vrf.counts[Status.PASS], vrf.waived) == (2, 1, 1)
    assert cc66.result is RequirementStatus.FAIL  # one of the two failures is not waived

    assert data.verification is not None and data.verification.verified
    assert data.verification.captures_checked == 1 and data.verification.mismatch is None


def test_a_tampered_capture_is_named_in_the_report(engine: Engine) -> None:
    run_id = _stored_run(engine)
    with engine.begin() as conn:
        if engine.dialect.name == "postgresql":
            conn.execute(text("ALTER TABLE captures DISABLE TRIGGER USER"))
        else:
            conn.execute(text("DROP TRIGGER captures_no_update"))
        conn.execute(
            text("UPDATE captures SET content = :c WHERE run_id = :r"), {"c": b"hostname x\n", "r": run_id}
        )
    data = build_report_data(engine, run_id, [])
    v = data.verification
    assert v is not None and not v.verified
    assert v.mismatch is not None
    assert (v.mismatch.what, v.mismatch.seq, v.mismatch.target) == ("capture", 1, "be-leaf2")
    assert "content hash" in v.mismatch.detail
