"""Checks of the links between a run's rows, which digests alone would report only as "changed".

A fact must point at a capture of its own run, made from the fact's own target; a finding's facts and
evidence must be the run's own; a problem's target and capture too. Each broken link is named by table,
row and field, so `verify` says "fact 17: capture_id points at a capture of run 3", not "facts changed".
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from sqlalchemy import Connection, or_, select
from sqlalchemy.orm import aliased

from auditor.store.models import Capture, Fact, Finding, Problem, Target

_CHUNK = 500


def _m(table: str, row: Any, column: str, detail: str) -> dict[str, Any]:
    return {"what": table, "detail": detail, "table": table, "row": str(row), "field": column}


def link_problems(conn: Connection, run_id: int) -> list[dict[str, Any]]:
    return [
        *_fact_links(conn, run_id),
        *_capture_links(conn, run_id),
        *_finding_links(conn, run_id),
        *_problem_links(conn, run_id),
    ]


def _fact_links(conn: Connection, run_id: int) -> Iterator[dict[str, Any]]:
    tgt = aliased(Target)
    rows = conn.execute(
        select(
            Fact.id,
            Fact.target_id,
            Fact.capture_id,
            Capture.run_id,
            Capture.seq,
            Capture.target_id,
            tgt.run_id,
        )
        .outerjoin(Capture, Capture.id == Fact.capture_id)
        .outerjoin(tgt, tgt.id == Fact.target_id)
        .where(
            Fact.run_id == run_id,
            or_(
                Capture.id.is_(None),
                Capture.run_id != run_id,
                Capture.target_id != Fact.target_id,
                tgt.id.is_(None),
                tgt.run_id != run_id,
            ),
        )
        .order_by(Fact.id)
    )
    for fid, target_id, capture_id, cap_run, seq, cap_target, tgt_run in rows:
        if cap_run is None:
            yield _m(
                "facts",
                fid,
                "capture_id",
                f"fact {fid} points at capture row {capture_id}, which does not exist",
            )
        elif cap_run != run_id:
            yield _m(
                "facts",
                fid,
                "capture_id",
                f"fact {fid} points at capture #{seq} of run {cap_run}, not of this run",
            )
        elif tgt_run is None or tgt_run != run_id:
            yield _m(
                "facts",
                fid,
                "target_id",
                f"fact {fid} points at target row {target_id}, not a target of this run",
            )
        elif cap_target != target_id:
            yield _m(
                "facts",
                fid,
                "target_id",
                f"fact {fid} is on target row {target_id} but its capture #{seq} was taken from "
                f"target row {cap_target}",
            )
    # facts of other runs that point into this run (moved out of it)
    moved = conn.execute(
        select(Fact.id, Fact.run_id, Capture.seq)
        .join(Capture, Capture.id == Fact.capture_id)
        .where(Capture.run_id == run_id, Fact.run_id != run_id)
        .order_by(Fact.id)
    )
    for fid, other, seq in moved:
        yield _m(
            "facts",
            fid,
            "run_id",
            f"fact {fid} is filed under run {other} but points at capture #{seq} of this run",
        )


def _capture_links(conn: Connection, run_id: int) -> Iterator[dict[str, Any]]:
    rows = conn.execute(
        select(Capture.id, Capture.seq, Capture.target_id, Target.run_id)
        .outerjoin(Target, Target.id == Capture.target_id)
        .where(Capture.run_id == run_id, or_(Target.id.is_(None), Target.run_id != run_id))
    )
    for cid, seq, target_id, t_run in rows:
        yield _m(
            "captures", cid, "target_id", f"capture #{seq} points at target row {target_id} of run {t_run}"
        )


def _finding_links(conn: Connection, run_id: int) -> Iterator[dict[str, Any]]:
    query = select(Capture.seq, Capture.content_sha256).where(Capture.run_id == run_id)
    captures: dict[Any, str] = {seq: str(sha) for seq, sha in conn.execute(query)}
    referenced: dict[int, list[int]] = {}
    for fid, fact_ids, evidence in conn.execute(
        select(Finding.id, Finding.fact_ids, Finding.evidence)
        .where(Finding.run_id == run_id)
        .order_by(Finding.id)
    ):
        for ref in _items(fact_ids):
            if isinstance(ref, int) and not isinstance(ref, bool):
                referenced.setdefault(ref, []).append(fid)
            else:
                yield _m("findings", fid, "fact_ids", f"finding {fid} cites {ref!r}, which is not a fact id")
        for e in _items(evidence):
            seq, sha = (e.get("seq"), e.get("sha256")) if isinstance(e, dict) else (None, None)
            if captures.get(seq) != sha:
                yield _m(
                    "findings",
                    fid,
                    "evidence",
                    f"finding {fid} cites capture #{seq} with a hash this run does not hold",
                )
    ids = sorted(referenced)
    own: set[int] = set()
    for i in range(0, len(ids), _CHUNK):
        chunk = ids[i : i + _CHUNK]
        # by primary key, the run compared here: with run_id in SQL, SQLite walked the run's whole
        # (run_id, kind) index for every chunk (quadratic: 4 s at 2,000 switches)
        rows = conn.execute(select(Fact.id, Fact.run_id).where(Fact.id.in_(chunk)))
        own.update(int(fid) for fid, run in rows if run == run_id)
    for ref in ids:
        if ref not in own:
            for fid in referenced[ref]:
                yield _m(
                    "findings",
                    fid,
                    "fact_ids",
                    f"finding {fid} cites fact {ref}, which is not a fact of this run",
                )


def _items(value: Any) -> list[Any]:
    """A JSON list column as a list; anything else (forged) as one item, so it is named, never crashes."""
    if value is None:
        return []
    return value if isinstance(value, list) else [value]


def _problem_links(conn: Connection, run_id: int) -> Iterator[dict[str, Any]]:
    rows = conn.execute(
        select(Problem.id, Problem.target_id, Problem.capture_id, Target.run_id, Capture.run_id)
        .outerjoin(Target, Target.id == Problem.target_id)
        .outerjoin(Capture, Capture.id == Problem.capture_id)
        .where(Problem.run_id == run_id)
    )
    for pid, target_id, capture_id, t_run, c_run in rows:
        if target_id is not None and t_run != run_id:
            yield _m(
                "problems",
                pid,
                "target_id",
                f"problem {pid} points at target row {target_id}, not of this run",
            )
        if capture_id is not None and c_run != run_id:
            yield _m(
                "problems",
                pid,
                "capture_id",
                f"problem {pid} points at capture row {capture_id}, not of this run",
            )
