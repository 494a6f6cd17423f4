"""The syslog and e-mail sinks against real local receivers: RFC 5424 over UDP and over TCP with octet
counting (the header parsed here), and aiosmtpd requiring STARTTLS on a certificate from a CA made in the
test, which the sink trusts through its ca_file (verification stays on; without the CA it refuses)."""

from __future__ import annotations

import email
import email.policy
import json
import logging
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path

import pytest
from sqlalchemy import Engine

from auditor.config.alerts import AlertSettings
from auditor.config.models import AuditConfig
from auditor.ops.alerts import send_alerts
from auditor.store.engine import open_store
from tests.ops.alert_receivers import (
    Pki,
    make_pki,
    octet_frames,
    parse_5424,
    smtp_receiver,
    tcp_listener,
    udp_listener,
    wait_for,
)
from tests.ops.alert_runs import TwoRuns, two_runs


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Engine, TwoRuns]]:
    engine = open_store(f"sqlite:///{tmp_path_factory.mktemp('alerts') / 'store.db'}")
    yield engine, two_runs(engine)
    engine.dispose()


def _config(tmp_path: Path, sink: dict[str, object], **more: object) -> AuditConfig:
    settings = AlertSettings.model_validate({"sinks": [sink], "retries": 1, "backoff": 0, **more})
    return AuditConfig(alerts=settings, base_dir=tmp_path)


def _check_messages(raw: list[bytes], run_b: int, run_a: int, facility: int = 16) -> None:
    msgs = [parse_5424(r) for r in raw]
    assert [m.msgid for m in msgs] == [
        "run_summary",
        "new_failure",
        "unauthorised_flow",
        "target_unreachable",
    ]
    for m in msgs:
        assert m.version == 1 and m.facility == facility and m.app_name == "auditor"
        assert m.sd_id == "auditor@32473" and m.params["run"] == str(run_b) and m.params["scope"] == "lab"
        assert m.params["previous"] == str(run_a)
        datetime.fromisoformat(m.timestamp.replace("Z", "+00:00"))  # RFC 3339
        assert m.procid.isdigit() and m.hostname != ""
    summary, failure, flow, target = msgs
    assert summary.severity == 2 and summary.params["events"] == "3"  # the worst event's level: critical
    assert failure.severity == 3 and failure.params["check"] == "T2-INGRESS-TLS"  # high -> error
    assert failure.params["subject"] == 'ingress "shop]"'  # escaped quote and bracket read back exactly
    assert '<!channel> & "boss"' in failure.msg and "\n" not in failure.msg
    assert flow.severity == 2 and flow.params["check"] == "X-FLOWS-NO-CROSS-TIER"
    assert target.params["target"] == "leaf2" and "connection refused" in target.msg


def test_syslog_over_udp(runs: tuple[Engine, TwoRuns], tmp_path: Path) -> None:
    engine, two = runs
    with udp_listener() as (port, datagrams):
        sink = {"type": "syslog", "host": "127.0.0.1", "port": port, "transport": "udp"}
        assert [d.ok for d in send_alerts(_config(tmp_path, sink), engine, two.b)] == [True]
        wait_for(lambda: len(datagrams) >= 4)
    _check_messages(datagrams, two.b, two.a)


def test_syslog_over_tcp_with_octet_counting(runs: tuple[Engine, TwoRuns], tmp_path: Path) -> None:
    engine, two = runs
    with tcp_listener() as (port, streams):
        sink = {"type": "syslog", "host": "127.0.0.1", "port": port, "transport": "tcp", "facility": "local3"}
        assert [d.ok for d in send_alerts(_config(tmp_path, sink), engine, two.b)] == [True]
        wait_for(lambda: len(streams) >= 1)
    frames = octet_frames(streams[0])  # one connection, every message framed by its length
    _check_messages(frames, two.b, two.a, facility=19)  # local3


def test_syslog_udp_messages_are_cut_to_max_bytes(runs: tuple[Engine, TwoRuns], tmp_path: Path) -> None:
    engine, two = runs
    with udp_listener() as (port, datagrams):
        sink = {"type": "syslog", "host": "127.0.0.1", "port": port, "max_bytes": 480}
        send_alerts(_config(tmp_path, sink), engine, two.b)
        wait_for(lambda: len(datagrams) >= 4)
    assert max(len(d) for d in datagrams) <= 480
    assert all(parse_5424(d).version == 1 for d in datagrams)  # cut in the text, on a character boundary


@pytest.fixture(scope="module")
def pki(tmp_path_factory: pytest.TempPathFactory) -> Pki:
    return make_pki(tmp_path_factory.mktemp("pki"))


def test_email_over_starttls_trusting_the_test_ca(
    runs: tuple[Engine, TwoRuns],
    tmp_path: Path,
    pki: Pki,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    engine, two = runs
    monkeypatch.setenv("H5_SMTP_PASSWORD", "s3cret-pw")
    with smtp_receiver(pki, "alerts", "s3cret-pw") as server, caplog.at_level(logging.DEBUG):
        sink = {
            "type": "email",
            "host": "127.0.0.1",
            "port": server.port,
            "from": "auditor@example.net",
            "to": ["netsec@example.net", "oncall@example.net"],
            "username": "alerts",
            "password_env": "H5_SMTP_PASSWORD",
            "ca_file": str(pki.ca),
        }
        deliveries = send_alerts(_config(tmp_path, sink), engine, two.b)
    assert [d.ok for d in deliveries] == [True], deliveries
    assert server.logins == [(b"alerts", b"s3cret-pw")]
    [(sender, rcpts, data, over_tls)] = server.messages
    assert over_tls and sender == "auditor@example.net"
    assert rcpts == ["netsec@example.net", "oncall@example.net"]
    msg = email.message_from_bytes(data, policy=email.policy.default)
    assert msg["Subject"].startswith(f"[auditor] scope 'lab' run {two.b} (partial), since run {two.a}")
    text = msg.get_body(("plain",)).get_content()  # type: ignore[union-attr]
    assert "[critical] unauthorised flow: X-FLOWS-NO-CROSS-TIER on flows" in text
    attached = next(p for p in msg.iter_attachments() if p.get_filename() == f"run-{two.b}-alerts.json")
    assert json.loads(attached.get_content())["run_id"] == two.b
    assert "s3cret-pw" not in caplog.text


def test_email_refuses_a_certificate_it_does_not_trust(
    runs: tuple[Engine, TwoRuns],
    tmp_path: Path,
    pki: Pki,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """TLS verification is on by default: without the test CA the self-made certificate is refused, the
    password is never sent, the sink is retried, logged, and given up on."""
    engine, two = runs
    monkeypatch.setenv("H5_SMTP_PASSWORD", "s3cret-pw")
    with smtp_receiver(pki, "alerts", "s3cret-pw") as server, caplog.at_level(logging.WARNING):
        sink = {
            "type": "email",
            "host": "127.0.0.1",
            "port": server.port,
            "from": "auditor@example.net",
            "to": ["netsec@example.net"],
            "username": "alerts",
            "password_env": "H5_SMTP_PASSWORD",
        }
        deliveries = send_alerts(_config(tmp_path, sink), engine, two.b)
    assert not deliveries[0].ok and deliveries[0].attempts == 2
    assert "CERTIFICATE_VERIFY_FAILED" in (deliveries[0].error or "")
    assert server.messages == [] and server.logins == []
    assert "gave up after 2 attempts" in caplog.text and "s3cret-pw" not in caplog.text
