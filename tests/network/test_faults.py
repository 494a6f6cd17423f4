"""Faults contained per device: each ends that target with the right reason; nothing is retried that
cannot pass; host keys and TLS certificates are verified unless a device explicitly opts out."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from auditor.capture import RawCapture
from auditor.errors import CollectionError
from collectors.network.collector import DeviceCollector
from tests.devsim import profiles
from tests.devsim.sim import DevSim
from tests.network.helpers import config, entry


def run(cfg: Any) -> tuple[Any, list[Any]]:
    collector = DeviceCollector()
    (target,) = collector.plan(cfg).targets
    return target, list(collector.collect(target))


def fail(cfg: Any) -> CollectionError:
    collector = DeviceCollector()
    (target,) = collector.plan(cfg).targets
    with pytest.raises(CollectionError) as err:
        list(collector.collect(target))
    return err.value


def test_refused_connection_is_unreachable_and_retried(sim: DevSim, tmp_path: Path) -> None:
    dev = profiles.sonic("gone")
    dev.port = sim.closed_port()
    err = fail(config([entry(sim, dev)], tmp_path, collection={"retries": 2}))
    assert "unreachable" in str(err)
    assert "after 3 attempts" in str(err)
    assert err.transient


def test_wrong_credentials_fail_once_without_retry(sim: DevSim, tmp_path: Path) -> None:
    for dev in (
        sim.add(profiles.nxos("nx-badpw", password="other")),
        sim.add(profiles.eos("eos-badpw", password="other")),
    ):
        err = fail(config([entry(sim, dev)], tmp_path, collection={"retries": 3}))
        assert "authentication failed" in str(err)
        assert "attempts" not in str(err)
        assert not err.transient
        assert "other" not in str(err) and "audit-pass" not in str(err)


def test_session_closed_mid_output(sim: DevSim, tmp_path: Path) -> None:
    dev = sim.add(profiles.cumulus("cl-drop", behaviour="close_mid_output"))
    err = fail(config([entry(sim, dev)], tmp_path))
    assert "closed the session" in str(err)
    assert "nv config show -o json" in str(err)


@pytest.mark.parametrize("builder", [profiles.nxos, profiles.eos])
def test_device_that_never_answers_times_out(sim: DevSim, tmp_path: Path, builder: Any) -> None:
    dev = sim.add(builder("hung", behaviour="hang"))
    err = fail(config([entry(sim, dev)], tmp_path, collection={"connect_timeout": 1, "command_timeout": 1}))
    assert "timed out" in str(err)


def test_tcp_server_that_never_sends_a_banner_times_out(sim: DevSim, tmp_path: Path) -> None:
    dev = sim.add(profiles.ios("mute", behaviour="silent_tcp"))
    err = fail(config([entry(sim, dev)], tmp_path, collection={"connect_timeout": 1}))
    assert "timed out" in str(err)


def test_unknown_host_key_is_refused_by_default(sim: DevSim, tmp_path: Path) -> None:
    dev = sim.add(profiles.onyx("new-switch"))
    sim.add(profiles.sonic("other-switch"))
    known = sim.known_hosts(exclude=("new-switch",))
    err = fail(config([entry(sim, dev, known_hosts=str(known))], tmp_path))
    assert "host key is not in known_hosts" in str(err)
    assert not err.transient
    assert sim.log.for_device("new-switch") == []


def test_missing_known_hosts_file_refuses_too(sim: DevSim, tmp_path: Path) -> None:
    dev = sim.add(profiles.sonic("sw-nofile"))
    err = fail(config([entry(sim, dev, known_hosts=str(tmp_path / "absent"))], tmp_path))
    assert "host key is not in known_hosts" in str(err)


def test_changed_host_key_is_refused(sim: DevSim, tmp_path: Path) -> None:
    dev = sim.add(profiles.sonic("sw-rekeyed"))
    import asyncssh

    other = asyncssh.generate_private_key("ssh-ed25519").export_public_key("openssh").decode().strip()
    known = tmp_path / "kh"
    known.write_text(f"[127.0.0.1]:{dev.port} {other}\n")
    err = fail(config([entry(sim, dev, known_hosts=str(known))], tmp_path))
    assert "does not match" in str(err)


def test_unknown_host_key_accepted_only_by_explicit_opt_out_and_noted(sim: DevSim, tmp_path: Path) -> None:
    dev = sim.add(profiles.sonic("lab-switch"))
    known = sim.known_hosts(exclude=("lab-switch",))
    cfg = config([entry(sim, dev, known_hosts=str(known), accept_unknown_host_key=True)], tmp_path)
    target, got = run(cfg)
    assert any(isinstance(g, RawCapture) for g in got)
    assert any("host key NOT verified" in n for n in target.notes)
    assert known.read_text().count("[127.0.0.1]") == 0  # the opt-out never writes to the known_hosts file


def test_tls_certificate_is_verified_by_default(sim: DevSim, tmp_path: Path) -> None:
    dev = sim.add(profiles.eos("eos-untrusted"))
    e = entry(sim, dev)
    del e["ca_file"]  # the system CAs do not know the test CA
    err = fail(config([e], tmp_path))
    assert "TLS certificate verification failed" in str(err)
    assert sim.log.for_device("eos-untrusted") == []


def test_tls_opt_out_collects_and_is_noted(sim: DevSim, tmp_path: Path) -> None:
    dev = sim.add(profiles.eos("eos-lab"))
    e = entry(sim, dev, verify_tls=False)
    del e["ca_file"]
    target, got = run(config([e], tmp_path))
    assert any(isinstance(g, RawCapture) for g in got)
    assert any("TLS certificate NOT verified" in n for n in target.notes)


def test_missing_secret_names_the_variable_not_a_value(sim: DevSim, tmp_path: Path) -> None:
    dev = sim.add(profiles.sonic("sw-noenv"))
    e = entry(sim, dev, credentials={"username": "admin", "password_env": "NOT_SET_ANYWHERE_42"})
    err = fail(config([e], tmp_path))
    assert "NOT_SET_ANYWHERE_42" in str(err)


def test_dropped_session_is_resumed_where_it_was_cut_off(sim: DevSim, tmp_path: Path) -> None:
    dev = sim.add(profiles.onyx("onyx-flaky", drop_sessions=1))
    _, got = run(config([entry(sim, dev)], tmp_path, collection={"retries": 1}))
    caps = [g for g in got if isinstance(g, RawCapture)]
    assert [c.meta["command"] for c in caps] == ["show running-config", "show interfaces ethernet"]
    assert caps[0].content.decode().strip() == dev.text["show running-config"].strip()
    assert sim.log.for_device("onyx-flaky").count("show running-config") == 2  # cut off once, then resumed


def test_unparsable_getter_output_costs_that_getter_only(sim: DevSim, tmp_path: Path) -> None:
    dev = profiles.nxos("nx-garbled")
    dev.text["show vlan brief | json"] = "% Permission denied for the role\n{ not json"
    sim.add(dev)
    _, got = run(config([entry(sim, dev)], tmp_path))
    problems = [g for g in got if not isinstance(g, RawCapture)]
    assert len(problems) == 1 and problems[0].message.startswith("get_vlans:")
    captures = {g.format: g for g in got if isinstance(g, RawCapture)}
    assert {"napalm.getters", "nxos.running-config", "nxos.show-json"} <= set(captures)
    bundled = json.loads(captures["napalm.getters"].content)
    assert "get_vlans" not in bundled
    assert {"get_facts", "get_interfaces", "get_interfaces_ip", "get_network_instances"} <= set(bundled)
