"""Syslog: RFC 5424 messages, one per event, over UDP (one datagram each, RFC 5426) or TCP with
octet-counting framing (`LEN SP MSG`, RFC 6587). The run, scope and event are structured data
(`[auditor@PEN run="12" ...]`), so a SIEM can match on them without parsing the text."""

from __future__ import annotations

import os
import socket
from datetime import UTC, datetime

from auditor.config.alerts import FACILITIES, SyslogSink
from auditor.enums import Severity
from auditor.ops.alerts.events import AlertEvent, RunAlert
from auditor.ops.alerts.message import clip, event_line, summary

BOM = "\ufeff"
# Syslog severities: 2 critical, 3 error, 4 warning, 5 notice, 6 informational.
LEVELS = {Severity.CRITICAL: 2, Severity.HIGH: 3, Severity.MEDIUM: 4, Severity.LOW: 5, Severity.INFO: 6}


def _header_field(value: str, limit: int) -> str:
    """PRINTUSASCII without spaces, at most `limit` characters; NILVALUE when nothing is left."""
    kept = "".join(c for c in value if 33 <= ord(c) <= 126)[:limit]
    return kept or "-"


def param(value: object) -> str:
    """An SD PARAM-VALUE: `"`, `\\` and `]` escaped with a backslash (RFC 5424 6.3.3), one line."""
    text = " ".join(str(value).split())
    return text.replace("\\", "\\\\").replace('"', '\\"').replace("]", "\\]")


def message(
    sink: SyslogSink,
    severity: int,
    msgid: str,
    params: dict[str, object],
    text: str,
    now: datetime | None = None,
) -> bytes:
    pri = FACILITIES[sink.facility] * 8 + severity
    stamp = (now or datetime.now(UTC)).astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    host = _header_field(socket.gethostname(), 255)
    sd_id = f"auditor@{sink.enterprise_id}"
    pairs = " ".join(f'{k}="{param(v)}"' for k, v in params.items() if v is not None)
    header = (
        f"<{pri}>1 {stamp} {host} {_header_field(sink.app_name, 48)} {os.getpid()} {_header_field(msgid, 32)}"
    )
    return f"{header} [{sd_id} {pairs}] {BOM}{text}".encode()


def messages(alert: RunAlert, sink: SyslogSink, limit: int) -> list[bytes]:
    """A summary message, then one message per listed event."""
    common: dict[str, object] = {
        "run": alert.run_id,
        "scope": clip(alert.scope, 120),
        "previous": alert.previous_run_id,
    }
    worst = min((LEVELS[e.severity] for e in alert.events), default=6)
    out = [message(sink, worst, "run_summary", {**common, "events": len(alert.events)}, summary(alert))]
    out += [
        message(sink, LEVELS[e.severity], e.kind, {**common, **_event_params(e)}, event_line(e))
        for e in alert.events[:limit]
    ]
    return out


def _event_params(e: AlertEvent) -> dict[str, object]:
    return {
        "kind": e.kind,
        "severity": e.severity.value,
        "check": e.check_id,
        "target": e.target,
        "subject": clip(e.subject or "", 200) or None,
    }


def _cut(data: bytes, limit: int) -> bytes:
    """At most `limit` bytes, cut on a UTF-8 character boundary."""
    if len(data) <= limit:
        return data
    return data[:limit].decode("utf-8", errors="ignore").encode("utf-8")


def send(sink: SyslogSink, payloads: list[bytes]) -> None:
    if sink.transport == "udp":
        infos = socket.getaddrinfo(sink.host, sink.port, type=socket.SOCK_DGRAM)
        family, kind, proto, _, address = infos[0]
        with socket.socket(family, kind, proto) as sock:
            sock.settimeout(sink.timeout)
            for data in payloads:
                sock.sendto(_cut(data, sink.max_bytes), address)
        return
    with socket.create_connection((sink.host, sink.port), timeout=sink.timeout) as sock:
        sock.sendall(b"".join(f"{len(data)} ".encode("ascii") + data for data in payloads))
