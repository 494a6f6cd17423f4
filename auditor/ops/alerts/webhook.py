"""The JSON webhook: a Slack-compatible body (`text`, `blocks`, `attachments`; other receivers read the
events under `auditor`). Slack reads `<...>` as links and mentions (`<!channel>`) and `&` as an entity, so
every text taken from the store is escaped as its message formatting asks (&amp; &lt; &gt;); the JSON
encoder escapes the rest."""

from __future__ import annotations

import json
import os
import ssl
import urllib.request
from pathlib import Path
from typing import Any

from auditor.config.alerts import WebhookSink
from auditor.ops.alerts.deliver import SinkSetupError
from auditor.ops.alerts.events import RunAlert
from auditor.ops.alerts.message import clip, event_line, listed, summary

SECTION_LIMIT = 2900  # Slack: a section's text is at most 3,000 characters
COLORS = {"critical": "#b00020", "high": "#e65100", "medium": "#f9a825", "low": "#1565c0", "info": "#607d8b"}


def slack_escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def body(alert: RunAlert, limit: int, structured: bool = True) -> dict[str, Any]:
    head = slack_escape(summary(alert))
    events, more = listed(alert, limit)
    lines = [f"• {slack_escape(event_line(e))}" for e in events]
    if more:
        lines.append(f"… and {more} more (see the run's report)")
    sections: list[str] = []
    for line in lines:
        if sections and len(sections[-1]) + len(line) + 1 <= SECTION_LIMIT:
            sections[-1] += "\n" + line
        else:
            sections.append(line[:SECTION_LIMIT])
    blocks: list[dict[str, Any]] = [
        {"type": "header", "text": {"type": "plain_text", "text": clip(summary(alert), 150)}},
        *({"type": "section", "text": {"type": "mrkdwn", "text": s}} for s in sections[:45]),
        {
            "type": "context",
            "elements": [{"type": "mrkdwn", "text": f"chain head `{alert.chain_head or '-'}`"}],
        },
    ]
    worst = events[0].severity.value if events else "info"
    out: dict[str, Any] = {
        "text": head,
        "blocks": blocks,
        "attachments": [
            {
                "color": COLORS.get(worst, COLORS["info"]),
                "fallback": head,
                "fields": [
                    {"title": "run", "value": str(alert.run_id), "short": True},
                    {"title": "status", "value": slack_escape(alert.status), "short": True},
                ],
            }
        ],
    }
    if structured:
        out["auditor"] = alert.json()
    return out


def encode(payload: dict[str, Any]) -> bytes:
    """JSON with `<`, `>` and `&` written as \\u escapes (they occur only inside strings): the bytes carry no
    markup even for a receiver that looks at them raw; every JSON decoder reads back the same text."""
    text = json.dumps(payload, ensure_ascii=False)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026").encode("utf-8")


def resolve_url(sink: WebhookSink, base: Path) -> str:
    """The URL from the config, an environment variable or a file (read at send time, never logged)."""
    if sink.url is not None:
        return sink.url
    if sink.url_env is not None:
        value = os.environ.get(sink.url_env, "").strip()
        if not value:
            raise SinkSetupError(f"environment variable {sink.url_env} (its URL) is not set")
        return value
    assert sink.url_file is not None
    path = sink.url_file if sink.url_file.is_absolute() else base / sink.url_file
    try:
        return path.read_text(encoding="utf-8").strip()
    except OSError as exc:
        raise SinkSetupError(f"cannot read its URL from {path}: {exc.strerror}") from None


def tls_context(verify: bool, ca_file: Path | None) -> ssl.SSLContext:
    context = ssl.create_default_context(cafile=str(ca_file) if ca_file else None)
    if not verify:
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
    return context


def post(url: str, payload: dict[str, Any], sink: WebhookSink, ca_file: Path | None) -> None:
    data = encode(payload)
    request = urllib.request.Request(  # noqa: S310 (the scheme is checked: http or https only)
        url, data=data, method="POST", headers={"Content-Type": "application/json; charset=utf-8"}
    )
    if not url.startswith(("http://", "https://")):
        raise SinkSetupError("the webhook URL must start with http:// or https://")
    context = tls_context(sink.verify_tls, ca_file) if url.startswith("https://") else None
    with urllib.request.urlopen(request, timeout=sink.timeout, context=context) as reply:  # noqa: S310
        reply.read()
