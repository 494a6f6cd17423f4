"""Digests of a run's facts and findings, computed the same way at seal time and at verify time."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Connection, select

from auditor.evidence.chain import digest_rows
from auditor.store.models import Capture, Fact, Finding


def facts_digest(conn: Connection, run_id: int) -> tuple[str, int]:
    rows = conn.execute(
        select(Capture.seq, Fact.kind, Fact.subject, Fact.data)
        .join(Capture, Capture.id == Fact.capture_id)
        .where(Fact.run_id == run_id)
        .order_by(Fact.id)
    )
    count = 0

    def gen() -> Any:
        nonlocal count
        for seq, kind, subject, data in rows:
            count += 1
            yield [seq, kind, subject, data]

    return digest_rows(gen()), count


def findings_digest(conn: Connection, run_id: int) -> tuple[str, int]:
    rows = conn.execute(
        select(
            Finding.check_id,
            Finding.status,
            Finding.severity,
            Finding.tier,
            Finding.target,
            Finding.subject,
            Finding.message,
            Finding.expected,
            Finding.found,
            Finding.fact_ids,
            Finding.evidence,
            Finding.waiver,
        )
        .where(Finding.run_id == run_id)
        .order_by(Finding.id)
    )
    materialized = [list(r) for r in rows]
    return digest_rows(materialized), len(materialized)
