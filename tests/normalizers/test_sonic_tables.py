"""SONiC config_db facts against the document's own tables (issue 10's ground truth for SONiC).

No public parse expectations exist for SONiC or NVUE (../shared/fixtures/INDEX.md: sonic-buildimage's
and sonic-utilities' expectations live in Python tests; NVUE configs are not public data), so every
SONiC sample's facts are compared with its tables read directly (ground_truth.sonic_table_fields):
interface addresses, VRFs, VLAN ids, port MTUs, LAG membership. benchmarks/ground_truth_agreement.py
counts the same over ../shared/fixtures.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from auditor.capture import RawCapture
from collectors.platforms.sonic.config_db import normalize_config_db
from tests.normalizers import ground_truth as gt

FILES = sorted((Path(__file__).resolve().parents[1] / "fixtures" / "sonic").glob("*.json"))


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_facts_agree_with_the_config_db_tables(path: Path) -> None:
    doc = json.loads(path.read_text())
    capture = RawCapture(
        target="sw",
        format="sonic.config-db",
        source="show runningconfiguration all",
        origin=path.name,
        collected_at=datetime(2025, 3, 4, tzinfo=UTC),
        content=json.dumps(doc.get("SAMPLE_CONFIG_DB_JSON", doc)).encode(),
        meta={"device": "sw", "platform": "sonic"},
    )
    fields = list(gt.sonic_table_fields(doc, normalize_config_db(capture).facts))
    assert [(where, got, want) for where, got, want in fields if got != want] == []
