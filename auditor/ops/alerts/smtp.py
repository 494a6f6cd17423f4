"""E-mail over SMTP: one message per run with changes, STARTTLS before anything else is said (refused if
the server does not offer it, unless `starttls: false`), certificate verification on unless turned off, a
login only over TLS. The password comes from an environment variable or a file at send time and is never
logged."""

from __future__ import annotations

import json
import os
import smtplib
from email.message import EmailMessage
from pathlib import Path

from auditor.config.alerts import EmailSink
from auditor.ops.alerts.deliver import SinkSetupError
from auditor.ops.alerts.events import RunAlert
from auditor.ops.alerts.message import event_line, listed, summary
from auditor.ops.alerts.webhook import tls_context


def _one_line(text: str) -> str:
    return " ".join(text.split())


def compose(alert: RunAlert, sink: EmailSink, limit: int) -> EmailMessage:
    msg = EmailMessage()
    msg["Subject"] = _one_line(f"{sink.subject_prefix} {summary(alert).removeprefix('auditor: ')}")[:900]
    msg["From"] = sink.sender
    msg["To"] = ", ".join(sink.to)
    events, more = listed(alert, limit)
    lines = [summary(alert), "", *(f"- {event_line(e)}" for e in events)]
    if more:
        lines.append(f"- ... and {more} more (see the run's report)")
    lines += ["", f"chain head: {alert.chain_head or '-'}", f"verify: auditor verify --run {alert.run_id}"]
    msg.set_content("\n".join(lines))
    msg.add_attachment(
        json.dumps(alert.json(), indent=2).encode("utf-8"),
        maintype="application",
        subtype="json",
        filename=f"run-{alert.run_id}-alerts.json",
    )
    return msg


def credentials(sink: EmailSink, base: Path) -> tuple[str, str] | None:
    user = sink.username or (os.environ.get(sink.username_env, "") if sink.username_env else "")
    if sink.username_env and not user:
        raise SinkSetupError(f"environment variable {sink.username_env} (the SMTP user) is not set")
    if not user:
        return None
    if sink.password_env:
        password = os.environ.get(sink.password_env, "")
        if not password:
            raise SinkSetupError(f"environment variable {sink.password_env} (the SMTP password) is not set")
        return user, password
    assert sink.password_file is not None
    path = sink.password_file if sink.password_file.is_absolute() else base / sink.password_file
    try:
        return user, path.read_text(encoding="utf-8").strip()
    except OSError as exc:
        raise SinkSetupError(f"cannot read the SMTP password from {path}: {exc.strerror}") from None


def send(sink: EmailSink, msg: EmailMessage, login: tuple[str, str] | None, ca_file: Path | None) -> None:
    with smtplib.SMTP(sink.host, sink.port, timeout=sink.timeout) as smtp:
        smtp.ehlo()
        if sink.starttls:
            if not smtp.has_extn("starttls"):
                raise smtplib.SMTPNotSupportedError(f"{sink.host}:{sink.port} does not offer STARTTLS")
            smtp.starttls(context=tls_context(sink.verify_tls, ca_file))
            smtp.ehlo()
        if login is not None:
            smtp.login(*login)
        smtp.send_message(msg)
