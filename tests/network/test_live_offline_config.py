"""The same configuration gives the same facts live and offline, field by field, on every platform with
a live driver.

Live: a full audit of one emulated device, collected through the real NAPALM (EOS, NX-OS, IOS, Junos)
or Netmiko (Cumulus, SONiC, Onyx) driver. Offline: a full audit of a `sources.files` folder holding
that device's configuration as the device printed it, detected from its content. Then:
- the facts of the live running-config capture are exactly the offline facts (same records, same
  fields, same values);
- after the live answers are reconciled into one record per subject (checks see those), every subject
  the configuration yields is there and every field the configuration states has the configuration's
  value (a field it leaves unstated may be filled from the device's getters and show commands), and
  every interface carries the platform's canonical name (no `Management0` beside `mgmt0`);
- what the config proves looked at (coverage) is covered live too;
- a management service reads the same live (from the device's report of what runs, where the platform
  has one) as offline (inferred from the configuration), but for the mark of where it came from;
- on the platforms whose live collection is the configuration alone, the facts are identical.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from auditor.enums import FactKind
from auditor.facts import Coverage
from auditor.pipeline.audit import run_audit
from auditor.store.engine import open_store
from auditor.store.reader import RunReader
from checks.reconcile import reconcile
from collectors.platforms.registry import get
from tests.devsim import profiles
from tests.devsim.sim import DevSim
from tests.network.helpers import config, entry

PLATFORMS = {  # devsim builder -> device name
    "eos": "be-leaf21",
    "nxos_ssh": "be-leaf22",
    "ios": "oob-rtr23",
    "junos": "be-qfx24",
    "cumulus": "be-sw25",
    "sonic": "be-sw26",
    "onyx": "be-sw27",
}
CONFIG_ONLY = {"cumulus", "sonic", "onyx", "junos"}  # no getters or show tables read live besides it
CONFIG_FORMATS = {
    f for b in PLATFORMS for f in (get(b).live_commands()[0].format, get(b).offline_format) if f
}

Facts = dict[tuple[str, str], dict[str, Any]]
# MgmtService fields saying where a reading came from: live, the device's own report of what runs
OPERATIONAL_MARKS = frozenset({"source", "all_vrfs"})


def _read(store: str, run: int) -> tuple[Facts, list[str], set[FactKind]]:
    """(facts reconciled to one record per subject, as checks see them; the records of the
    configuration captures alone, as sorted JSON; the kinds covered)."""
    engine = open_store(store)
    stored = RunReader(engine, run).facts()
    engine.dispose()
    covered = {f.record.covers for f in stored if isinstance(f.record, Coverage)}
    reconciled: Facts = {
        (f.kind.value, f.record.subject()): f.record.model_dump(mode="json")
        for f in reconcile(stored)
        if f.kind != FactKind.COVERAGE
    }
    from_config = sorted(
        json.dumps(f.record.model_dump(mode="json"), sort_keys=True)
        for f in stored
        if f.kind != FactKind.COVERAGE and f.capture_format in CONFIG_FORMATS
    )
    return reconciled, from_config, covered


@pytest.mark.parametrize("builder", sorted(PLATFORMS))
def test_live_facts_equal_the_offline_config_field_by_field(
    sim: DevSim, tmp_path: Path, builder: str
) -> None:
    name = PLATFORMS[builder]
    dev = sim.add(profiles.BUILDERS[builder](name))
    (tmp_path / "live").mkdir()
    live_cfg = config([entry(sim, dev)], tmp_path / "live")
    live_run = run_audit(live_cfg, render=False).run_id

    files = tmp_path / "files"
    files.mkdir()
    config_command = get(builder).live_commands()[0]  # every platform sends its configuration first
    text = dev.answer(config_command.command)
    assert text and json.dumps(text)
    (files / f"{name}.cfg").write_text(text)
    (tmp_path / "offline").mkdir()
    off_cfg = config([], tmp_path / "offline", sources={"files": [{"path": str(files)}]})
    off_run = run_audit(off_cfg, render=False).run_id

    live, live_config, live_covered = _read(live_cfg.store, live_run)
    offline, off_config, off_covered = _read(off_cfg.store, off_run)
    assert len(offline) > 5, "the configuration yields facts"
    assert live_config == off_config, "the live configuration capture reads exactly as the offline file"
    assert off_covered <= live_covered
    for key, record in offline.items():
        assert key in live, f"{key} is in the configuration but not in the live facts"
        for field, value in record.items():
            if field in OPERATIONAL_MARKS and key[0] == "mgmt_service":
                continue  # where the live reading of the management plane came from (test_mgmt_live)
            if value is not None:
                assert live[key][field] == value, (key, field, live[key][field], value)
    canon = get(builder).interface_namer()  # one name per port, whichever answer named it
    names = [record["name"] for (kind, _), record in live.items() if kind == "interface"]
    assert [n for n in names if canon(n) != n] == []
    if builder in CONFIG_ONLY:
        assert live == offline
