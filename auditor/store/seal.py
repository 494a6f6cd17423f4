"""The seal document of a run: one canonical JSON value that commits to everything a report shows.

Built from the store at seal time, signed (Ed25519) when a key is configured, and stored in `seals`.
`verify` builds it again from the store as it is now and compares the two section by section, so a
difference names the table, the row and, where the document holds it, the field that changed.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

from sqlalchemy import Connection, select

from auditor.evidence.chain import canonical_json, utc_stamp
from auditor.store.digests import (
    captures_section,
    config_section,
    facts_section,
    findings_section,
    problems_section,
    targets_section,
)
from auditor.store.models import Run
from auditor.store.running_digest import FactObserver

SEAL_VERSION = "auditor-seal-v2"
UNREADABLE = "unreadable"

RUN_FIELDS = (
    "id",
    "status",
    "started_at",
    "finished_at",
    "sealed_at",
    "scope",
    "tool_version",
    "operator",
    "config_sha256",
    "reason",
    "genesis",
    "chain_head",
    "facts_digest",
    "findings_digest",
    "capture_count",
    "fact_count",
    "finding_count",
)


def run_section(row: Any) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for f in RUN_FIELDS:
        value = getattr(row, f)
        out[f] = utc_stamp(value) if hasattr(value, "isoformat") else value
    resumes = getattr(row, "resumes", 0)
    if resumes:  # a resumed run's seal says so (absent otherwise, so seals made before 0004 still verify)
        out["resumes"] = resumes
    return out


def build_document(
    conn: Connection,
    run_id: int,
    *,
    facts: dict[str, Any] | None = None,
    signer: dict[str, str] | None = None,
    tolerant: bool = False,
    observe: FactObserver | None = None,
) -> dict[str, Any]:
    """The seal document of the run as the store holds it now. `facts` may be passed in (the writer's
    running digest) to spare re-reading every fact at the seal; it is the same value facts_section gives.

    `tolerant` (verify): a section whose rows cannot be read (a forged value the driver cannot parse)
    becomes {"unreadable": reason} instead of an exception, so verify names the table and goes on.
    `observe` sees every fact row the facts section reads (the report builds its facts in that pass)."""

    def section(fn: Callable[[], Any]) -> Any:
        if not tolerant:
            return fn()
        try:
            return fn()
        except Exception as exc:  # hostile data: any parse error of any driver is a finding, not a crash
            return {UNREADABLE: f"{type(exc).__name__}: {str(exc)[:200]}"}

    run = conn.execute(select(Run.__table__).where(Run.id == run_id)).one()
    return {
        "seal": SEAL_VERSION,
        "run": section(lambda: run_section(run)),
        "config": section(lambda: config_section(run.config)),
        "targets": section(lambda: targets_section(conn, run_id)),
        "captures": section(lambda: captures_section(conn, run_id)),
        "facts": facts if facts is not None else section(lambda: facts_section(conn, run_id, observe)),
        "findings": section(lambda: findings_section(conn, run_id)),
        "problems": section(lambda: problems_section(conn, run_id)),
        "signer": signer,
    }


def encode(document: dict[str, Any]) -> str:
    """The exact text that is stored, hashed and signed."""
    return canonical_json(document).decode("utf-8")


def decode(text: str) -> dict[str, Any]:
    value = json.loads(text)
    if not isinstance(value, dict):
        raise ValueError("seal document is not a JSON object")
    return value


Path = tuple[str, ...]


def differences(sealed: Any, now: Any, path: Path = ()) -> Iterator[tuple[Path, Any, Any]]:
    """Every leaf where the sealed document and the recomputed one differ: (path, sealed, now)."""
    if isinstance(sealed, dict) and isinstance(now, dict):
        for key in sorted(set(sealed) | set(now), key=str):
            yield from differences(sealed.get(key, _MISSING), now.get(key, _MISSING), (*path, str(key)))
        return
    if sealed != now:
        yield path, sealed, now


class _Missing:
    def __repr__(self) -> str:
        return "<missing>"


_MISSING: Any = _Missing()


def missing(value: Any) -> bool:
    return value is _MISSING
