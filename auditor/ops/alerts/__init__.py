"""Alerts on what changed since the previous run of the same scope, sent once a run is sealed.

`send_alerts` is the one entry point (called at the end of `run_audit`): it computes the events from the
store (events.py), then hands them to every configured sink (webhook, syslog, e-mail), each with bounded
retries (deliver.py). It never raises: a sink that is down is logged and the audit's outcome and exit code
stay what they were.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from auditor.config.alerts import AlertSettings, EmailSink, Sink, SyslogSink, WebhookSink
from auditor.ops.alerts import smtp, syslog, webhook
from auditor.ops.alerts.deliver import Delivery, deliver
from auditor.ops.alerts.events import RunAlert, changes_since_previous

if TYPE_CHECKING:
    from sqlalchemy import Engine

    from auditor.config.models import AuditConfig

log = logging.getLogger("auditor.alerts")


def send_alerts(
    config: AuditConfig, engine: Engine, run_id: int, *, sleep: Callable[[float], None] = time.sleep
) -> list[Delivery]:
    """Alert every sink of `config.alerts` about run `run_id` (sealed) if anything changed; what each sink
    did. Never raises."""
    settings = config.alerts
    if settings is None:
        return []
    try:
        alert = changes_since_previous(engine, run_id, settings)
    except Exception:  # a broken store read must not fail the audit that just sealed
        log.exception("alerts for run %s could not be prepared; none sent (the audit goes on)", run_id)
        return []
    if not alert.events:
        log.info("alerts: nothing changed in run %s since run %s", run_id, alert.previous_run_id)
        return []
    return [_send(sink, alert, settings, config.base_dir, sleep) for sink in settings.sinks]


def _send(
    sink: Sink, alert: RunAlert, settings: AlertSettings, base: Path, sleep: Callable[[float], None]
) -> Delivery:
    secrets: list[str] = []

    def send() -> None:
        if sink.type == "webhook":
            _webhook(sink, alert, settings, base, secrets)
        elif sink.type == "syslog":
            _syslog(sink, alert, settings)
        else:
            _email(sink, alert, settings, base)

    return deliver(
        f"{sink.type} {sink.name!r}" if sink.name != sink.type else sink.type,
        send,
        retries=settings.retries,
        backoff=settings.backoff,
        sleep=sleep,
        redact=tuple(secrets),
    )


def _resolve(base: Path, path: Path | None) -> Path | None:
    if path is None:
        return None
    path = path.expanduser()
    return path if path.is_absolute() else base / path


def _webhook(
    sink: WebhookSink, alert: RunAlert, settings: AlertSettings, base: Path, secrets: list[str]
) -> None:
    url = webhook.resolve_url(sink, base)
    if sink.url is None:
        secrets.append(url)  # from env/file: a secret URL never appears in a log line
    webhook.post(
        url, webhook.body(alert, settings.max_events, sink.structured), sink, _resolve(base, sink.ca_file)
    )


def _syslog(sink: SyslogSink, alert: RunAlert, settings: AlertSettings) -> None:
    syslog.send(sink, syslog.messages(alert, sink, settings.max_events))


def _email(sink: EmailSink, alert: RunAlert, settings: AlertSettings, base: Path) -> None:
    login = smtp.credentials(sink, base)
    smtp.send(sink, smtp.compose(alert, sink, settings.max_events), login, _resolve(base, sink.ca_file))
