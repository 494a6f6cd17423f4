"""Waivers: which failures they cover, when they stop applying, what they do to the exit code, and how
a bad waiver in the config is reported."""

from __future__ import annotations

import subprocess
import sys
from datetime import date
from pathlib import Path

import pytest

from auditor.config.loader import parse_config
from auditor.config.models import Waiver
from auditor.enums import Status, WaiverState
from auditor.errors import ConfigError
from auditor.pipeline.checking import exit_code
from auditor.pipeline.waivers import apply_waivers, matches, stored_waivers, waiver_json
from auditor.store.writer import FindingRow

RUN_DAY = date(2026, 12, 1)


def row(
    check: str, subject: str, status: Status = Status.FAIL, target: str | None = "be-leaf2"
) -> FindingRow:
    return FindingRow(check, status.value, "high", "backend", target, subject, "violated", "e", "f", [], [])


def waiver(check: str = "T3-VRF-NO-DEFAULT-ROUTE", *, expires: date = date(2027, 1, 31), **kw: str) -> Waiver:
    return Waiver(check=check, owner=kw.pop("owner", "fabric-team"), reason="CHG-1", expires=expires, **kw)


@pytest.mark.parametrize(
    ("w", "check", "target", "subject", "hit"),
    [
        (waiver(), "T3-VRF-NO-DEFAULT-ROUTE", "be-leaf2", "be-leaf2/vrf RDMA-B", True),
        (waiver(), "T2-NS-DEFAULT-DENY", "be-leaf2", "be-leaf2/vrf RDMA-B", False),  # other check
        (waiver(target="be-leaf*"), "T3-VRF-NO-DEFAULT-ROUTE", "be-leaf2", "x", True),
        (waiver(target="be-spine*"), "T3-VRF-NO-DEFAULT-ROUTE", "be-leaf2", "x", False),
        (waiver(target="BE-LEAF2"), "T3-VRF-NO-DEFAULT-ROUTE", "be-leaf2", "x", False),  # case-sensitive
        (waiver(subject="*/vrf RDMA-?"), "T3-VRF-NO-DEFAULT-ROUTE", "be-leaf2", "be-leaf2/vrf RDMA-B", True),
        (
            waiver(subject="*/vrf RDMA-[AC]"),
            "T3-VRF-NO-DEFAULT-ROUTE",
            "be-leaf2",
            "be-leaf2/vrf RDMA-B",
            False,
        ),
        (waiver(target="*"), "T3-VRF-NO-DEFAULT-ROUTE", None, "cross-tier subject", True),  # no target
        (waiver(target="be-*"), "T3-VRF-NO-DEFAULT-ROUTE", None, "cross-tier subject", False),
    ],
)
def test_matching_by_check_id_and_globs(
    w: Waiver, check: str, target: str | None, subject: str, hit: bool
) -> None:
    assert matches(w, check, target, subject) is hit


def test_a_waiver_in_force_is_attached_and_the_failure_stays_fail() -> None:
    w = waiver(subject="*/vrf RDMA-B")
    rows = [
        row("T3-VRF-NO-DEFAULT-ROUTE", "be-leaf2/vrf RDMA-B"),
        row("T3-VRF-NO-DEFAULT-ROUTE", "be-leaf2/vrf RDMA-A"),
        row("T3-VRF-NO-DEFAULT-ROUTE", "be-leaf1/vrf RDMA-B", Status.PASS),
    ]
    out = apply_waivers(rows, [w], RUN_DAY)
    assert [r.status for r in out.rows] == ["FAIL", "FAIL", "PASS"]
    assert out.rows[0].waiver == {
        "check": "T3-VRF-NO-DEFAULT-ROUTE",
        "target": "*",
        "subject": "*/vrf RDMA-B",
        "owner": "fabric-team",
        "reason": "CHG-1",
        "expires": "2027-01-31",
    }
    assert out.rows[1].waiver is None and out.rows[2].waiver is None  # a PASS is never waived
    assert out.rows[0].message == "violated"  # the evidence text is untouched
    assert out.waived == 1
    assert [(n.state, n.matched) for n in out.notes] == [(WaiverState.ACTIVE, 1)]
    # one failure is left: the exit code is still 1
    assert exit_code(out.exit_statuses(), True) == 1


def test_waived_failures_do_not_make_the_exit_code_1() -> None:
    rows = [row("T3-VRF-NO-DEFAULT-ROUTE", "a"), row("T3-VRF-NO-DEFAULT-ROUTE", "b", Status.PASS)]
    out = apply_waivers(rows, [waiver()], RUN_DAY)
    assert exit_code([Status(r.status) for r in out.rows], True) == 1  # raw statuses
    assert exit_code(out.exit_statuses(), True) == 0
    gap = apply_waivers(
        [*rows, row("T3-VRF-NO-DEFAULT-ROUTE", "c", Status.NOT_ASSESSED)], [waiver()], RUN_DAY
    )
    assert exit_code(gap.exit_statuses(), True) == 3  # evidence still incomplete


