"""The report reads a run's facts in verify's pass over them: the same facts, in the same order, as the
store's readers give (RunReader.facts for most kinds, flat_facts for the flat ones), on SQLite and
PostgreSQL; and a row those readers would treat otherwise sends the report back to them."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Engine, update

from auditor.capture import RawCapture
from auditor.enums import FactKind, RunStatus, TargetStatus
from auditor.facts import FlowConversation, Interface, K8sNamespace, QosInterface, Route, Vlan, Vrf
from auditor.store.digests import facts_section
from auditor.store.models import Fact
from auditor.store.reader import RunReader
from auditor.store.running_digest import FactRow, RunningFactsDigest
from auditor.store.writer import RunWriter
from checks.base import check_registry
from reports import build
from reports.build import _FactSink, build_report_data, flat_facts
from tests.store.tamper_kit import drop_guards


def _run(engine: Engine) -> int:
    writer = RunWriter.start(engine, config={"intent": {}}, config_sha256="0" * 64, scope="pass")
    leaf = writer.add_target(kind="device", name="be-leaf9")
    cluster = writer.add_target(kind="kubernetes", name="prod")
    leaf_facts: list[Any] = [
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
        Route(device="be-leaf9", vrf="RDMA-A", prefix="10.30.0.0/16"),  # not read by the report
        Interface(device="be-leaf9", name="Ethernet2", type="ethernet", mode="routed", vrf="RDMA-A"),
        Vrf(device="be-leaf9", name="RDMA-A"),
        Vlan(device="be-leaf9", vlan_id=3000, name="t1 ünïcode \u2028"),
        QosInterface(
            device="be-leaf9", interface="Ethernet1", pfc_no_drop_priorities=[3], ecn_queues=[3], trust="dscp"
        ),
        FlowConversation(
            source="s3://logs",
            src_addr="10.20.0.1",
            dst_addr="10.250.0.9",
            action="ACCEPT",
            records=3,
            packets=4,
        ),
    ]
    at = datetime(2026, 12, 1, tzinfo=UTC)
    writer.ingest(
        leaf,
        RawCapture("be-leaf9", "eos.running-config", "show all", "be-leaf9", at, b"x", {}),
        redactions=0,
        redaction_kinds={},
        facts=leaf_facts,
    )
    writer.ingest(
        cluster,
        RawCapture("prod", "k8s.namespaces", "get ns", "prod", at, b"y", {}),
        redactions=0,
        redaction_kinds={},
        facts=[K8sNamespace(cluster="prod", name="t1", labels={"tier": "frontend"})],
    )
    writer.finish_target(leaf, TargetStatus.OK)
    writer.finish_target(cluster, TargetStatus.OK)
    writer.seal(RunStatus.COMPLETE)
    return writer.run_id


def _previous_way(engine: Engine, run_id: int) -> list[Any]:
    facts = RunReader(engine, run_id).facts(set(build.FACT_KINDS - build.FLAT_KINDS))
    for kind in sorted(build.FLAT_KINDS & build.FACT_KINDS):
        facts += flat_facts(engine, run_id, kind)
    return facts


def _sink(engine: Engine, run_id: int) -> _FactSink:
    reader = RunReader(engine, run_id)
    return _FactSink(
        {t.id: t.name for t in reader.targets()},
        {c.id: (int(c.seq), c.content_sha256, c.format) for c in reader.captures(with_content=False)},
    )


def test_the_pass_gives_the_facts_the_readers_give(engine: Engine) -> None:
    run_id = _run(engine)
    sink = _sink(engine, run_id)
    with engine.connect() as conn:
        facts_section(conn, run_id, sink)
    got, expected = sink.facts(), _previous_way(engine, run_id)
    assert got is not None and len(got) == len(expected) == 7
    assert got == expected
    assert [type(f.record) for f in got] == [type(f.record) for f in expected]
    assert {f.kind for f in got} == {
        FactKind.K8S_NAMESPACE,
        FactKind.INTERFACE,
        FactKind.VRF,
        FactKind.VLAN,
        FactKind.QOS_INTERFACE,
        FactKind.FLOW_CONVERSATION,
    }


def test_sections_are_the_same_whoever_reads_the_facts(engine: Engine) -> None:
    """Facts from verify's pass, from the report's own pass (no verify), and the previous way."""
    run_id = _run(engine)
    checks = [c for _, c in check_registry().items()]
    in_verify = build_report_data(engine, run_id, checks)
    assert in_verify.verification is not None and in_verify.verification.verified
    own_pass = build_report_data(engine, run_id, checks, verify=False)
    assert in_verify.sections == own_pass.sections


def test_an_incomplete_pass_is_not_used(engine: Engine) -> None:
    run_id = _run(engine)
    sink = _sink(engine, run_id)
    with engine.connect() as conn:
        RunningFactsDigest(run_id).advance(conn, sink)  # rows seen, but no end(): verify broke off
    assert sink.facts() is None


def test_a_row_the_readers_treat_otherwise_sends_the_report_back_to_them(engine: Engine) -> None:
    run_id = _run(engine)
    other = _run(engine)
    sink = _sink(engine, run_id)
    row = FactRow(1, run_id, 1, "be-leaf9", "vrf", "x", {"device": "d", "name": "n"}, 10**9, 10**9)
    sink(row)  # a target and capture row this run does not have: never raises
    assert sink.irregular and sink.facts() is None
    # a fact moved to the other run's target: the report reads the previous way, with what that gives
    with engine.begin() as conn:
        drop_guards(conn)
        fid = conn.execute(Fact.__table__.select().where(Fact.run_id == run_id)).first()
        assert fid is not None
        target = conn.execute(
            Fact.__table__.select().where(Fact.run_id == other).with_only_columns(Fact.target_id)
        ).scalar()
        conn.execute(update(Fact).where(Fact.id == fid.id).values(target_id=target))
    sink = _sink(engine, run_id)
    with engine.connect() as conn:
        facts_section(conn, run_id, sink)
    assert sink.irregular and sink.facts() is None


def test_a_pass_of_the_reports_own_that_fails_falls_back(engine: Engine, monkeypatch: Any) -> None:
    run_id = _run(engine)
    checks = [c for _, c in check_registry().items()]
    expected = build_report_data(engine, run_id, checks, verify=False)

    def unreadable(*args: Any, **kwargs: Any) -> Any:
        raise ValueError("a row the pass cannot read")

    monkeypatch.setattr(build, "facts_section", unreadable)
    assert build_report_data(engine, run_id, checks, verify=False).sections == expected.sections
