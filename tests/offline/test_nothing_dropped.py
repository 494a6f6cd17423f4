"""Nothing in an evidence directory is dropped without a word: every file is read or is a named problem,
and the run then says its evidence is incomplete (status partial, exit 3 when nothing FAILs).

Tests run as root here, and root reads a chmod-000 directory anyway: the unreadable directory and file
cases run the audit under `setpriv` with CAP_DAC_OVERRIDE and CAP_DAC_READ_SEARCH dropped, so the
permission bits bind for root too (skipped, and said so, where setpriv is missing).
"""

from __future__ import annotations

import gzip
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import duckdb
import pytest

from tests.e2e.conftest import LAB, run_cli

NAMESPACES = (LAB / "evidence" / "k8s" / "namespaces.yaml").read_text()


def _audit(root: Path, extra: str = "") -> tuple[int, dict[str, Any], str]:
    (root / "auditor.yaml").write_text(
        "sources:\n  files:\n    - {path: evidence, cluster: c1"
        + extra
        + "}\nstore: sqlite:///.auditor/auditor.db\noutput: out\nreports: [json]\n"
        + "collection: {max_file_bytes: 1000000}\n"
    )
    result = run_cli("audit", "-c", str(root / "auditor.yaml"), "--quiet")
    report = json.loads((root / "out" / "run-1.json").read_text())
    return result.returncode, report, result.stdout + result.stderr


def _problems(report: dict[str, Any]) -> list[str]:
    return [f"{p['location']}: {p['message']}" for p in report["problems"]]


@pytest.fixture
def evidence(tmp_path: Path) -> Path:
    folder = tmp_path / "evidence"
    folder.mkdir()
    (folder / "namespaces.yaml").write_text(NAMESPACES)
    return folder


def test_clean_directory_is_complete(tmp_path: Path, evidence: Path) -> None:
    (evidence / ".gitkeep").write_text("")  # hidden: skipped by rule
    (evidence / "README.md").write_text("# what this is\n")
    code, report, out = _audit(tmp_path, ", ignore: [README.md]")
    assert _problems(report) == [], out
    assert report["run"]["status"] == "complete"
    assert code == 3  # NOT_ASSESSED lateral/flow checks: this evidence has no network at all


@pytest.mark.parametrize(
    ("make", "words"),
    [
        (
            lambda d: (d / "notes.docx").write_bytes(b"PK\x03\x04 not evidence"),
            "not recognised as any evidence",
        ),
        (lambda d: (d / "README.md").write_text("# no ignore rule\n"), "not recognised as any evidence"),
        (lambda d: (d / "gone.yaml").symlink_to(d / "nowhere.yaml"), "dangling symbolic link"),
        (lambda d: os.mkfifo(d / "pipe.yaml"), "not a regular file (a FIFO)"),
        (lambda d: (d / "loop").symlink_to(d, target_is_directory=True), "symbolic link loop"),
        (lambda d: (d / "big.yaml").write_text(NAMESPACES * 2000), "over collection.max_file_bytes"),
        (
            lambda d: (d / "ns.yaml.gz").write_bytes(gzip.compress(NAMESPACES.encode() * 50)[:300]),
            "gzip stream is truncated",
        ),
        (lambda d: (d / "bad.json.gz").write_bytes(b"\x1f\x8b\x08\x00garbage"), "gzip stream is"),
    ],
    ids=[
        "unrecognised",
        "readme",
        "dangling-link",
        "fifo",
        "link-loop",
        "too-large",
        "truncated-gz",
        "corrupt-gz",
    ],
)
def test_each_unreadable_entry_is_a_named_problem_and_exit_3(
    tmp_path: Path, evidence: Path, make: object, words: str
) -> None:
    make(evidence)  # type: ignore[operator]
    code, report, out = _audit(tmp_path)
    problems = _problems(report)
    assert any(p.startswith("evidence/") and words in p for p in problems), (problems, out)
    assert not any("nowhere" in p for p in problems)  # a link is named by its own name
    assert report["run"]["status"] == "partial"
    assert code == 3
    assert words.split(maxsplit=1)[0] in out  # the console names it too


