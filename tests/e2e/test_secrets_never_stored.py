"""A planted secret of every kind never reaches the store, the reports or the logs."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from pypdf import PdfReader
from sqlalchemy import create_engine, text

from tests.e2e.conftest import run_cli

SECRETS_LAB = Path(__file__).resolve().parents[1] / "fixtures" / "secrets-lab"
PLANTED = [s for s in (SECRETS_LAB / "secrets.txt").read_text().splitlines() if s.strip()]

CONFIG = """
intent:
  tiers:
    oob: {cidrs: [10.250.0.0/16], vrfs: [MGMT, management]}
    frontend: {cidrs: [10.20.0.0/16], namespaces: {labels: {tier: frontend}}}
    backend: {cidrs: [10.30.0.0/15], vrfs: [default], devices: ["sec-*"]}
sources:
  files:
    - evidence/devices
    - {path: evidence/k8s, cluster: sec-cluster}
    - {path: evidence/aws, account: "111122223333"}
store: sqlite:///store/auditor.db
output: out
"""


@pytest.fixture
def audited(tmp_path: Path) -> tuple[Path, str]:
    shutil.copytree(SECRETS_LAB, tmp_path / "evidence")
    (tmp_path / "auditor.yaml").write_text(CONFIG)
    result = run_cli("-v", "audit", "-c", str(tmp_path / "auditor.yaml"), "--quiet")
    assert result.returncode in (0, 1, 3), result.stderr
    return tmp_path, result.stdout + result.stderr


def _store_text(db: Path) -> str:
    """Every value of every table, as text (bytes decoded), after a checkpoint so nothing hides in the WAL."""
    engine = create_engine(f"sqlite:///{db}")
    chunks: list[str] = []
    with engine.connect() as conn:
        tables = [r[0] for r in conn.execute(text("SELECT name FROM sqlite_master WHERE type = 'table'"))]
        for table in tables:
            for row in conn.execute(text(f'SELECT * FROM "{table}"')):
                for value in row:
                    chunks.append(
                        value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)
                    )
        conn.execute(text("PRAGMA wal_checkpoint(TRUNCATE)"))
    engine.dispose()
    return "\n".join(chunks)


def test_the_evidence_really_holds_the_secrets() -> None:
    """Guard against a vacuous pass: every planted value is in the raw evidence before the audit."""
    raw = "\n".join(p.read_text() for p in SECRETS_LAB.rglob("*") if p.is_file() and p.name != "secrets.txt")
    assert len(PLANTED) >= 40
    assert [s for s in PLANTED if s not in raw] == []


def test_no_secret_in_store_reports_or_logs(audited: tuple[Path, str]) -> None:
    root, logs = audited
    db = root / "store" / "auditor.db"
    store = _store_text(db)
    assert "sec-eos1" in store and "<redacted>" in store  # the captures are there, redacted
    files = {
        "store (rows)": store,
        "store (file bytes)": b"".join(p.read_bytes() for p in db.parent.iterdir()).decode("latin-1"),
        "json report": (root / "out" / "run-1.json").read_text(),
        "pdf report": "\n".join(page.extract_text() for page in PdfReader(root / "out" / "run-1.pdf").pages),
        "logs": logs,
    }
    leaks = {where: [s for s in PLANTED if s in body] for where, body in files.items()}
    assert {k: v for k, v in leaks.items() if v} == {}


def test_redacted_evidence_still_normalizes(audited: tuple[Path, str]) -> None:
    root, _ = audited
    out = run_cli("facts", "--kind", "interface", "--json", "-c", str(root / "auditor.yaml"))
    assert '"Ethernet1"' in out.stdout and "10.30.0.1/31" in out.stdout
