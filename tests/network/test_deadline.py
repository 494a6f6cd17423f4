"""The hard per-device deadline: a device that hangs (on connect, on a command, on the disconnect) costs at
most its deadline, measured on the wall clock, whatever its driver does; the target names the device and
the stage; what arrived before is kept; the abandoned session sends nothing more."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from auditor.capture import RawCapture
from auditor.config.models import CollectionSettings
from auditor.enums import TargetStatus
from auditor.errors import CollectionError
from auditor.normalize import normalizer_registry
from auditor.pipeline.audit import plan_targets
from auditor.pipeline.collect import collect_targets
from auditor.pipeline.progress import NoProgress
from auditor.store.engine import open_store
from auditor.store.writer import RunWriter
from collectors.network.collector import DeviceCollector
from collectors.network.deadline import collect_within
from collectors.network.session import DeviceJob, Watch
from tests.devsim import profiles
from tests.devsim.sim import DevSim
from tests.network.helpers import config, entry

SLACK = 2.5  # thread start, a last read wake-up, a loaded CI machine


def collect(cfg: Any) -> tuple[list[Any], CollectionError | None, float]:
    collector = DeviceCollector()
    (target,) = collector.plan(cfg).targets
    got: list[Any] = []
    start = time.monotonic()
    try:
        for item in collector.collect(target):
            got.append(item)
    except CollectionError as exc:
        return got, exc, time.monotonic() - start
    return got, None, time.monotonic() - start


def test_default_deadline_follows_the_timeouts() -> None:
    assert CollectionSettings(connect_timeout=10, command_timeout=60).deadline_for_device() == 190
    assert CollectionSettings(device_deadline=30).deadline_for_device() == 30


@pytest.mark.parametrize(
    ("builder", "hang_on"),
    [
        (profiles.nxos, "show ip route vrf all | json"),  # SSH (NAPALM nxos_ssh), after the getters
        (profiles.sonic, "show runningconfiguration all"),  # SSH (Netmiko)
        (profiles.eos, "show ip route vrf all | json"),  # eAPI (the batch request hangs)
    ],
)
def test_command_that_never_answers_costs_at_most_the_deadline(
    sim: DevSim, tmp_path: Path, builder: Any, hang_on: str
) -> None:
    dev = sim.add(builder("stuck", hang_on=hang_on))
    deadline = 5.0
    # Without the deadline: 3 s read timeout, the disconnect waiting on the blocked channel, then a
    # reconnect that hangs again: well over twice the deadline.
    settings = {"command_timeout": 3, "connect_timeout": 2, "retries": 1, "device_deadline": deadline}
    got, err, took = collect(config([entry(sim, dev)], tmp_path, collection=settings))
    assert err is not None
    assert took < deadline + SLACK, took
    text = str(err)
    assert text.startswith("stuck: timed out: the device deadline of 5s was reached during")
    assert err.transient
    if builder is profiles.nxos:  # the getters and the running config came before: kept
        formats = {g.format for g in got if isinstance(g, RawCapture)}
        assert {"napalm.getters", "nxos.running-config"} <= formats
    if builder is not profiles.eos:  # the stuck command is named (eAPI: the batch request holding it)
        assert repr(hang_on) in text


def test_device_that_hangs_at_login_costs_at_most_the_deadline(sim: DevSim, tmp_path: Path) -> None:
    dev = sim.add(profiles.ios("mute-shell", behaviour="hang"))
    settings = {"command_timeout": 10, "connect_timeout": 10, "retries": 2, "device_deadline": 3}
    _, err, took = collect(config([entry(sim, dev)], tmp_path, collection=settings))
    assert err is not None and "during connect" in str(err)
    assert took < 3 + SLACK, took


def test_eapi_connects_under_the_connect_timeout(sim: DevSim, tmp_path: Path) -> None:
    """A TCP port that accepts and never speaks: the TLS handshake is bounded by connect_timeout (1 s),
    not by command_timeout (30 s)."""
    dev = sim.add(profiles.eos("eos-mute", behaviour="silent_tcp"))
    settings = {"command_timeout": 30, "connect_timeout": 1, "retries": 0, "device_deadline": 60}
    _, err, took = collect(config([entry(sim, dev)], tmp_path, collection=settings))
    assert err is not None and "timed out" in str(err) and "deadline" not in str(err)
    assert took < 1 + SLACK, took


def test_abandoned_session_sends_nothing_after_the_deadline(sim: DevSim, tmp_path: Path) -> None:
    dev = sim.add(profiles.onyx("slow-onyx", delay=1.5))  # each command answers after 1.5 s
    settings = {"command_timeout": 10, "connect_timeout": 5, "retries": 0, "device_deadline": 2}
    _, err, took = collect(config([entry(sim, dev)], tmp_path, collection=settings))
    assert err is not None and took < 2 + SLACK
    at_deadline = [c for c in sim.log.for_device("slow-onyx") if c.startswith("show")]
    time.sleep(4)  # long enough for the worker to have sent its next command, had it gone on
    later = [c for c in sim.log.for_device("slow-onyx") if c.startswith("show")]
    assert later == at_deadline
    assert len(later) < 2  # it never got through both show commands


def test_one_stuck_device_does_not_hold_the_run(sim: DevSim, tmp_path: Path) -> None:
    """The pipeline's collection phase, as `auditor audit` runs it: bounded by the stuck device's
    deadline, the healthy device collected beside it, the stuck one PARTIAL with the reason stored."""
    stuck = sim.add(profiles.nxos("nx-stuck", hang_on="show ip route vrf all | json"))
    healthy = sim.add(profiles.sonic("sonic-ok"))
    settings = {"command_timeout": 4, "connect_timeout": 2, "retries": 2, "device_deadline": 6}
    cfg = config([entry(sim, stuck), entry(sim, healthy)], tmp_path, collection=settings)
    engine = open_store(cfg.store_url())
    collectors: dict[str, Any] = {"devices": DeviceCollector()}
    plan = plan_targets(cfg, collectors)
    writer = RunWriter.start(engine, config={}, config_sha256="0" * 64, scope=cfg.scope)
    start = time.monotonic()
    outcomes = collect_targets(plan.targets, collectors, writer, normalizer_registry(), NoProgress(), 4)
    took = time.monotonic() - start
    assert took < 6 + SLACK + 2, took  # the deadline, plus storing what arrived
    assert outcomes["sonic-ok"].status == TargetStatus.OK
    assert outcomes["nx-stuck"].status == TargetStatus.PARTIAL
    reason = outcomes["nx-stuck"].reason or ""
    assert "nx-stuck: timed out: the device deadline of 6s was reached during" in reason
    assert "'show ip route vrf all | json'" in reason


def _job(connect_timeout: float = 1.0) -> DeviceJob:
    """A job for collect_within with a stand-in collection (only its name and timeouts are read)."""
    nothing: Any = None
    return DeviceJob("unit", "127.0.0.1", None, "sonic", nothing, nothing, {}, connect_timeout, 1.0, 0, 0.0)


def test_time_the_pipeline_holds_an_item_does_not_count_against_the_device() -> None:
    def quick(job: DeviceJob, watch: Watch) -> Iterator[Any]:
        for n in range(3):
            watch.stage(f"step {n}")
            yield n
        watch.stage("closing")

    got: list[Any] = []
    for item in collect_within(_job(), 1.0, collect=quick):
        got.append(item)
        time.sleep(0.6)  # a busy store writer: 1.8 s in all, past the 1 s deadline
    assert got == [0, 1, 2]


def test_a_stuck_step_is_named_and_costs_the_deadline() -> None:
    release = threading.Event()

    def stuck(job: DeviceJob, watch: Watch) -> Iterator[Any]:
        watch.stage("connect")
        watch.stage("show version")
        yield "before"
        release.wait(10)  # never answers within the deadline
        yield "after"  # produced once abandoned: must not come out

    got: list[Any] = []
    start = time.monotonic()
    with pytest.raises(CollectionError, match=r"deadline of 1s was reached during 'show version'"):
        got.extend(collect_within(_job(), 1.0, collect=stuck))
    assert time.monotonic() - start < 1 + SLACK
    release.set()
    time.sleep(0.2)
    assert got == ["before"]


def test_a_hanging_final_disconnect_is_not_waited_for() -> None:
    def rude(job: DeviceJob, watch: Watch) -> Iterator[Any]:
        watch.stage("show version")
        yield "all of it"
        watch.stage("closing")
        time.sleep(5)  # the goodbye hangs

    start = time.monotonic()
    got: list[Any] = list(collect_within(_job(connect_timeout=0.5), 30.0, collect=rude))
    assert got == ["all of it"]
    assert time.monotonic() - start < 0.5 + SLACK


def test_a_timed_out_command_costs_one_command_timeout_per_attempt(sim: DevSim, tmp_path: Path) -> None:
    """Below the deadline too: a session that died on a stuck channel is hung up, not sent a graceful
    goodbye that waits another command_timeout on the same channel."""
    dev = sim.add(profiles.sonic("stuck-sonic", hang_on="show runningconfiguration all"))
    settings = {"command_timeout": 3, "connect_timeout": 2, "retries": 1, "device_deadline": 60}
    _, err, took = collect(config([entry(sim, dev)], tmp_path, collection=settings))
    assert (
        err is not None and "timed out waiting for the device" in str(err) and "after 2 attempts" in str(err)
    )
    assert took < 2 * 3 + SLACK, took  # two attempts of one command timeout each (was about twice that)