@pytest.mark.parametrize(
    ("expires", "applies"),
    [(date(2026, 12, 2), True), (RUN_DAY, True), (date(2026, 11, 30), False)],
    ids=["tomorrow", "the run's day", "yesterday"],
)
def test_a_waiver_applies_through_its_expiry_day_then_stops_by_itself(expires: date, applies: bool) -> None:
    out = apply_waivers([row("T3-VRF-NO-DEFAULT-ROUTE", "a")], [waiver(expires=expires)], RUN_DAY)
    (r,) = out.rows
    (note,) = out.notes
    if applies:
        assert r.waiver is not None and note.state is WaiverState.ACTIVE
        assert exit_code(out.exit_statuses(), True) == 0
    else:
        assert r.waiver is None and note.state is WaiverState.EXPIRED and note.matched == 1
        assert (
            r.message
            == f"violated [waiver by fabric-team expired {expires.isoformat()}; it no longer applies]"
        )
        assert exit_code(out.exit_statuses(), True) == 1
        assert "expired on 2026-11-30" in note.text() and "1 failure(s) it matched count again" in note.text()
        assert out.expired() == [note]


def test_first_waiver_in_force_wins_over_an_expired_one() -> None:
    old = waiver(expires=date(2026, 1, 1), owner="old-owner")
    new = waiver(owner="new-owner")
    out = apply_waivers([row("T3-VRF-NO-DEFAULT-ROUTE", "a")], [old, new], RUN_DAY)
    assert out.rows[0].waiver is not None and out.rows[0].waiver["owner"] == "new-owner"
    assert "expired" not in out.rows[0].message
    assert [(n.state, n.matched) for n in out.notes] == [(WaiverState.EXPIRED, 0), (WaiverState.ACTIVE, 1)]


def test_an_unused_waiver_is_reported_with_zero_matches() -> None:
    out = apply_waivers([row("T3-VRF-NO-DEFAULT-ROUTE", "a", Status.PASS)], [waiver()], RUN_DAY)
    assert out.notes[0].matched == 0 and out.waived == 0


def test_unknown_check_id_is_a_config_error_naming_the_line() -> None:
    text = """\
scope: test
waivers:
  - check: T3-VRF-NO-DEFAULT-ROUTE
    owner: a
    reason: b
    expires: 2030-01-01
  - check: T3-VRF-NO-DEFAULT-RUOTE
    owner: a
    reason: b
    expires: 2030-01-01
"""
    with pytest.raises(ConfigError) as err:
        parse_config(text, source="auditor.yaml")
    assert err.value.line == 7
    assert err.value.field == "waivers[1].check"
    assert "no installed check has the id 'T3-VRF-NO-DEFAULT-RUOTE'" in str(err.value)


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        ("{check: T3-VRF-NO-DEFAULT-ROUTE, owner: a, reason: b}", "waivers[0].expires: required field"),
        ("{check: T3-VRF-NO-DEFAULT-ROUTE, owner: a, reason: b, expires: soon}", "waivers[0].expires"),
        ("{check: T3-VRF-NO-DEFAULT-ROUTE, reason: b, expires: 2030-01-01}", "waivers[0].owner: required"),
        (
            "{check: T3-VRF-NO-DEFAULT-ROUTE, owner: a, reason: b, expires: 2030-01-01, until: x}",
            "unknown key",
        ),
    ],
)
def test_malformed_waivers_are_config_errors(entry: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message.replace("[", r"\[").replace("]", r"\]")):
        parse_config(f"waivers:\n  - {entry}\n", source="auditor.yaml")


def test_cli_exit_code_2_for_an_unknown_waiver_check(tmp_path: Path) -> None:
    cfg = tmp_path / "auditor.yaml"
    cfg.write_text("waivers:\n  - {check: T9-NO-SUCH-CHECK, owner: a, reason: b, expires: 2030-01-01}\n")
    result = subprocess.run(
        [sys.executable, "-m", "auditor", "audit", "-c", str(cfg), "-q"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 2
    out = " ".join((result.stdout + result.stderr).split())
    assert f"{cfg}:2: waivers[0].check: no installed check has the id 'T9-NO-SUCH-CHECK'" in out


def test_stored_waivers_skip_those_whose_check_is_gone() -> None:
    good = waiver_json(waiver())
    gone = {**good, "check": "T9-UNINSTALLED"}
    assert stored_waivers({"waivers": [gone, good]}) == [waiver()]
    assert stored_waivers({}) == []
