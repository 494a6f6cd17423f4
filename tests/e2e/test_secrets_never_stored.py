"""A planted secret of every kind never reaches the store, the export, the reports, the logs or the console.

The secrets lab (tests/fixtures/secrets-lab) plants well over 30 kinds of secret in every evidence
format the offline collector reads: EOS, NX-OS and IOS configs, Kubernetes manifests (Secret,
ConfigMap under odd key names, pod arguments and env, a kubeconfig), AWS describe JSON with tags in
several forms, plain and gzipped flow logs, and the `store:` URL of auditor.yaml itself. A real audit
runs on SQLite and on PostgreSQL, then every byte that came out of it is searched for every value.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from pypdf import PdfReader
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url

from tests.e2e.conftest import LAB, run_cli

SECRETS_LAB = Path(__file__).resolve().parents[1] / "fixtures" / "secrets-lab"
STORE_PASSWORD = "StoreUrlPassPlanted11"  # planted on purpose
PLANTED = sorted(
    {
        s
        for name in ("secrets.txt", "secrets-issue11.txt")
        for s in (SECRETS_LAB / name).read_text().splitlines()
        if s.strip()
    }
)

CONFIG = """
intent:
  tiers:
    oob: {cidrs: [10.250.0.0/16], vrfs: [MGMT, management]}
    frontend: {cidrs: [10.20.0.0/16], namespaces: {labels: {tier: frontend}}}
    backend: {cidrs: [10.30.0.0/15], vrfs: [default], devices: ["sec-*"]}
sources:
  files:
    - evidence/devices
    - evidence/junos
    - {path: evidence/k8s, cluster: sec-cluster}
    - {path: evidence/aws, account: "111122223333"}
    - evidence/flowlogs
