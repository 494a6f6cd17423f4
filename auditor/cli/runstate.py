"""How commands describe a run that is not sealed: still running, or interrupted (its writer died), always
with the true counts of what it stored. Shared by `runs list/show`, `verify`, `check` and `report`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import Engine, select

from auditor.store.lease import Liveness, liveness, shown_counts
from auditor.store.models import Run
from auditor.store.reader import RunNotFound


@dataclass(frozen=True)
class RunState:
    row: Any
    live: Liveness
    captures: int
    facts: int
    findings: int

    @property
    def status(self) -> str:
        return self.live.status

    def counts_text(self) -> str:
        return f"{self.captures} captures, {self.facts} facts, {self.findings} findings"

    def json(self) -> dict[str, Any]:
        r = self.row
        beat = self.live.heartbeat_at
        return {
            "id": r.id,
            "status": self.status,
            "stored_status": r.status,
            "sealed": r.sealed_at is not None,
            "scope": r.scope,
            "started_at": r.started_at.isoformat() if r.started_at else None,
            "sealed_at": r.sealed_at.isoformat() if r.sealed_at else None,
            "captures": self.captures,
            "facts": self.facts,
            "findings": self.findings,
            "chain_head": r.chain_head,
            "host": r.host,
            "pid": r.pid,
            "heartbeat_at": beat.isoformat() if beat else None,
            "resumes": r.resumes,
            "interrupted_because": self.live.why or None,
            "reason": r.reason,
        }


def run_states(engine: Engine, rows: list[Any]) -> list[RunState]:
    counts = shown_counts(engine, rows)
    return [RunState(r, liveness(r), *counts[r.id]) for r in rows]


def run_state(engine: Engine, run_id: int) -> RunState:
    with engine.connect() as conn:
        row = conn.execute(select(Run.__table__).where(Run.id == run_id)).first()
    if row is None:
        raise RunNotFound(f"run {run_id} does not exist in this store")
    return run_states(engine, [row])[0]


def unsealed_note(state: RunState) -> str | None:
    """One line for a run that is not sealed (None when it is)."""
    r = state.row
    if r.sealed_at is not None:
        return None
    if state.live.dead:
        return (
            f"run {r.id} is interrupted ({state.live.why}): {state.counts_text()} stored, not sealed; "
            f"`auditor audit -c auditor.yaml --resume {r.id}` finishes it on the same chain"
        )
    return f"run {r.id} is still running (process {r.pid} on {r.host}): {state.counts_text()} stored so far"
