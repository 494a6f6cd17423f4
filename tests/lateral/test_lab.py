"""The example lab in-process: X-LATERAL-NO-PATH finds exactly its EXPECTED.md rows, and the clean
variant (fixes.yaml) leaves no path. (tests/e2e runs the same through the CLI and the store.)"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

from auditor.enums import Status
from checks.cross.lateral_no_path import LateralNoPath
from tests.e2e.lab_fixes import apply_fixes
from tests.lateral.labctx import lab_context

LAB = Path(__file__).parents[2] / "examples" / "lab"
ROW = re.compile(r"^\| X-LATERAL-NO-PATH \| (?P<subject>[^|]+?) \| [^|]+ \|$")


def _copy(tmp_path: Path) -> Path:
    lab = tmp_path / "lab"
    shutil.copytree(LAB, lab, ignore=shutil.ignore_patterns(".auditor", "out"))
    return lab


def test_lab_paths_are_the_planted_ones(tmp_path: Path) -> None:
    planted = {
        m["subject"] for line in (LAB / "EXPECTED.md").read_text().splitlines() if (m := ROW.match(line))
    }
    findings = list(LateralNoPath().evaluate(lab_context(_copy(tmp_path) / "auditor.yaml")))
    failed = {f.subject for f in findings if f.status == Status.FAIL}
    assert failed == planted
    assert {f.status for f in findings} <= {Status.PASS, Status.FAIL}
    for f in findings:
        if f.status == Status.FAIL:
            assert f.facts and all(len(x.capture_sha256) == 64 for x in f.facts)
            assert f.found.startswith("[1] ")


def test_clean_lab_has_no_path(tmp_path: Path) -> None:
    lab = _copy(tmp_path)
    apply_fixes(lab)
    findings = list(LateralNoPath().evaluate(lab_context(lab / "auditor.yaml")))
    assert findings
    assert {f.status for f in findings} == {Status.PASS}, [
        f.subject for f in findings if f.status != Status.PASS
    ]
