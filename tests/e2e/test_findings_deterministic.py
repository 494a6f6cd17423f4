"""Identical evidence gives byte-identical findings, whatever the process's string hash seed.

Auditors compare runs and `auditor check --run N` must reproduce a run's findings, so no finding's text
(an example lateral path, a list of offenders) may depend on set iteration order, which Python
randomises per process through PYTHONHASHSEED.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

from tests.e2e.conftest import LAB, run_cli

# store identities and times: targets are collected concurrently, so fact ids and capture sequence
# numbers follow completion order; the evidence itself is compared by its sha256 and origin
VOLATILE = {
    "id",
    "run_id",
    "fact_ids",
    "seq",
    "created_at",
    "evaluated_at",
    "timestamp",
    "started_at",
    "finished_at",
}


def _stable(value: Any) -> Any:
    if isinstance(value, dict):
        out = {k: _stable(v) for k, v in value.items() if k not in VOLATILE}
        if isinstance(out.get("evidence"), list):  # listed in capture order, which is completion order too
            out["evidence"] = sorted(out["evidence"], key=lambda e: json.dumps(e, sort_keys=True))
        return out
    if isinstance(value, list):
        return [_stable(v) for v in value]
    return value


def _findings(tmp_path: Path, seed: str) -> list[Any]:
    lab = tmp_path / f"lab-{seed}"
    shutil.copytree(LAB, lab, ignore=shutil.ignore_patterns(".auditor", "out"))
    env = {**os.environ, "PYTHONHASHSEED": seed}
    result = run_cli("audit", "-c", str(lab / "auditor.yaml"), "--quiet", env=env)
    assert result.returncode == 1, result.stdout + result.stderr
    report = json.loads((lab / "out" / "run-1.json").read_text())
    findings: list[Any] = _stable(report["findings"])
    return sorted(findings, key=lambda f: json.dumps(f, sort_keys=True))


def test_findings_do_not_depend_on_the_hash_seed(tmp_path: Path) -> None:
    first = _findings(tmp_path, "1")
    lateral = [f for f in first if f["check_id"] == "X-LATERAL-NO-PATH" and f["status"] == "FAIL"]
    assert lateral, "the lab plants a lateral path; without it this test proves nothing"
    for seed in ("2", "3", "4", "5", "6"):
        assert _findings(tmp_path, seed) == first, f"findings differ between PYTHONHASHSEED=1 and ={seed}"
