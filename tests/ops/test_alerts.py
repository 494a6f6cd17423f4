"""Alerts: the events since the previous run of the scope, the webhook against a real HTTP server (Slack-
compatible body, finding text escaped), retries with backoff, and a sink that is down never changing the
audit's outcome or exit code."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine

from auditor.config.alerts import AlertSettings
from auditor.config.loader import load_config
from auditor.config.models import AuditConfig
from auditor.enums import TargetStatus
from auditor.ops.alerts import send_alerts
from auditor.ops.alerts.events import changes_since_previous
from auditor.store.engine import open_store
from tests.e2e.conftest import LAB, run_cli
from tests.ops.alert_receivers import closed_port, udp_listener, wait_for, webhook_receiver
from tests.ops.alert_runs import HOSTILE, STILL, make_run, two_runs


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Engine]:
    engine = open_store(f"sqlite:///{tmp_path / 'store.db'}")
    yield engine
    engine.dispose()


def config_with(tmp_path: Path, **alerts: Any) -> AuditConfig:
    return AuditConfig(alerts=AlertSettings.model_validate(alerts), base_dir=tmp_path)


def test_events_are_what_changed_since_the_previous_run(store: Engine) -> None:
    runs = two_runs(store)
    settings = AlertSettings.model_validate({"sinks": [{"type": "syslog", "host": "127.0.0.1"}]})
    alert = changes_since_previous(store, runs.b, settings)
    assert alert.previous_run_id == runs.a
    got = [(e.kind, e.check_id, e.target) for e in alert.events]
    assert got == [
        (
            "new_failure",
            "T2-INGRESS-TLS",
            "leaf1",
        ),  # the still-failing, the waived and the info one: not news
        ("unauthorised_flow", "X-FLOWS-NO-CROSS-TIER", "flows"),
        ("target_unreachable", None, "leaf2"),
    ]
    assert "connection refused" in alert.events[2].detail

    first = changes_since_previous(store, runs.a, settings)  # a scope's first run: every failure is new
    assert first.previous_run_id is None
    assert [(e.kind, e.check_id) for e in first.events] == [("new_failure", STILL.check_id)]
    quiet = settings.model_copy(update={"first_run": False})
    assert changes_since_previous(store, runs.a, quiet).events == []
    only_flows = settings.model_copy(update={"events": ["unauthorised_flow"]})
    assert [e.kind for e in changes_since_previous(store, runs.b, only_flows).events] == ["unauthorised_flow"]
    other_scope = make_run(store, "other", [("leaf1", "device", TargetStatus.FAILED, "down")], [])
    assert changes_since_previous(store, other_scope, settings).previous_run_id is None  # scopes apart


def test_a_waiver_that_expired_since_the_previous_run_is_alerted_once(store: Engine) -> None:
    yesterday = (datetime.now(UTC) - timedelta(days=1)).date()
    waiver = {
        "check": "T3-VRF-NO-DEFAULT-ROUTE",
        "target": "leaf1",
        "subject": "*",
        "owner": "netops",
        "reason": "migration window",
        "expires": yesterday.isoformat(),
    }
    later = {**waiver, "check": "T2-INGRESS-TLS", "expires": date(2099, 1, 1).isoformat()}
    ok = [("leaf1", "device", TargetStatus.OK, None)]
    settings = AlertSettings.model_validate({"sinks": [{"type": "syslog", "host": "127.0.0.1"}]})
    first = make_run(store, "w", ok, [STILL], {"waivers": [waiver, later]})
    events = changes_since_previous(store, first, settings).events
    expired = [e for e in events if e.kind == "waiver_expired"]
    assert len(expired) == 1 and expired[0].check_id == "T3-VRF-NO-DEFAULT-ROUTE"
    assert "expired on" in expired[0].detail and "1 failure(s)" in expired[0].detail
    second = make_run(store, "w", ok, [STILL], {"waivers": [waiver, later]})
    assert [
        e for e in changes_since_previous(store, second, settings).events if e.kind == "waiver_expired"
    ] == []


def test_webhook_body_is_slack_compatible_and_escapes_finding_text(store: Engine, tmp_path: Path) -> None:
    runs = two_runs(store)
    with webhook_receiver() as hook:
        cfg = config_with(tmp_path, sinks=[{"type": "webhook", "url": hook.url}])
        deliveries = send_alerts(cfg, store, runs.b)
    assert [d.ok for d in deliveries] == [True]
    assert len(hook.bodies) == 1
    raw = hook.bodies[0]
    assert hook.headers[0]["Content-Type"].startswith("application/json")
    assert b"<" not in raw and b">" not in raw  # no mention, link or tag survives as such in the bytes
    body = json.loads(raw)
    assert body["text"].startswith(f"auditor: scope 'lab' run {runs.b} (partial), since run {runs.a}")
    assert "1 new failure, 1 unauthorised flow, 1 target stopped answering" in body["text"]
    sections = [b["text"]["text"] for b in body["blocks"] if b["type"] == "section"]
    listing = "\n".join(sections)
    assert '&lt;!channel&gt; &amp; "boss" &lt;http://evil.example|click here&gt; second line' in listing
    assert "<!channel>" not in listing and "\nsecond line" not in listing  # escaped and kept to one line
    assert body["blocks"][0]["type"] == "header" and len(body["blocks"][0]["text"]["text"]) <= 150
    assert body["attachments"][0]["fallback"] == body["text"]
    data = body["auditor"]  # the same events as data, for receivers that are not Slack
    assert data["run_id"] == runs.b and data["previous_run_id"] == runs.a
    assert data["events"][0]["detail"] == HOSTILE  # exact text, the JSON decoder undoes the escapes


def test_a_failing_webhook_is_retried_with_backoff(store: Engine, tmp_path: Path) -> None:
    runs = two_runs(store)
    waits: list[float] = []
    with webhook_receiver(fail_first=2) as hook:
        cfg = config_with(tmp_path, sinks=[{"type": "webhook", "url": hook.url}], retries=3, backoff=0.5)
        deliveries = send_alerts(cfg, store, runs.b, sleep=waits.append)
    assert deliveries[0].ok and deliveries[0].attempts == 3
    assert waits == [0.5, 1.0] and len(hook.bodies) == 1


def test_a_sink_that_is_down_is_retried_logged_and_gives_up(
    store: Engine, tmp_path: Path, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    runs = two_runs(store)
    secret = f"http://127.0.0.1:{closed_port()}/services/T000/B000/secret-token-XYZ"
    monkeypatch.setenv("H5_HOOK_URL", secret)
    waits: list[float] = []
    cfg = config_with(tmp_path, sinks=[{"type": "webhook", "url_env": "H5_HOOK_URL"}], retries=2, backoff=1)
    with caplog.at_level(logging.INFO, logger="auditor.alerts"):
        deliveries = send_alerts(cfg, store, runs.b, sleep=waits.append)
    assert not deliveries[0].ok and deliveries[0].attempts == 3 and waits == [1, 2]
    assert "attempt 1 of 3 failed" in caplog.text and "gave up after 3 attempts" in caplog.text
    assert "secret-token-XYZ" not in caplog.text  # a webhook URL from the environment is never logged
    monkeypatch.delenv("H5_HOOK_URL")
    missing = send_alerts(cfg, store, runs.b, sleep=waits.append)
    assert not missing[0].ok and missing[0].attempts == 1 and "H5_HOOK_URL" in (missing[0].error or "")


def test_the_audit_exits_as_before_when_a_sink_is_down(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """The example lab exits 1 (planted violations); with a dead webhook beside a working syslog sink it
    still does, the working sink still gets the alerts, and the dead one is logged."""
    from auditor.pipeline.audit import run_audit

    with udp_listener() as (port, datagrams):
        alerts = AlertSettings.model_validate(
            {
                "sinks": [
                    {"type": "webhook", "url": f"http://127.0.0.1:{closed_port()}/hook"},
                    {"type": "syslog", "host": "127.0.0.1", "port": port},
                ],
                "retries": 1,
                "backoff": 0,
            }
        )
        cfg = load_config(LAB / "auditor.yaml").model_copy(
            update={"alerts": alerts, "store": f"sqlite:///{tmp_path / 'lab.db'}"}
        )
        with caplog.at_level(logging.WARNING, logger="auditor.alerts"):
            outcome = run_audit(cfg, render=False, workers=4)
        wait_for(lambda: len(datagrams) >= 2)  # the listener thread may still be reading
    assert outcome.exit_code == 1 and outcome.seal.status.value in ("complete", "partial")
    assert "alert sink webhook: gave up after 2 attempts" in caplog.text
    assert datagrams and b"run_summary" in datagrams[0]


def test_alerts_show_and_send_from_the_command_line(store: Engine, tmp_path: Path) -> None:
    runs = two_runs(store)
    with udp_listener() as (port, datagrams):
        config = tmp_path / "auditor.yaml"
        config.write_text(
            f"store: {store.url.render_as_string(hide_password=False)}\n"
            f"alerts:\n  retries: 0\n  sinks:\n    - {{type: syslog, host: 127.0.0.1, port: {port}}}\n"
        )
        shown = run_cli("alerts", "show", "-c", str(config), "--run", str(runs.b), "--json")
        assert shown.returncode == 0, shown.stderr
        assert [e["kind"] for e in json.loads(shown.stdout)["events"]] == [
            "new_failure",
            "unauthorised_flow",
            "target_unreachable",
        ]
        text = run_cli("alerts", "show", "-c", str(config), "--run", str(runs.b))
        assert "[high] new failure: T2-INGRESS-TLS on leaf1" in text.stdout  # not eaten as markup
        sent = run_cli("alerts", "send", "-c", str(config), "--run", str(runs.b))
        assert sent.returncode == 0 and "syslog: sent (attempt 1)" in sent.stdout, sent.stdout + sent.stderr
        wait_for(lambda: len(datagrams) >= 4)
    assert b"run_summary" in datagrams[0]
