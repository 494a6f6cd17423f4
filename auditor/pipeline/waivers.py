"""Waivers: accepted risks from the audit config, applied to failing findings before they are stored.

A waived failure keeps its FAIL status (the evidence still shows the violation) but carries the waiver
(check, target, subject, owner, reason, expires) and no longer makes the exit code 1. A waiver applies
while `expires` is on or after the run's date (the day the run started, UTC), so re-checking an old run
gives the same answer; once expired it stops applying by itself, and every failure it used to cover says
so in its message, so nobody forgets to renew or fix it."""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, date, datetime
from fnmatch import fnmatchcase
from typing import Any

from pydantic import ValidationError
from sqlalchemy import Engine

from auditor.config.models import AuditConfig, Waiver
from auditor.enums import Status, WaiverState
from auditor.store.reader import RunReader
from auditor.store.writer import FindingRow
from checks.base import check_registry

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class WaiverNote:
    """One configured waiver as the run saw it: in force or expired, and how many failures it matched."""

    index: int  # position in the config's `waivers:` list, to find it
    waiver: Waiver
    state: WaiverState
    matched: int

    def text(self) -> str:
        w = self.waiver
        where = f"{w.check} target {w.target!r} subject {w.subject!r}"
        if self.state is WaiverState.EXPIRED:
            return (
                f"waivers[{self.index}] ({where}, owner {w.owner}) expired on {w.expires.isoformat()}: "
                f"it no longer applies; {self.matched} failure(s) it matched count again"
            )
        return f"waivers[{self.index}] ({where}, owner {w.owner}) waives {self.matched} failure(s)"


@dataclass
class Waived:
    """Finding rows with the waivers that apply attached, and what each waiver did."""

    rows: list[FindingRow]
    notes: list[WaiverNote] = field(default_factory=list)

    @property
    def waived(self) -> int:
        return sum(1 for r in self.rows if r.waiver is not None)

    def exit_statuses(self) -> list[Status]:
        """Statuses for the exit code: a waived failure is an accepted risk, not a failure."""
        return [Status.PASS if r.waiver is not None else Status(r.status) for r in self.rows]

    def expired(self) -> list[WaiverNote]:
        return [n for n in self.notes if n.state is WaiverState.EXPIRED]


def waiver_json(w: Waiver) -> dict[str, Any]:
    """The form stored in findings.waiver and shown in the reports."""
    return {
        "check": w.check,
        "target": w.target,
        "subject": w.subject,
        "owner": w.owner,
        "reason": w.reason,
        "expires": w.expires.isoformat(),
    }


def matches(w: Waiver, check_id: str, target: str | None, subject: str) -> bool:
    """Same check id, and the target and subject globs (case-sensitive, `*` `?` `[..]`) both match."""
    return w.check == check_id and fnmatchcase(target or "", w.target) and fnmatchcase(subject, w.subject)


def expiry_note(w: Waiver) -> str:
    return f" [waiver by {w.owner} expired {w.expires.isoformat()}; it no longer applies]"


def apply_waivers(rows: Iterable[FindingRow], waivers: Sequence[Waiver], as_of: date) -> Waived:
    """Attach the first matching waiver in force to each FAIL row; note expired ones in the message."""
    active = [(i, w) for i, w in enumerate(waivers) if w.expires >= as_of]
    expired = [(i, w) for i, w in enumerate(waivers) if w.expires < as_of]
    hits = [0] * len(waivers)
    out: list[FindingRow] = []
    for row in rows:
        if row.status != Status.FAIL.value:
            out.append(row)
            continue
        applied = next(((i, w) for i, w in active if matches(w, row.check_id, row.target, row.subject)), None)
        if applied is not None:
            hits[applied[0]] += 1
            out.append(replace(row, waiver=waiver_json(applied[1])))
            continue
        stale = [(i, w) for i, w in expired if matches(w, row.check_id, row.target, row.subject)]
        for i, _ in stale:
            hits[i] += 1
        out.append(replace(row, message=row.message + expiry_note(stale[0][1])) if stale else row)
    notes = [
        WaiverNote(i, w, WaiverState.ACTIVE if w.expires >= as_of else WaiverState.EXPIRED, hits[i])
        for i, w in enumerate(waivers)
    ]
    return Waived(out, notes)


def run_date(engine: Engine, run_id: int) -> date:
    """The date waivers are held against: the day the run started, in UTC."""
    started: datetime = RunReader(engine, run_id).run_row().started_at
    return (started.replace(tzinfo=UTC) if started.tzinfo is None else started.astimezone(UTC)).date()


def stored_waivers(config: Mapping[str, Any]) -> list[Waiver]:
    """The waivers of a run's stored config snapshot. One that no longer validates (its check was
    uninstalled since) is skipped with a warning: it cannot match a check that does not run."""
    out: list[Waiver] = []
    for i, raw in enumerate(config.get("waivers") or []):
        try:
            out.append(Waiver.model_validate(raw))
        except ValidationError as exc:
            log.warning("stored waivers[%d] skipped: %s", i, exc.errors()[0]["msg"])
    return out


def waivers_for(engine: Engine, run_id: int, config: AuditConfig | None) -> list[Waiver]:
    """Re-checking uses the given config's waivers, else those the run was audited with."""
    if config is not None:
        return list(config.waivers)
    return stored_waivers(RunReader(engine, run_id).run_row().config)


def unknown_check_message(check_id: str) -> str | None:
    """Why a waiver's check id is refused, or None when a check with that id is installed."""
    if check_id in set(check_registry()):
        return None
    return f"no installed check has the id {check_id!r}; `auditor checks list` shows the installed checks"
