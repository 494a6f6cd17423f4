"""The words of an alert, shared by every sink: a one-line summary and one bounded line per event."""

from __future__ import annotations

from auditor.ops.alerts.events import TITLES, AlertEvent, RunAlert

DETAIL_LIMIT = 300  # characters of a finding's text in a message; the report has the rest


def clip(text: str, limit: int = DETAIL_LIMIT) -> str:
    """One line, at most `limit` characters (a finding's text can run to thousands, over many lines)."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


PLURAL = {
    "new_failure": "new failures",
    "unauthorised_flow": "unauthorised flows",
    "target_unreachable": "targets stopped answering",
    "waiver_expired": "waivers expired",
}


def summary(alert: RunAlert) -> str:
    counts = [f"{n} {TITLES[k] if n == 1 else PLURAL[k]}" for k in TITLES if (n := alert.count(k))]
    since = f"since run {alert.previous_run_id}" if alert.previous_run_id else "first run of the scope"
    scope = clip(alert.scope, 80) or "(no scope)"
    return f"auditor: scope {scope!r} run {alert.run_id} ({alert.status}), {since}: {', '.join(counts)}"


def event_line(event: AlertEvent) -> str:
    detail = f": {clip(event.detail)}" if event.detail else ""
    return f"[{event.severity.value}] {clip(event.headline(), 200)}{detail}"


def listed(alert: RunAlert, limit: int) -> tuple[list[AlertEvent], int]:
    """The events a message lists, and how many more there are."""
    return alert.events[:limit], max(0, len(alert.events) - limit)
