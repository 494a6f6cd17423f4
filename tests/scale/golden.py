"""A digest of an audit's findings that does not depend on collection order, for before/after tests.

Run ids, fact ids and capture sequence numbers follow the order in which concurrent collection finished,
so a finding's facts are named by (kind, target, subject) and its evidence by sha256. Everything else of
the stored finding row is kept, byte for byte. `python -m tests.scale.golden` prints the digests of the
example labs and of the generated 200-switch fabric (how tests/scale/golden.json was made)."""

from __future__ import annotations

import hashlib
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, select

from auditor.config.loader import load_config
from auditor.pipeline.audit import run_audit
from auditor.store.engine import open_store
from auditor.store.models import Fact, Finding, Target

REPO = Path(__file__).resolve().parents[2]
LABS = {"lab": REPO / "examples" / "lab", "ai-pod": REPO / "examples" / "ai-pod"}
FABRIC_SIZE = 200


def findings_digest(engine: Engine, run_id: int) -> tuple[str, int]:
    """sha256 over the sorted findings of a run, with facts and evidence named by content, and the count."""
    with engine.connect() as conn:
        names = {
            int(i): [k, t, s]
            for i, k, t, s in conn.execute(
                select(Fact.id, Fact.kind, Target.name, Fact.subject)
                .join(Target, Target.id == Fact.target_id)
                .where(Fact.run_id == run_id)
            )
        }
        rows = conn.execute(select(Finding.__table__).where(Finding.run_id == run_id)).mappings().all()
    out: list[Any] = []
    for r in rows:
        out.append(
            [
                r["check_id"],
                r["status"],
                r["severity"],
                r["tier"],
                r["target"],
                r["subject"],
                r["message"],
                r["expected"],
                r["found"],
                sorted(names[int(i)] for i in r["fact_ids"]),
                sorted(e["sha256"] for e in r["evidence"]),
                r["waiver"],
            ]
        )
    text = "\n".join(sorted(json.dumps(x, sort_keys=True, separators=(",", ":")) for x in out))
    return hashlib.sha256(text.encode()).hexdigest(), len(out)


def audit_digest(config_path: Path, store_dir: Path) -> tuple[str, int]:
    """Audit one config's offline evidence into a new SQLite store (no reports) and digest its findings."""
    config = load_config(config_path)
    engine = open_store(f"sqlite:///{store_dir / 'golden.db'}")
    try:
        outcome = run_audit(config, engine=engine, render=False)
        return findings_digest(engine, outcome.run_id)
    finally:
        engine.dispose()


def fabric_config(root: Path, n: int = FABRIC_SIZE) -> Path:
    """The generated fabric of benchmarks/audit_fabric.py (the benchmark's own generator)."""
    sys.path.insert(0, str(REPO / "benchmarks"))
    try:
        from audit_fabric import generate  # type: ignore[import-not-found,unused-ignore]
    finally:
        sys.path.pop(0)
    path: Path = generate(root / "fabric", n, f"sqlite:///{root / 'unused.db'}", ["json"])
    return path


def main() -> None:
    out: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name, lab in LABS.items():
            d = Path(tmp) / name
            d.mkdir()
            digest, count = audit_digest(lab / "auditor.yaml", d)
            out[name] = {"sha256": digest, "findings": count}
        d = Path(tmp) / "fabric"
        d.mkdir()
        digest, count = audit_digest(fabric_config(d), d)
        out[f"fabric-{FABRIC_SIZE}"] = {"sha256": digest, "findings": count}
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