store: STORE
output: out
reports: [json, pdf, csv, junit, oscal]
"""


def _audit(root: Path, store: str) -> str:
    shutil.copytree(SECRETS_LAB, root / "evidence", ignore=shutil.ignore_patterns("secrets*.txt"))
    (root / "auditor.yaml").write_text(CONFIG.replace("STORE", store))
    result = run_cli("-v", "audit", "-c", str(root / "auditor.yaml"))
    assert result.returncode in (0, 1, 3), result.stdout + result.stderr
    export = run_cli(
        "evidence", "export", "--run", "1", str(root / "export"), "-c", str(root / "auditor.yaml")
    )
    assert export.returncode == 0, export.stdout + export.stderr
    return result.stdout + result.stderr + export.stdout + export.stderr


def _outputs(root: Path) -> dict[str, str]:
    """Every file the audit wrote besides the store: reports (PDF as its text) and the export."""
    out: dict[str, str] = {}
    for path in sorted((root / "out").iterdir()):
        if path.suffix == ".pdf":
            out[path.name + " (text)"] = "\n".join(page.extract_text() for page in PdfReader(path).pages)
        out[path.name] = path.read_bytes().decode("latin-1")
    for path in sorted((root / "export").rglob("*")):
        if path.is_file():
            out["export " + path.name] = path.read_bytes().decode("latin-1")
    assert any(name.endswith(".json") for name in out) and any(name.endswith(".csv") for name in out)
    return out


def _table_text(url: str) -> str:
    """Every value of every table, as text (bytes decoded); on SQLite, after a WAL checkpoint."""
    engine = create_engine(url)
    chunks: list[str] = []
    with engine.connect() as conn:
        if engine.dialect.name == "sqlite":
            tables = [r[0] for r in conn.execute(text("SELECT name FROM sqlite_master WHERE type = 'table'"))]
        else:
            tables = [
                r[0]
                for r in conn.execute(text("SELECT tablename FROM pg_tables WHERE schemaname = 'public'"))
            ]
        for table in tables:
            for row in conn.execute(text(f'SELECT * FROM "{table}"')):
                for value in row:
                    if isinstance(value, (bytes, memoryview)):
                        chunks.append(bytes(value).decode("latin-1"))
                    elif isinstance(value, (dict, list)):
                        chunks.append(json.dumps(value))
                    else:
                        chunks.append(str(value))
        if engine.dialect.name == "sqlite":
            conn.execute(text("PRAGMA wal_checkpoint(TRUNCATE)"))
    engine.dispose()
    return "\n".join(chunks)


def _leaks(bodies: dict[str, str], planted: list[str]) -> dict[str, list[str]]:
    found = {where: [s for s in planted if s in body] for where, body in bodies.items()}
    return {where: values for where, values in found.items() if values}


def test_the_evidence_really_holds_the_secrets() -> None:
    """Guard against a vacuous pass: every planted value is in the raw evidence before the audit."""
    import gzip

    raw = "\n".join(
        gzip.decompress(p.read_bytes()).decode() if p.suffix == ".gz" else p.read_text()
        for p in SECRETS_LAB.rglob("*")
        if p.is_file() and not p.name.startswith("secrets")
    )
    assert len(PLANTED) >= 120
    assert [s for s in PLANTED if s not in raw] == []


def _assert_audited(root: Path, store_text: str) -> None:
    assert "sec-eos2" in store_text and "<redacted>" in store_text  # the captures are there, redacted
    report = json.loads(next((root / "out").glob("*.json")).read_text())
    red = report["redactions"]
    assert red["redactions"] >= 100 and red["refused"] == 0
    for rule in ("macsec-key", "github-token", "basic-auth", "structured-secret-argument", "k8s-secret-data"):
        assert red["by_rule"].get(rule, 0) >= 1, rule
    per_target = {t["target"]: t for t in red["targets"]}
    assert per_target["sec-eos2"]["redactions"] >= 20
    assert any(t["redactions"] >= 2 for name, t in per_target.items() if name.startswith("flowlogs"))
    stored_kinds = ("eos.running-config", "nxos.running-config", "k8s.manifest", "aws.describe")
    assert all(kind in store_text for kind in stored_kinds)
    assert "aws.flowlog" in store_text


def test_no_secret_leaks_on_sqlite(tmp_path: Path) -> None:
    logs = _audit(tmp_path, "sqlite:///store/auditor.db")
    db = tmp_path / "store" / "auditor.db"
    store = _table_text(f"sqlite:///{db}")
    _assert_audited(tmp_path, store)
    bodies = {
        "store (rows)": store,
        "store (file bytes)": b"".join(p.read_bytes() for p in db.parent.iterdir()).decode("latin-1"),
        "logs and console": logs,
        **_outputs(tmp_path),
    }
    assert _leaks(bodies, PLANTED) == {}


@pytest.mark.postgres
def test_no_secret_leaks_on_postgresql(tmp_path: Path, pg_url: str) -> None:
    """The store URL itself carries a password: it must not be kept in the stored run config."""
    url = make_url(pg_url).set(password=STORE_PASSWORD).render_as_string(hide_password=False)
    logs = _audit(tmp_path, url)
    store = _table_text(pg_url)
    _assert_audited(tmp_path, store)
    assert "postgresql+psycopg://postgres:<redacted>@" in store  # the URL is kept, its password is not
    bodies = {"store (rows)": store, "logs and console": logs, **_outputs(tmp_path)}
    assert _leaks(bodies, [*PLANTED, STORE_PASSWORD]) == {}


def test_redacted_evidence_still_normalizes(tmp_path: Path) -> None:
    _audit(tmp_path, "sqlite:///store/auditor.db")
    out = run_cli("facts", "--kind", "interface", "--json", "-c", str(tmp_path / "auditor.yaml"))
    assert '"Ethernet1"' in out.stdout and "10.30.0.1/31" in out.stdout and "10.30.0.2/31" in out.stdout


def _deep_json(levels: int) -> str:
    return '{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "deep"}, "data": ' + (
        '{"a": ' * levels + '"x"' + "}" * levels + "}\n"
    )


def test_a_deeply_nested_file_is_refused_and_the_target_goes_on(tmp_path: Path) -> None:
    """Before: a RecursionError stopped the whole Kubernetes target (22 false FAILs, exit 1). Now the
    one file is refused with a problem naming it and its line, never stored, and the rest is audited."""
    lab = tmp_path / "lab"
    shutil.copytree(LAB, lab, ignore=shutil.ignore_patterns(".auditor", "out"))
    (lab / "evidence" / "k8s" / "zz-deep.json").write_text(_deep_json(50_000))
    (lab / "evidence" / "k8s" / "zz-bomb.yaml").write_text(_alias_bomb())
    result = run_cli("audit", "-c", str(lab / "auditor.yaml"), "--quiet")
    report = json.loads((lab / "out" / "run-1.json").read_text())
    problems = [p for p in report["problems"] if "zz-" in p["location"]]
    assert sorted(p["location"] for p in problems) == [
        "evidence/k8s/zz-bomb.yaml:11",
        "evidence/k8s/zz-deep.json:1",
    ], result.stdout + result.stderr
    assert all(p["message"].startswith("not stored: ") for p in problems)
    assert report["redactions"]["refused"] == 2
    # the rest of the cluster was still audited: no check of it lost its evidence
    expected = {(r[0], r[1]) for r in _lab_fails()}
    failed = {(f["check_id"], f["subject"]) for f in report["findings"] if f["status"] == "FAIL"}
    assert failed == expected
    engine = create_engine(f"sqlite:///{lab / '.auditor' / 'auditor.db'}")
    with engine.connect() as conn:
        origins = [r[0] for r in conn.execute(text("SELECT origin FROM captures"))]
    engine.dispose()
    assert not [o for o in origins if "zz-" in o]


def _alias_bomb() -> str:
    lines = [
        "apiVersion: v1",
        "kind: Secret",
        "metadata: {name: bomb}",
        'a0: &a0 ["lol", "lol", "lol", "lol"]',
    ]
    lines += [f"a{i}: &a{i} [*a{i - 1}, *a{i - 1}, *a{i - 1}, *a{i - 1}, *a{i - 1}]" for i in range(1, 12)]
    return "\n".join(lines) + "\n"


def _lab_fails() -> set[tuple[str, str]]:
    from tests.e2e.test_example_lab import planted

    return planted()
