"""A whole fact kind a platform declares unavailable (`Platform.unavailable`, a key naming a fact model)
is a gap on every device of that platform: the checks needing it are NOT_ASSESSED, naming the platform
and its reason, never passed on nothing. A device of a platform that gives the kind is assessed."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from auditor.enums import FactKind
from auditor.pipeline.audit import run_audit
from auditor.store.engine import open_store
from auditor.store.reader import RunReader
from collectors.platforms.registry import Platform, get, platforms
from collectors.platforms.replies import unavailable_kinds
from tests.devsim import profiles
from tests.network.helpers import config

INTENT = {
    "tiers": {
        "backend": {"cidrs": ["10.30.0.0/15"], "vrfs": ["VRF10", "VRF11"], "devices": ["be-*"]},
    }
}


def test_an_unavailable_kind_makes_its_checks_not_assessed_naming_the_platform(tmp_path: Path) -> None:
    files = tmp_path / "files"
    files.mkdir()
    ios = profiles._rename(profiles._read("ios", "show_running-config.txt"), "be-rtr1")
    (files / "be-rtr1.cfg").write_text(ios)
    (files / "be-leaf1.cfg").write_text(profiles._rename(profiles.AVD_CONFIG.read_text(), "be-leaf1"))
    cfg: Any = config([], tmp_path, intent=INTENT, sources={"files": [{"path": str(files)}]})
    outcome = run_audit(cfg, render=False)
    engine = open_store(cfg.store)
    findings = [
        f for f in RunReader(engine, outcome.run_id).findings() if f.check_id == "T3-PFC-LOSSLESS-ONLY"
    ]
    engine.dispose()
    reason = get("ios").unavailable["QosInterface"]
    on_ios = [f for f in findings if f.target == "be-rtr1"]
    on_eos = [f for f in findings if f.target == "be-leaf1"]
    assert on_ios and all(f.status == "NOT_ASSESSED" for f in on_ios)
    assert all("Cisco IOS" in f.message and reason in f.message for f in on_ios), [f.message for f in on_ios]
    assert on_eos and all(f.status in ("PASS", "FAIL") for f in on_eos)  # decoy: EOS gives QoS


@pytest.mark.parametrize("platform", [p for _, p in platforms().items()], ids=lambda p: p.name)
def test_declared_unavailable_kinds_name_fact_models(platform: Platform) -> None:
    kinds = unavailable_kinds(platform)  # raises on a key that names no fact model
    assert FactKind.DEVICE not in kinds and FactKind.COVERAGE not in kinds
    for key in platform.unavailable:
        assert "." in key or any(k.name.replace("_", "").lower() == key.lower() for k in kinds), key
