"""The scale work (issue 14) keeps every finding byte for byte: the findings of the example labs and of a
generated 200-switch fabric digest to the values the code gave before it (golden.json, made by
`python -m tests.scale.golden`), and the facts digest the writer builds as it writes equals the one
`verify` recomputes from the stored rows, on SQLite and PostgreSQL, including for rows it cannot vouch
for (hashed as read back).

A deliberate change to a finding's text or facts changes these digests: regenerate golden.json then, and
say why in the commit."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from sqlalchemy import Engine

from auditor.capture import RawCapture
from auditor.config.loader import load_config
from auditor.enums import RunStatus, TargetStatus, Tier
from auditor.evidence.chain import canonical_json
from auditor.facts import Device, FactRecord
from auditor.pipeline.audit import AuditOutcome, run_audit
from auditor.store.digests import facts_section
from auditor.store.engine import open_store
from auditor.store.running_digest import fact_line
from auditor.store.writer import RunWriter
from tests.scale.golden import FABRIC_SIZE, LABS, fabric_config, findings_digest

GOLDEN = json.loads((Path(__file__).parent / "golden.json").read_text())


def _audit(config: Path, engine: Engine) -> AuditOutcome:
    return run_audit(load_config(config), engine=engine, render=False)


def _assert_digest_as_verify(engine: Engine, outcome: AuditOutcome) -> None:
    with engine.connect() as conn:
        section = facts_section(conn, outcome.run_id)  # what verify recomputes from the stored rows
    assert section["count"] == outcome.seal.fact_count > 0
    assert section["digest"] == outcome.seal.facts_digest


@pytest.fixture(scope="module")
def fabric(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Engine, AuditOutcome]]:
    root = tmp_path_factory.mktemp("fabric")
    engine = open_store(f"sqlite:///{root / 'store.db'}")
    yield engine, _audit(fabric_config(root), engine)
    engine.dispose()


@pytest.mark.parametrize("lab", sorted(LABS))
def test_example_lab_findings_unchanged(lab: str, tmp_path: Path) -> None:
    engine = open_store(f"sqlite:///{tmp_path / 'store.db'}")
    outcome = _audit(LABS[lab] / "auditor.yaml", engine)
    digest, count = findings_digest(engine, outcome.run_id)
    assert (digest, count) == (GOLDEN[lab]["sha256"], GOLDEN[lab]["findings"])
    _assert_digest_as_verify(engine, outcome)
    engine.dispose()


def test_generated_fabric_findings_unchanged(fabric: tuple[Engine, AuditOutcome]) -> None:
    engine, outcome = fabric
    digest, count = findings_digest(engine, outcome.run_id)
    golden = GOLDEN[f"fabric-{FABRIC_SIZE}"]
    assert (digest, count) == (golden["sha256"], golden["findings"])
    _assert_digest_as_verify(engine, outcome)


@pytest.mark.postgres
def test_lab_on_postgresql(pg_url: str) -> None:
    engine = open_store(pg_url)
    outcome = _audit(LABS["lab"] / "auditor.yaml", engine)
    assert findings_digest(engine, outcome.run_id) == (GOLDEN["lab"]["sha256"], GOLDEN["lab"]["findings"])
    _assert_digest_as_verify(engine, outcome)
    engine.dispose()


def test_fact_line_is_the_canonical_row() -> None:
    data = {"b": [1, 2.5, None], "a": 'é\u0000"x'}
    row = [7, 3, 12, "be-leaf1", "vrf", "be-leaf1/vrf A", data]
    assert fact_line(7, 3, 12, "be-leaf1", "vrf", "be-leaf1/vrf A", canonical_json(data)) == (
        canonical_json(row) + b"\n"
    )


def test_rows_a_database_may_respell_are_hashed_as_read_back(store_url: str) -> None:
    """Text that looks like an exponent float (JSONB re-spells 1e+16) sends its batch to read-back;
    batches before and after are hashed as written, and the seal still equals verify's digest."""
    engine = open_store(store_url)
    writer = RunWriter.start(engine, config={"intent": {}}, config_sha256="0" * 64, scope="respell")

    def capture(name: str, facts: list[FactRecord]) -> None:
        tid = writer.add_target(kind="device", name=name)
        raw = RawCapture(name, "synthetic", "synthetic", name, datetime.now(UTC), name.encode(), {})
        writer.ingest(tid, raw, redactions=0, redaction_kinds={}, facts=facts)
        writer.finish_target(tid, TargetStatus.OK)

    capture("a", [Device(device="a", hostname="a", platform="eos", tier=Tier.BACKEND)])
    capture("b", [Device(device="b", hostname="b-1e+16", platform="eos", tier=Tier.BACKEND)])
    capture("c", [Device(device="c", hostname="c", platform="eos", tier=Tier.BACKEND)] * 3)
    seal = writer.seal(RunStatus.COMPLETE)
    with engine.connect() as conn:
        section = facts_section(conn, writer.run_id)
    assert (
        (section["digest"], section["count"])
        == (seal.facts_digest, seal.fact_count)
        == (
            section["digest"],
            5,
        )
    )
    engine.dispose()
