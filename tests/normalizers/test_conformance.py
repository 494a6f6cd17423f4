"""The conformance suite every registered network platform inherits (as NAPALM's drivers share one test
suite). It is parametrised over the platform registry: a new platform is tested by registering it and
adding its replies to tests/fixtures/platforms/replies.yaml and a sample to test_detect.SAMPLES.

- bad input (empty, garbage, binary, truncated JSON) never raises and never yields facts or coverage;
- an error reply is a gap naming the command: no facts, nothing covered (the checks needing it say
  NOT_ASSESSED), a Problem;
- a "not configured" reply covers the kinds its command reads, with no facts and no Problem;
- every platform declares commands that pass the read-only guard, a fixtures folder, and a detector;
- management services read from a configuration are marked "config", from a device's report of what
  runs "operational" (over every command the test device server answers).
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
import yaml

from auditor.capture import RawCapture
from auditor.enums import FactKind
from auditor.facts import MgmtService
from auditor.normalize import NormalizeResult, NormalizerRegistry
from checks.reconcile import WHOLE_CONFIG_FORMATS
from collectors.network.readonly import is_allowed
from collectors.platforms.registry import Platform, platforms
from tests.devsim import profiles

ROOT = Path(__file__).resolve().parents[2]
REPLIES: dict[str, Any] = yaml.safe_load((ROOT / "tests/fixtures/platforms/replies.yaml").read_text())
REGISTRY = NormalizerRegistry().load_entry_points()
PLATFORMS: list[Platform] = [p for _, p in platforms().items()]

BAD = {
    "empty": b"",
    "blank": b"\n\n   \n",
    "garbage": b"lorem ipsum dolor sit amet\nconsectetur adipiscing\n",
    "binary": bytes(range(256)),
    "html": b"<html><body><h1>502 Bad Gateway</h1></body></html>\n",
    "truncated-json": b'{"interface": {"swp1": {"type": "swp", "link": {"mtu": 91',
}


def _targets(platform: Platform) -> list[tuple[str, str | None]]:
    """(format, command) for every capture the platform produces: each live command, and its offline
    format (a file, no command)."""
    out: list[tuple[str, str | None]] = [(c.format, c.command) for c in platform.live_commands()]
    if platform.offline_format:
        out.append((platform.offline_format, None))
    return list(dict.fromkeys(out))


def _run(platform: Platform, fmt: str, command: str | None, content: bytes) -> NormalizeResult:
    meta = {"device": "dut", "platform": platform.name}
    if command:
        meta["command"] = command
    capture = RawCapture(
        target="dut",
        format=fmt,
        source=command or f"{fmt} (offline file)",
        origin="dut:conformance",
        collected_at=datetime(2025, 3, 4, tzinfo=UTC),
        content=content,
        meta=meta,
    )
    return REGISTRY.get(fmt)(capture)


CASES = [(p, fmt, cmd) for p in PLATFORMS for fmt, cmd in _targets(p)]
IDS = [f"{p.name}:{cmd or fmt}" for p, fmt, cmd in CASES]


@pytest.mark.parametrize(("platform", "fmt", "command"), CASES, ids=IDS)
@pytest.mark.parametrize("bad", sorted(BAD))
def test_bad_input_never_raises_and_never_yields_facts(
    platform: Platform, fmt: str, command: str | None, bad: str
) -> None:
    result = _run(platform, fmt, command, BAD[bad])
    assert result.facts == []
    declared = next((c for c in platform.live_commands() if c.command == command), None)
    if bad in ("empty", "blank") and declared is not None and declared.empty_means_none:
        return  # the OS's own "none" (its record says so): covered, no facts
    assert result.covers == set(), f"{bad} input must not count as having looked at anything"


def _error_cases() -> list[tuple[Platform, str, str | None, str]]:
    out = []
    for platform in PLATFORMS:
        for reply in REPLIES[platform.name]["error"]:
            out += [(platform, fmt, cmd, reply["text"]) for fmt, cmd in _targets(platform)]
    return out


ERRORS = _error_cases()


@pytest.mark.parametrize(
    ("platform", "fmt", "command", "text"),
    ERRORS,
    ids=[f"{p.name}:{c or f}:{t.strip().splitlines()[-1][:24]}" for p, f, c, t in ERRORS],
)
def test_an_error_reply_is_a_gap_naming_the_command(
    platform: Platform, fmt: str, command: str | None, text: str
) -> None:
    result = _run(platform, fmt, command, text.encode())
    assert (result.facts, result.covers) == ([], set())
    assert len(result.problems) == 1
    if command:
        assert command in result.problems[0].message


NOT_CONFIGURED = [(p, reply) for p in PLATFORMS for reply in REPLIES[p.name].get("not_configured", [])]


@pytest.mark.parametrize(
    ("platform", "reply"), NOT_CONFIGURED, ids=[f"{p.name}:{r['command']}" for p, r in NOT_CONFIGURED]
)
def test_a_not_configured_reply_covers_its_kinds_without_a_gap(
    platform: Platform, reply: dict[str, Any]
) -> None:
    command = next(c for c in platform.live_commands() if c.command == reply["command"])
    result = _run(platform, command.format, command.command, reply["text"].encode())
    assert result.facts == [] and result.problems == []
    assert result.covers == {FactKind(k) for k in reply["kinds"]}


def test_a_config_that_mentions_an_error_is_still_read() -> None:
    """Only a short answer whose first lines are an error is taken for one."""
    eos = next(p for p in PLATFORMS if p.name == "eos")
    config = (
        b"hostname leaf1\n!\nbanner motd\n% Invalid input is what you get for typos\nEOF\n!\n" + b"!\n" * 2000
    )
    result = _run(eos, "eos.running-config", "show running-config", config)
    assert result.facts and FactKind.INTERFACE in result.covers


@pytest.mark.parametrize("platform", PLATFORMS, ids=[p.name for p in PLATFORMS])
def test_every_platform_is_complete(platform: Platform) -> None:
    assert platform.name in REPLIES and REPLIES[platform.name]["error"], "add its error replies"
    assert platform.detect is not None
    assert platform.offline_format in platform.normalizers
    assert (ROOT / platform.fixtures).is_dir(), platform.fixtures
    assert platform.napalm_driver or platform.netmiko_device_type, "a live driver"
    for command in platform.live_commands():
        assert is_allowed(command.command), command.command
        assert command.format in platform.normalizers, command.format
        assert all(k in {f.value for f in FactKind} for k in command.kinds)


def _builder(platform: Platform) -> str:
    return platform.name if platform.name in profiles.BUILDERS else platform.napalm_driver or platform.name


@pytest.mark.parametrize("platform", PLATFORMS, ids=[p.name for p in PLATFORMS])
def test_management_readings_say_where_they_come_from(platform: Platform) -> None:
    """Every command's answer from the test device server: management services read from a
    configuration are marked "config", those read from a report of what runs "operational" (the
    checks prefer those, and say which one a finding rests on)."""
    device = profiles.BUILDERS[_builder(platform)]("dut")
    configs = {platform.offline_format, *platform.config_formats, *WHOLE_CONFIG_FORMATS}
    seen: set[str] = set()
    for command in platform.live_commands():
        text = device.answer(command.command)
        if text is None:
            continue
        for fact in _run(platform, command.format, command.command, text.encode()).facts:
            if isinstance(fact, MgmtService):
                assert fact.source == ("config" if command.format in configs else "operational"), command
                seen.add(fact.source)
    assert "config" in seen, "the configuration's management plane is read"
