"""The second example, examples/ai-pod: exactly its planted violations FAIL, and every decoy PASSes."""

from __future__ import annotations

from tests.e2e.ai_pod import POD, audit_copy, difference, expected


def test_expected_rows_cite_real_lines() -> None:
    violations, decoys = expected()
    assert len(violations) >= 20 and len(decoys) >= 8
    for row in violations + decoys:
        path = POD / row.file
        assert path.is_file(), f"{row.check} {row.subject}: {row.file} does not exist"
        lines = path.read_text().splitlines()
        assert 1 <= row.line <= len(lines) and lines[row.line - 1].strip(), f"{row}: no such line"


def test_every_planted_violation_fails_every_decoy_passes_nothing_else_fails() -> None:
    code, report, output = audit_copy()
    diff = difference(report)
    assert diff.missed == set(), "planted violations that did not FAIL"
    assert diff.extra == set(), "FAILs that were not planted (false FAILs)"
    assert diff.decoys_not_passing == {}, "decoys that did not PASS"
    assert code == 1, output
    assert report["run"]["status"] == "complete"
    statuses = {f["status"] for f in report["findings"]}
    assert statuses <= {"PASS", "FAIL"}, statuses
