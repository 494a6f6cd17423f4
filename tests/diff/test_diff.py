"""`auditor diff`: failures that appeared, went away or went out of sight, and facts added, removed or
changed kind by kind, between two stored runs (SQLite and PostgreSQL)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from sqlalchemy import Engine

from auditor.capture import RawCapture
from auditor.enums import RunStatus, Status, TargetStatus
from auditor.errors import AuditorError
from auditor.facts import FactRecord, Interface, Route, Vrf
from auditor.pipeline.diff import diff_runs
from auditor.store.writer import FindingRow, RunWriter

CHECK = "T3-VRF-NO-DEFAULT-ROUTE"


def _run(engine: Engine, facts: list[FactRecord], findings: list[tuple[str, Status, bool]]) -> int:
    writer = RunWriter.start(engine, config={"intent": {}}, config_sha256="0" * 64, scope="diff")
    tid = writer.add_target(kind="device", name="leaf1", platform="eos")
    capture = RawCapture(
        "leaf1",
        "eos.running-config",
        "show running-config",
        "leaf1.cfg",
        datetime.now(UTC),
        b"hostname leaf1\n",
        {},
    )
    writer.ingest(tid, capture, redactions=0, redaction_kinds={}, facts=facts)
    writer.finish_target(tid, TargetStatus.OK)
    writer.add_findings(
        [
            FindingRow(
                CHECK,
                status.value,
                "critical",
                "backend",
                "leaf1",
                subject,
                "m",
                "e",
                f"found {subject}",
                [],
                [],
                {"owner": "x"} if waived else None,
            )
            for subject, status, waived in findings
        ]
    )
    writer.seal(RunStatus.COMPLETE)
    return writer.run_id


def _iface(mtu: int, name: str = "Ethernet1") -> Interface:
    return Interface(device="leaf1", name=name, type="ethernet", mtu=mtu)


@pytest.fixture
def runs(engine: Engine) -> tuple[int, int]:
    a = _run(
        engine,
        [
            Vrf(device="leaf1", name="A"),
            Vrf(device="leaf1", name="B"),
            _iface(1500),
            _iface(9214, "Ethernet2"),
            Route(device="leaf1", vrf="A", prefix="10.0.0.0/8"),
        ],
        [
            ("fixed", Status.FAIL, False),
            ("kept", Status.FAIL, False),
            ("blind", Status.FAIL, False),
            ("gone", Status.FAIL, False),
            ("fine", Status.PASS, False),
            ("ok", Status.PASS, False),
        ],
    )
    b = _run(
        engine,
        [
            Vrf(device="leaf1", name="A"),
            Vrf(device="leaf1", name="C"),
            _iface(9214),
            _iface(9214, "Ethernet2"),
            Route(device="leaf1", vrf="A", prefix="10.0.0.0/8"),
        ],
        [
            ("fixed", Status.PASS, False),
            ("kept", Status.FAIL, False),
            ("blind", Status.NOT_ASSESSED, False),
            ("fine", Status.FAIL, True),
            ("ok", Status.PASS, False),
            ("fresh", Status.FAIL, False),
        ],
    )
    return a, b


def test_failures_new_resolved_and_no_longer_assessed(engine: Engine, runs: tuple[int, int]) -> None:
    d = diff_runs(engine, *runs)
    assert [(c.subject, c.before, c.after, c.waived) for c in d.new_failures] == [
        ("fine", Status.PASS, Status.FAIL, True),
        ("fresh", None, Status.FAIL, False),
    ]
    assert [(c.subject, c.before, c.after) for c in d.resolved] == [
        ("fixed", Status.FAIL, Status.PASS),
        ("gone", Status.FAIL, None),  # the subject itself went away
    ]
    # a failure that is now NOT_ASSESSED is not resolved: it went out of sight
    assert [(c.subject, c.after) for c in d.unassessed] == [("blind", Status.NOT_ASSESSED)]
    assert d.still_failing == 1
    assert d.resolved[0].found == "found fixed"


def test_facts_added_removed_and_changed_per_kind(engine: Engine, runs: tuple[int, int]) -> None:
    d = diff_runs(engine, *runs)
    kinds = {k.kind: k for k in d.facts}
    vrf = kinds["vrf"]
    assert (vrf.added, vrf.removed, vrf.changed, vrf.unchanged) == (1, 1, 0, 1)
    assert [(c.target, c.subject) for c in vrf.added_sample] == [("leaf1", "leaf1/vrf C")]
    assert [c.subject for c in vrf.removed_sample] == ["leaf1/vrf B"]
    iface = kinds["interface"]
    assert (iface.added, iface.removed, iface.changed, iface.unchanged) == (0, 0, 1, 1)
    (changed,) = iface.changed_sample
    assert changed.subject == "leaf1/Ethernet1"
    assert [(f.field, f.before, f.after) for f in changed.fields] == [("mtu", "1500", "9214")]
    assert not kinds["route"].differs
    doc = d.to_json()
    assert doc["facts_unchanged_kinds"] == ["route"]
    assert {k["kind"] for k in doc["facts"]} == {"vrf", "interface"}
    assert doc["facts"][0]["changed_subjects"][0]["fields"] == [
        {"field": "mtu", "before": "1500", "after": "9214"}
    ]


def test_listing_is_bounded_but_counts_are_complete(engine: Engine) -> None:
    a = _run(engine, [Vrf(device="leaf1", name=f"V{i:03d}") for i in range(50)], [])
    b = _run(engine, [Vrf(device="leaf1", name=f"W{i:03d}") for i in range(70)], [])
    vrf = next(k for k in diff_runs(engine, a, b, limit=5).facts if k.kind == "vrf")
    assert (vrf.added, vrf.removed) == (70, 50)
    assert [c.subject for c in vrf.added_sample] == [f"leaf1/vrf W{i:03d}" for i in range(5)]
    assert len(vrf.removed_sample) == 5
    unbounded = next(k for k in diff_runs(engine, a, b, limit=0).facts if k.kind == "vrf")
    assert len(unbounded.added_sample) == 70


def test_a_missing_run_is_named(engine: Engine, runs: tuple[int, int]) -> None:
    with pytest.raises(AuditorError, match="run 999 does not exist"):
        diff_runs(engine, runs[0], 999)


def test_same_run_has_no_difference(engine: Engine, runs: tuple[int, int]) -> None:
    d = diff_runs(engine, runs[1], runs[1])
    assert (d.new_failures, d.resolved, d.unassessed) == ([], [], [])
    assert not any(k.differs for k in d.facts)
