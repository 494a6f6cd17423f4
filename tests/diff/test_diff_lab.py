"""`auditor diff` on two stored runs of the example lab, the second with one planted violation fixed."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
import yaml

from auditor.config.loader import load_config
from auditor.pipeline.audit import run_audit
from auditor.store.engine import open_store
from tests.e2e.conftest import LAB, run_cli
from tests.e2e.lab_fixes import _edit_json, _edit_text

WIDE = {**os.environ, "COLUMNS": "200"}
FIXED = ("T3-VRF-NO-DEFAULT-ROUTE", "be-leaf2/vrf RDMA-B")


def apply_one_fix(lab: Path, planted: str) -> None:
    """Apply the single fixes.yaml entry for one planted violation."""
    fixes = yaml.safe_load((lab / "fixes.yaml").read_text())
    (fix,) = [f for f in fixes if f["planted"] == planted]
    (_edit_json if "json" in fix else _edit_text)(lab / fix["file"], fix)


@pytest.fixture(scope="module")
def lab_runs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    lab = tmp_path_factory.mktemp("diff") / "lab"
    shutil.copytree(LAB, lab, ignore=shutil.ignore_patterns(".auditor", "out"))
    config = load_config(lab / "auditor.yaml")
    engine = open_store(config.store_url())
    assert run_audit(config, engine=engine, render=False).run_id == 1
    apply_one_fix(lab, "T3-VRF-NO-DEFAULT-ROUTE be-leaf2")
    assert run_audit(config, engine=engine, render=False).run_id == 2
    engine.dispose()
    return lab


def test_the_fix_shows_as_resolved_and_its_route_as_removed(lab_runs: Path) -> None:
    result = run_cli("diff", "1", "2", "-c", str(lab_runs / "auditor.yaml"), "--json")
    assert result.returncode == 0, result.stderr
    doc = json.loads(result.stdout)
    assert (doc["run_a"], doc["run_b"]) == (1, 2)
    assert doc["new_failures"] == []
    assert [(c["check_id"], c["subject"], c["before"], c["after"]) for c in doc["resolved"]] == [
        (*FIXED, "FAIL", "PASS")
    ]
    assert doc["no_longer_assessed"] == []
    assert doc["still_failing"] >= 2  # the other planted violations are still there
    kinds = {k["kind"]: k for k in doc["facts"]}
    route = kinds.pop("route")
    assert (route["added"], route["removed"], route["changed"]) == (0, 1, 0)
    assert route["removed_subjects"] == [{"target": "be-leaf2", "subject": "be-leaf2/vrf RDMA-B/0.0.0.0/0"}]
    # nothing else about the network changed, except facts derived from that route or that config text
    for k in kinds.values():
        assert all(s["target"] == "be-leaf2" for s in k["added_subjects"] + k["removed_subjects"])
        assert all(s["target"] == "be-leaf2" for s in k["changed_subjects"])


def test_rich_output_and_fail_on_new(lab_runs: Path) -> None:
    cfg = str(lab_runs / "auditor.yaml")
    forward = run_cli("diff", "1", "2", "-c", cfg, "--fail-on-new", env=WIDE)
    assert forward.returncode == 0, forward.stderr
    text = forward.stdout
    assert "0 new failure(s), 1 resolved" in text
    assert "be-leaf2/vrf RDMA-B" in text and "FAIL → PASS" in text
    assert "- be-leaf2: be-leaf2/vrf RDMA-B/0.0.0.0/0" in text
    # backwards, the fix reads as a new failure: --fail-on-new makes that exit 1 (for CI gates)
    backward = run_cli("diff", "2", "1", "-c", cfg, "--fail-on-new", env=WIDE)
    assert backward.returncode == 1
    assert "1 new failure(s), 0 resolved" in backward.stdout
    missing = run_cli("diff", "1", "7", "-c", cfg)
    assert missing.returncode == 2
    assert "run 7 does not exist" in missing.stdout + missing.stderr