def test_unrecognised_file_names_path_and_supported_formats(tmp_path: Path, evidence: Path) -> None:
    (evidence / "sub").mkdir()
    (evidence / "sub" / "inventory.xlsx").write_bytes(b"\x00\x01binary")
    _, report, _ = _audit(tmp_path)
    (problem,) = [p for p in _problems(report) if "inventory" in p]
    assert problem.startswith(
        "evidence/sub/inventory.xlsx: not recognised as any evidence format: evidence/sub/inventory.xlsx; "
        "supported formats: "
    )
    assert "AWS CLI" in problem and "flow logs" in problem


def test_truncated_flow_log_gz_is_a_problem(tmp_path: Path) -> None:
    folder = tmp_path / "evidence"
    folder.mkdir()
    source = next((LAB / "evidence" / "flowlogs").glob("*.log.gz"))
    whole = gzip.decompress(source.read_bytes())
    (folder / source.name).write_bytes(gzip.compress(whole * 40)[:-200])  # cut inside the stream
    code, report, out = _audit(tmp_path)
    assert any("truncated" in p for p in _problems(report)), (_problems(report), out)
    assert report["run"]["status"] == "partial"
    assert code == 3


def _without_dac_override() -> list[str] | None:
    """A command prefix under which permission bits bind: none needed for a normal user; for root,
    setpriv dropping CAP_DAC_OVERRIDE and CAP_DAC_READ_SEARCH (None when that is not available)."""
    if os.geteuid() != 0:
        return []
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        return None
    probe = subprocess.run(
        [setpriv, "--inh-caps=-all", "--bounding-set=-dac_override,-dac_read_search", "--", "true"],
        capture_output=True,
        check=False,
    )
    if probe.returncode != 0:
        return None
    return [setpriv, "--inh-caps=-all", "--bounding-set=-dac_override,-dac_read_search", "--"]


@pytest.mark.parametrize("what", ["directory", "file"])
def test_unreadable_directory_or_file_is_a_named_problem_and_exit_3(
    tmp_path: Path, evidence: Path, what: str
) -> None:
    prefix = _without_dac_override()
    if prefix is None:
        pytest.skip("running as root without setpriv: permission bits cannot be made to bind")
    locked = evidence / "locked"
    if what == "directory":
        locked.mkdir()
        (locked / "a.yaml").write_text(NAMESPACES)
    else:
        locked.write_text(NAMESPACES)
    locked.chmod(0)
    (tmp_path / "auditor.yaml").write_text(
        "sources:\n  files:\n    - {path: evidence, cluster: c1}\n"
        "store: sqlite:///.auditor/auditor.db\noutput: out\nreports: [json]\n"
    )
    try:
        result = subprocess.run(
            [
                *prefix,
                sys.executable,
                "-m",
                "auditor",
                "audit",
                "-c",
                str(tmp_path / "auditor.yaml"),
                "--quiet",
            ],
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
    finally:
        locked.chmod(0o755)
    report = json.loads((tmp_path / "out" / "run-1.json").read_text())
    words = "cannot list directory" if what == "directory" else "cannot read"
    assert any(
        p.startswith("evidence/locked:") and words in p and "Permission denied" in p
        for p in _problems(report)
    ), (_problems(report), result.stderr)
    assert report["run"]["status"] == "partial"
    assert result.returncode == 3


def test_a_parquet_flow_log_is_read_not_reported(tmp_path: Path) -> None:
    folder = tmp_path / "evidence"
    folder.mkdir()
    duckdb.connect().execute(
        "COPY (SELECT 2 AS version, '111122223333' AS account_id, 'eni-1' AS interface_id, "
        "'10.20.1.5' AS srcaddr, '10.250.10.21' AS dstaddr, 40000 AS srcport, 623 AS dstport, 17 AS protocol, "
        "2 AS packets, 200 AS bytes, 1764583200 AS start, 1764583260 AS \"end\", 'ACCEPT' AS action, "
        f"'OK' AS log_status) TO '{folder / 'flows.parquet'}' (FORMAT PARQUET)"
    )
    _, report, out = _audit(tmp_path)
    assert _problems(report) == [], out
    assert [(t["name"], t["captures"]) for t in report["targets"]] == [("flowlogs:evidence", 1)]
