"""CSV and JUnit renderings say the same as the findings: every row, status, waiver and evidence hash."""

from __future__ import annotations

import csv
import io
import xml.etree.ElementTree as ET
from collections import Counter
from pathlib import Path

from auditor.enums import Status
from reports.base import report_registry
from reports.csv_report import COLUMNS, render_csv
from reports.junit_report import render_junit
from tests.reports.sample_data import make_report_data


def test_csv_has_one_row_per_finding_with_its_evidence() -> None:
    data = make_report_data()
    rows = list(csv.DictReader(io.StringIO(render_csv(data).decode("utf-8"))))
    assert tuple(rows[0]) == COLUMNS
    assert len(rows) == len(data.findings)
    assert Counter(r["status"] for r in rows) == Counter(f.status.value for f in data.findings)
    by_key = {(r["check_id"], r["subject"]): r for r in rows}
    for f in data.findings:
        row = by_key[(f.check_id, f.subject)]
        assert (row["expected"], row["found"]) == (f.expected, f.found)
        for e in f.evidence:
            assert f"{e.seq}:{e.sha256}" in row["evidence"].split()
        assert row["waived_by"] == (f.waiver.owner if f.waiver else "")


def test_junit_counts_and_cases_follow_the_statuses() -> None:
    data = make_report_data()
    root = ET.fromstring(render_junit(data))
    cases = root.findall("./testsuite/testcase")
    assert len(cases) == len(data.findings) == int(root.get("tests", "-1"))
    failing = [f for f in data.findings if f.status == Status.FAIL and f.waiver is None]
    assert int(root.get("failures", "-1")) == len(failing) == len(root.findall(".//failure"))
    assert int(root.get("errors", "-1")) == sum(f.status == Status.ERROR for f in data.findings)
    skipped = [
        f
        for f in data.findings
        if f.status in (Status.NOT_ASSESSED, Status.NOT_APPLICABLE) or f.waiver is not None
    ]
    assert int(root.get("skipped", "-1")) == len(skipped) == len(root.findall(".//skipped"))
    names = {(c.get("classname", "").split(".", 1)[1], c.get("name")) for c in root.findall(".//failure/..")}
    assert names == {(f.check_id, f.subject) for f in failing}
    # never a pass where evidence is missing: NOT_ASSESSED is skipped with its reason
    for case in cases:
        skip = case.find("skipped")
        if skip is not None and skip.get("message", "").startswith("NOT_ASSESSED"):
            assert case.find("failure") is None


def test_formats_are_registered_and_written_atomically(tmp_path: Path) -> None:
    registry = report_registry()
    data = make_report_data()
    for fmt in ("csv", "junit"):
        path = registry.get(fmt).render(data, tmp_path)
        assert path.exists() and path.stat().st_size > 100
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        f"auditor-run-{data.run.id}.csv",
        f"auditor-run-{data.run.id}.junit.xml",
    ]
