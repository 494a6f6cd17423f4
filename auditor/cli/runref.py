"""Run references on the command line: `42`, `latest`, `latest~N` (the Nth run before the latest), and
the previous sealed run of a run's scope (`diff --previous`). One resolver, used by every command that
takes a run, so a cron script can say "this run and the one before" without knowing ids; an unknown
reference is a usage error that names it and says which runs exist."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from auditor.errors import UsageError

if TYPE_CHECKING:
    from sqlalchemy import Engine

_REF = re.compile(r"^\s*(?:(?P<id>\d+)|latest(?:~(?P<back>\d+))?)\s*$", re.IGNORECASE)
REF_HELP = "a run id, `latest` or `latest~N` (the Nth run before the latest)"
NO_RUN_HINT = "run `auditor audit -c auditor.yaml` first"


@dataclass(frozen=True)
class RunRef:
    """A parsed reference: an absolute id, or a count back from the latest run (0: the latest)."""

    text: str
    run_id: int | None = None
    back: int = 0


def parse_run_ref(text: str | int) -> RunRef:
    """`42` -> id 42; `latest` -> back 0; `latest~2` -> back 2. Anything else is a usage error."""
    raw = str(text)
    match = _REF.match(raw)
    if match is None:
        raise UsageError(
            f"run reference {raw!r} is not a run id, 'latest' or 'latest~N'",
            hint="for example --run 42, --run latest, --run latest~1; `auditor runs list` shows the runs",
        )
    if match["id"] is not None:
        return RunRef(raw, run_id=int(match["id"]))
    return RunRef(raw, back=int(match["back"] or 0))


def describe_ids(ids: list[int], limit: int = 8) -> str:
    """`1-3, 5, 7-9` (ascending ids compressed to ranges), the last `limit` ranges when there are more."""
    ranges: list[tuple[int, int]] = []
    for i in sorted(ids):
        if ranges and i == ranges[-1][1] + 1:
            ranges[-1] = (ranges[-1][0], i)
        else:
            ranges.append((i, i))
    parts = [str(a) if a == b else f"{a}-{b}" for a, b in ranges]
    if len(parts) > limit:
        parts = ["...", *parts[-limit:]]
    return ", ".join(parts)


def _run_ids(engine: Engine) -> list[int]:
    from sqlalchemy import select

    from auditor.store.models import Run

    with engine.connect() as conn:
        return [int(i) for i in conn.execute(select(Run.id).order_by(Run.id)).scalars()]


def resolve_run(engine: Engine, ref: str | int | None) -> int:
    """The run id a reference names (None: the latest run), or a usage error naming the reference and the
    runs the store holds."""
    parsed = parse_run_ref("latest" if ref is None else ref)
    ids = _run_ids(engine)
    if not ids:
        raise UsageError("the store holds no run yet", hint=NO_RUN_HINT)
    held = f"the store holds {len(ids)} run(s): {describe_ids(ids)}"
    if parsed.run_id is not None:
        if parsed.run_id not in ids:
            raise UsageError(f"run {parsed.run_id} does not exist ({held})", hint="`auditor runs list`")
        return parsed.run_id
    if parsed.back >= len(ids):
        oldest = f"latest~{len(ids) - 1}" if len(ids) > 1 else "latest"
        raise UsageError(
            f"run reference {parsed.text!r} goes back past the first run ({held}; the oldest is {oldest})",
            hint="`auditor runs list`",
        )
    return ids[-1 - parsed.back]


def previous_run(engine: Engine, run_id: int) -> int:
    """The latest sealed run before `run_id` with the same scope: what "since the previous run" means
    for a schedule that audits one scope, even when a store holds several scopes or a run was
    interrupted (an unsealed run proves nothing to compare against)."""
    from sqlalchemy import select

    from auditor.store.models import Run

    with engine.connect() as conn:
        scope = conn.execute(select(Run.scope).where(Run.id == run_id)).scalar_one()
        same = list(
            conn.execute(select(Run.id, Run.sealed_at).where(Run.scope == scope).order_by(Run.id)).all()
        )
    earlier = [int(r.id) for r in same if r.id < run_id and r.sealed_at is not None]
    if not earlier:
        runs = describe_ids([int(r.id) for r in same])
        raise UsageError(
            f"run {run_id} has no earlier sealed run of its scope {scope!r} (runs of that scope: {runs})",
            hint="give two runs instead: `auditor diff RUN_A RUN_B`",
        )
    return earlier[-1]
