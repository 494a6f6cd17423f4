"""The platform x fact-field coverage table in collectors/normalizers/FORMATS.md is generated from the
platforms' fixtures; it must match what the normalizers produce today."""

from __future__ import annotations

from collectors.platforms.coverage import FORMATS_MD, render


def test_formats_md_coverage_table_is_current() -> None:
    current = FORMATS_MD.read_text()
    assert render(current) == current, "stale: run `python -m collectors.platforms.coverage`"
