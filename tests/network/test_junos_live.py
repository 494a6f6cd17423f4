"""Junos live, through the real NAPALM junos driver (junos-eznc, ncclient) over NETCONF/SSH against the
device simulator's NETCONF subsystem (tests/devsim/netconf.py): the host key is verified against
known_hosts, only read commands reach the device, and the committed config collected live gives the
same facts as the same config read offline. The simulator answers `show configuration` and no
operational RPCs, so the getters are reported as gaps naming themselves (never as empty results)."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from auditor.capture import RawCapture
from auditor.errors import CollectionError
from auditor.normalize import NormalizerRegistry, Problem
from collectors.network.collector import DeviceCollector
from tests.devsim import profiles
from tests.devsim.sim import DevSim
from tests.network.conftest import PASSWORD_ENV
from tests.network.helpers import config, entry


@pytest.fixture
def password() -> Iterator[None]:
    saved = os.environ.get(PASSWORD_ENV)
    os.environ[PASSWORD_ENV] = "audit-pass"
    yield
    if saved is None:
        os.environ.pop(PASSWORD_ENV, None)
    else:
        os.environ[PASSWORD_ENV] = saved


def _key(record: object) -> str:
    return json.dumps(record.model_dump(mode="json"), sort_keys=True)  # type: ignore[attr-defined]


def test_junos_live_config_equals_offline(tmp_path: Path, password: None) -> None:
    with DevSim(tmp_path / "devsim") as sim:
        dev = sim.add(profiles.junos("be-leaf-qfx9"))
        collector = DeviceCollector()
        (target,) = collector.plan(config([entry(sim, dev)], tmp_path)).targets
        got = list(collector.collect(target))
        log = sim.log.for_device(dev.name)
    captures = {c.format: c for c in got if isinstance(c, RawCapture)}
    problems = [str(p) for p in got if isinstance(p, Problem)]
    live = captures["junos.config"]
    assert (
        live.content.decode() == dev.text["show configuration"].strip("\n")
        or live.content.decode() == (dev.text["show configuration"])
    )
    assert live.meta["command"] == "show configuration"
    assert "show configuration" in log
    assert all(p.startswith(f"{dev.name}: get_") for p in problems), problems  # unanswered RPCs: gaps

    registry = NormalizerRegistry().load_entry_points()
    offline = RawCapture(
        target=dev.name,
        format="junos.config",
        source="show configuration (offline file)",
        origin="be-leaf-qfx9.conf",
        collected_at=datetime.now(UTC),
        content=dev.text["show configuration"].encode(),
        meta={"device": dev.name, "platform": "junos"},
    )
    live_facts = registry.get("junos.config")(live)
    offline_facts = registry.get("junos.config")(offline)
    assert live_facts.problems == offline_facts.problems == []
    assert live_facts.facts and sorted(map(_key, live_facts.facts)) == sorted(map(_key, offline_facts.facts))


def test_an_unknown_host_key_refuses_the_netconf_session(tmp_path: Path, password: None) -> None:
    with DevSim(tmp_path / "devsim") as sim:
        dev = sim.add(profiles.junos("be-leaf-qfx8"))
        empty = tmp_path / "known_hosts"
        empty.write_text("")
        collector = DeviceCollector()
        (target,) = collector.plan(config([entry(sim, dev, known_hosts=str(empty))], tmp_path)).targets
        with pytest.raises(CollectionError):
            list(collector.collect(target))
        assert sim.log.for_device(dev.name) == []  # not one RPC was sent
