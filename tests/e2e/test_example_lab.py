"""The README's first command: the example lab audit finds exactly the planted violations."""

from __future__ import annotations

import json
import re
from pathlib import Path

from sqlalchemy import text

from auditor.store.engine import open_store
from checks.base import check_registry
from tests.e2e.conftest import LAB, run_cli

ROW = re.compile(r"^\| (?P<check>[TX][0-9]?-[A-Z0-9-]+) \| (?P<subject>[^|]+?) \| [^|]+ \|$")


def planted() -> set[tuple[str, str]]:
    """The EXPECTED.md rows for the checks this installation implements."""
    implemented = set(check_registry())
    rows = set()
    for line in (LAB / "EXPECTED.md").read_text().splitlines():
        m = ROW.match(line.strip())
        if m and m["check"] in implemented:
            rows.add((m["check"], m["subject"]))
    return rows


def test_lab_audit_finds_exactly_the_planted_violations(lab: Path) -> None:
    result = run_cli("audit", "-c", str(lab / "auditor.yaml"), "--quiet")
    assert result.returncode == 1, result.stdout + result.stderr
    report = json.loads((lab / "out" / "run-1.json").read_text())
    # waived failures are accepted risks, not planted violations (the lab config has no waiver anyway)
    failed = {
        (f["check_id"], f["subject"]) for f in report["findings"] if f["status"] == "FAIL" and not f["waiver"]
    }
    assert failed == planted()
    assert len(planted()) >= 4
    # everything else was assessed: a clean lab component is a PASS, not a silent gap
    statuses = {f["status"] for f in report["findings"]}
    assert statuses <= {"PASS", "FAIL"}, statuses
    assert report["run"]["status"] == "complete"
    assert (lab / "out" / "run-1.pdf").read_bytes().startswith(b"%PDF")


def test_verify_passes_then_names_the_tampered_capture(lab: Path) -> None:
    assert run_cli("audit", "-c", str(lab / "auditor.yaml"), "--quiet").returncode == 1
    ok = run_cli("verify", "--run", "1", "-c", str(lab / "auditor.yaml"))
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert "verified" in ok.stdout

    engine = open_store(f"sqlite:///{lab / '.auditor' / 'auditor.db'}")
    with engine.begin() as conn:
        conn.execute(text("DROP TRIGGER captures_no_update"))  # what a database admin could do
        seq, _target, content = conn.execute(
            text(
                "SELECT c.seq, t.name, c.content FROM captures c JOIN targets t ON t.id = c.target_id "
                "WHERE t.name = 'be-leaf2' ORDER BY c.seq LIMIT 1"
            )
        ).one()
        changed = bytearray(content)
        changed[len(changed) // 2] ^= 0x20  # one byte
        conn.execute(text("UPDATE captures SET content = :c WHERE seq = :s"), {"c": bytes(changed), "s": seq})
    engine.dispose()

    bad = run_cli("verify", "--run", "1", "-c", str(lab / "auditor.yaml"))
    assert bad.returncode == 1
    assert f"capture #{seq} (be-leaf2" in bad.stdout.replace("\n", " ")


def test_recheck_of_a_stored_run_gives_the_same_findings(lab: Path) -> None:
    assert run_cli("audit", "-c", str(lab / "auditor.yaml"), "--quiet").returncode == 1
    again = run_cli("check", "--run", "1", "--all", "-c", str(lab / "auditor.yaml"))
    assert again.returncode == 1
    report = json.loads((lab / "out" / "run-1.json").read_text())
    for f in report["findings"]:
        if f["status"] == "FAIL":
            assert f["check_id"][:20] in again.stdout.replace("\n", "")


def test_facts_command_prints_json_lines(lab: Path) -> None:
    assert run_cli("audit", "-c", str(lab / "auditor.yaml"), "--quiet").returncode == 1
    out = run_cli("facts", "--kind", "vrf", "--json", "-c", str(lab / "auditor.yaml"))
    assert out.returncode == 0, out.stderr
    rows = [json.loads(line) for line in out.stdout.splitlines()]
    names = {(r["target"], r["data"]["name"]) for r in rows}
    assert ("be-leaf2", "RDMA-B") in names and ("fe-leaf1", "FRONTEND") in names
    assert all(len(r["evidence"]["sha256"]) == 64 for r in rows)


def test_clean_variant_of_the_lab_has_no_failure(lab: Path) -> None:
    from tests.e2e.lab_fixes import apply_fixes

    assert apply_fixes(lab) > 0  # one fix may clear several planted rows (e.g. a lateral path and its cause)
    result = run_cli("audit", "-c", str(lab / "auditor.yaml"), "--quiet")
    report = json.loads((lab / "out" / "run-1.json").read_text())
    failed = [(f["check_id"], f["subject"], f["found"]) for f in report["findings"] if f["status"] != "PASS"]
    assert failed == []
    assert result.returncode == 0, result.stdout + result.stderr
