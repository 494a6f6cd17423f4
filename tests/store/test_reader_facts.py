"""RunReader.facts parses the stored JSON text with the models themselves and shares what facts have in
common (the target and capture strings, pydantic's set of given field names): the records are the ones
the stored JSON validates to, field for field, and a copy of one never changes another."""

from __future__ import annotations

from sqlalchemy import Engine

from auditor.enums import FactKind, RunStatus, TargetStatus
from auditor.facts import Acl, AclEntry, FactRecord, Interface, Vrf, record_from_json
from auditor.store.reader import RunReader
from auditor.store.writer import RunWriter
from tests.store.test_writer_batch import _capture


def _records(n: int) -> list[FactRecord]:
    return [
        Vrf(device="leaf1", name=f"V{n}"),
        Interface(device="leaf1", name=f"Ethernet{n}", type="ethernet", ipv4=[f"10.0.{n}.1/31"], mtu=9214),
        Acl(
            device="leaf1",
            name=f"ACL{n}",
            entries=[AclEntry(sequence=10, action="permit", protocol="tcp", text="permit tcp any any eq 22")],
        ),
    ]


def _run(engine: Engine) -> int:
    writer = RunWriter.start(engine, config={"intent": {}}, config_sha256="0" * 64, scope="t")
    tid = writer.add_target(kind="device", name="leaf1")
    for n in range(3):
        writer.ingest(tid, _capture(n), redactions=0, redaction_kinds={}, facts=_records(n))
    writer.finish_target(tid, TargetStatus.OK, None)
    writer.seal(RunStatus.COMPLETE)
    return writer.run_id


def test_facts_are_what_the_stored_json_validates_to(engine: Engine) -> None:
    reader = RunReader(engine, _run(engine))
    rows = reader.raw_facts()
    facts = reader.facts()
    assert [f.id for f in facts] == [r.id for r in rows]
    for f, row in zip(facts, rows, strict=True):
        expected = record_from_json(row.kind, row.data)
        assert f.record == expected
        assert f.record.model_fields_set == expected.model_fields_set
        assert f.record.model_dump_json() == expected.model_dump_json()
        assert (f.kind.value, f.target, f.capture_seq, f.capture_sha256) == (
            row.kind,
            row.target,
            row.seq,
            row.content_sha256,
        )
        assert f.capture_format == "eos.running-config"
    assert reader.fact_counts() == {FactKind.VRF: 3, FactKind.INTERFACE: 3, FactKind.ACL: 3}


def test_one_kind_in_row_order(engine: Engine) -> None:
    reader = RunReader(engine, _run(engine))
    names = [f.record.name for f in reader.facts((FactKind.INTERFACE,))]  # type: ignore[attr-defined]
    assert names == ["Ethernet0", "Ethernet1", "Ethernet2"]
    assert {f.kind for f in reader.facts({FactKind.VRF, FactKind.ACL})} == {FactKind.VRF, FactKind.ACL}


def test_shared_parts_stay_shared_and_copies_stay_apart(engine: Engine) -> None:
    facts = RunReader(engine, _run(engine)).facts((FactKind.ACL, FactKind.INTERFACE))
    acls = [f.record for f in facts if isinstance(f.record, Acl)]
    assert acls[0].__pydantic_fields_set__ is acls[1].__pydantic_fields_set__  # one set for all
    assert acls[0].entries[0].__pydantic_fields_set__ is acls[1].entries[0].__pydantic_fields_set__
    assert facts[0].target is facts[1].target and facts[0].capture_sha256 is facts[1].capture_sha256
    copy = acls[0].model_copy(update={"name": "OTHER"})
    assert copy.name == "OTHER" and acls[1].model_fields_set == set(Acl.model_fields)
