"""Error and "not configured" replies, live, through the real NAPALM and Netmiko drivers.

Each OS's documented error replies (tests/fixtures/platforms/replies.yaml), an empty answer and a
garbage answer are served for every command the platform's record sends; each must end as a gap that
names the command, with no facts and nothing covered from it. A feature the switch does not have is
"not configured": EOS answers `show interfaces vxlan 1` on a switch with no Vxlan1 with an eAPI error
(the driver raises it), NX-OS has no `show nve` without `feature nv overlay`; neither is a gap."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
import yaml

from auditor.capture import RawCapture
from auditor.enums import FactKind, RunStatus
from auditor.normalize import NormalizerRegistry, Problem
from auditor.pipeline.audit import run_audit
from auditor.store.engine import open_store
from auditor.store.reader import RunReader
from collectors.network.collector import DeviceCollector
from collectors.platforms.registry import Command, get
from collectors.platforms.replies import unavailable_kinds
from tests.devsim import profiles
from tests.devsim.device import Device
from tests.devsim.profiles import FIXTURES
from tests.devsim.sim import DevSim
from tests.network.helpers import config, entry

REPLIES: dict[str, Any] = yaml.safe_load((FIXTURES / "platforms/replies.yaml").read_text())
SPINE = FIXTURES / "avd/examples/single-dc-l3ls/intended/configs/dc1-spine1.cfg"  # no VXLAN
REGISTRY = NormalizerRegistry().load_entry_points()
VXLAN = "show interfaces vxlan 1 | json"
GARBAGE = "Welcome to the maintenance shell\nsystem busy, please try again later\n"
LIVE = ["eos", "nxos_ssh", "ios", "cumulus", "sonic", "onyx"]  # Junos: tests/network/test_junos_live.py


def _collect(sim: DevSim, tmp: Path, dev: Device) -> list[RawCapture | Problem]:
    collector = DeviceCollector()
    (target,) = collector.plan(config([entry(sim, dev)], tmp)).targets
    return list(collector.collect(target))


def _normalized(got: list[RawCapture | Problem]) -> dict[str, tuple[RawCapture, Any]]:
    """command -> (its capture, what its normalizer made of it)."""
    caps = [g for g in got if isinstance(g, RawCapture) and "command" in g.meta]
    return {c.meta["command"]: (c, REGISTRY.get(c.format)(c)) for c in caps}


def _cases() -> list[tuple[str, str, str]]:
    out = []
    for builder in LIVE:
        name = get(builder).name
        texts = [("empty", ""), ("garbage", GARBAGE)]
        texts += [(f"error{i}", r["text"]) for i, r in enumerate(REPLIES[name]["error"])]
        out += [(builder, label, text) for label, text in texts]
    return out


CASES = _cases()


@pytest.mark.parametrize(("builder", "label", "text"), CASES, ids=[f"{b}:{lab}" for b, lab, _ in CASES])
def test_a_bad_reply_to_any_command_is_a_gap_naming_it(
    sim: DevSim, tmp_path: Path, builder: str, label: str, text: str
) -> None:
    platform = get(builder)
    dev = profiles.BUILDERS[builder](f"be-bad{CASES.index((builder, label, text))}")
    commands = platform.live_commands()
    dev.errors.update({c.command: text for c in commands})
    sim.add(dev)
    got = _collect(sim, tmp_path, dev)
    session_gaps = [str(p) for p in got if isinstance(p, Problem)]
    read = _normalized(got)
    for command in commands:
        if command.requires is not None:  # not sent: the running config (a bad reply too) cannot say
            continue
        if label == "empty" and command.empty_means_none:  # the OS's own "none": covers, no facts
            _, result = read[command.command]
            assert result.facts == [] and result.covers == {FactKind(k) for k in command.kinds}
            continue
        if command.command in read:
            capture, result = read[command.command]
            assert result.facts == [], f"{command.command}: facts from {label}"
            assert result.covers == set(), f"{command.command}: {label} counted as evidence"
            if result.problems or not _read_by_nothing(platform.name, capture, text_of(dev, command)):
                assert any(command.command in p.message for p in result.problems), (command, result.problems)
            # what only this answer can tell is a gap on the device, whatever the config covers
            withheld = set(result.gaps) - set(unavailable_kinds(platform))  # those are gaps whatever it says
            assert withheld == {FactKind(k) for k in command.live_only}
        else:  # the driver raised without the device's answer: the session reported it
            assert not command.live_only, f"{command.command}: its gap needs the answer kept as a capture"
            assert any(command.command in p for p in session_gaps), (command.command, session_gaps)


def text_of(dev: Device, command: Command) -> str:
    return profiles.BUILDERS[dev.platform](dev.name).answer(command.command) or ""


def _read_by_nothing(platform: str, capture: RawCapture, good: str) -> bool:
    """The command's real answer yields no facts and covers nothing: it is kept as evidence only, so a
    bad answer to it costs nothing either (NX-OS `show ip access-lists summary`, Onyx interfaces)."""
    real = REGISTRY.get(capture.format)(replace(capture, content=good.encode()))
    return not good or (real.facts == [] and real.covers == set())


def _no_vxlan_eos(name: str) -> Device:
    dev = profiles.eos(name, config=SPINE)
    dev.errors[VXLAN] = "% Interface does not exist"
    dev.text["show vxlan vni | json"] = json.dumps({"vxlanIntfs": {}})
    return dev


def test_eos_without_vxlan_is_not_configured_not_a_gap(sim: DevSim, tmp_path: Path) -> None:
    dev = sim.add(_no_vxlan_eos("be-spine7"))
    got = _collect(sim, tmp_path, dev)
    assert [p for p in got if isinstance(p, Problem)] == []
    capture, result = _normalized(got)[VXLAN]
    assert capture.content == b"Interface does not exist"  # eAPI's own words, stored as evidence
    assert capture.meta["reply"].startswith("eAPI error 1000:")
    assert (result.facts, result.problems, result.covers) == ([], [], {FactKind.VXLAN_VNI})


def test_the_same_words_answering_another_command_are_a_gap(sim: DevSim, tmp_path: Path) -> None:
    """Decoy: "Interface does not exist" means "no VXLAN" only as the answer to the VXLAN command. Any
    other error eAPI raises is kept as that command's capture and read as a gap naming it; the route
    table being the only source of learned routes, routes are then unknown on the switch."""
    route = "show ip route vrf all | json"
    dev = _no_vxlan_eos("be-spine8")
    dev.errors[route] = "% Interface does not exist"
    sim.add(dev)
    got = _collect(sim, tmp_path, dev)
    assert [p for p in got if isinstance(p, Problem)] == []
    read = _normalized(got)
    capture, result = read[route]
    assert capture.meta["reply"].startswith("eAPI error 1000:")
    assert (result.facts, result.covers) == ([], set())
    assert len(result.problems) == 1 and route in result.problems[0].message
    assert set(result.gaps) == {FactKind.ROUTE} and route in result.gaps[FactKind.ROUTE]
    assert read[VXLAN][1].covers == {FactKind.VXLAN_VNI}


BACKEND = {
    "tiers": {
        "backend": {"cidrs": ["10.30.0.0/15"], "vrfs": ["VRF10", "VRF11"], "devices": ["be-*"]},
        "oob": {"cidrs": ["10.250.0.0/16"], "vrfs": ["MGMT"]},
    }
}


def _findings(cfg: Any, run: int, check: str) -> list[Any]:
    engine = open_store(cfg.store)
    found = [f for f in RunReader(engine, run).findings() if f.check_id == check]
    engine.dispose()
    return found


def test_a_refused_route_table_makes_route_checks_not_assessed(sim: DevSim, tmp_path: Path) -> None:
    """The issue's case: with the route table refused, the config's few static routes must not let
    T3-VRF-NO-DEFAULT-ROUTE pass; the finding names the command. Decoy: the same switch whose route
    table answers is assessed."""
    route = "show ip route vrf all | json"
    refused = profiles.eos("be-leaf31")
    refused.errors[route] = f"% Authorization denied for command '{route}'"
    answered = profiles.eos("be-leaf32")
    for dev in (refused, answered):
        sim.add(dev)
    cfg = config([entry(sim, refused), entry(sim, answered)], tmp_path, intent=BACKEND)
    outcome = run_audit(cfg, render=False)
    assert outcome.seal.status == RunStatus.PARTIAL and outcome.exit_code != 0
    by_device = {
        d.name: [f for f in _findings(cfg, outcome.run_id, "T3-VRF-NO-DEFAULT-ROUTE") if f.target == d.name]
        for d in (refused, answered)
    }
    assert by_device[refused.name] and all(f.status == "NOT_ASSESSED" for f in by_device[refused.name])
    assert all(route in f.message for f in by_device[refused.name]), [
        f.message for f in by_device[refused.name]
    ]
    assert by_device[answered.name] and all(f.status in ("PASS", "FAIL") for f in by_device[answered.name])


def test_an_audit_of_an_eos_switch_without_vxlan_is_complete(sim: DevSim, tmp_path: Path) -> None:
    """The run is complete (no evidence gap, so no exit 3 on its account) and the VXLAN checks read
    "none configured" from the switch's evidence."""
    dev = sim.add(_no_vxlan_eos("be-spine9"))
    cfg = config([entry(sim, dev)], tmp_path, intent={"tiers": {"backend": {"cidrs": ["10.30.0.0/15"]}}})
    outcome = run_audit(cfg, render=False)
    engine = open_store(cfg.store)
    reader = RunReader(engine, outcome.run_id)
    (target,) = reader.targets()
    run, problems, findings = reader.run_row(), reader.problems(), reader.findings()
    engine.dispose()
    assert (target.status, target.reason, problems) == ("ok", None, [])
    assert run.status == "complete"
    tenant = [f for f in findings if f.check_id == "T3-TENANT-ISOLATION"]
    assert tenant and all("no evidence" not in (f.found or "") for f in tenant)


def test_nxos_without_feature_nv_overlay_is_not_asked_show_nve(sim: DevSim, tmp_path: Path) -> None:
    config_text = profiles.NXOS_CONFIG.read_text()
    assert "feature nv overlay" in config_text
    bare = tmp_path / "no-vxlan.cfg"
    bare.write_text(config_text.replace("feature nv overlay\n", ""))
    dev = sim.add(profiles.nxos("be-leaf7", config=bare))
    with_vxlan = sim.add(profiles.nxos("be-leaf6"))
    got = _collect(sim, tmp_path / "a", dev)
    assert [p for p in got if isinstance(p, Problem)] == []
    assert "show nve vni | json" not in sim.log.for_device(dev.name)
    assert "show nve vni | json" not in _normalized(got)
    _collect(sim, tmp_path / "b", with_vxlan)
    assert "show nve vni | json" in sim.log.for_device(with_vxlan.name)


def test_every_nxos_requires_names_a_feature_statement() -> None:
    """`requires` is only for commands the OS lacks without a feature; each has kinds to cover."""
    declared: list[Command] = [c for n in LIVE for c in get(n).live_commands() if c.requires is not None]
    assert declared, "NX-OS declares show nve's feature"
    assert all(c.kinds for c in declared)
