"""Every check keeps a decoy: a legitimate design that looks like a violation, whose fixture expects PASS
findings and no FAIL (the harness runs it with the other cases; this asserts it exists and passes)."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from checks.base import check_registry

CASES = Path(__file__).resolve().parent.parent / "fixtures" / "checks"
IDS = sorted(check_registry())


@pytest.mark.parametrize("check_id", IDS)
def test_check_has_a_passing_decoy(check_id: str) -> None:
    decoys = sorted((CASES / check_id).glob("decoy-*"))
    assert decoys, f"{check_id} has no decoy-* fixture"
    for folder in decoys:
        statuses = {e["status"] for e in yaml.safe_load((folder / "expected.yaml").read_text())}
        assert "PASS" in statuses and "FAIL" not in statuses, folder.name
