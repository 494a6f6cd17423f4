"""Delivery with bounded retries: a failing sink is tried again (backoff doubling each time), logged, and
then given up on. Nothing here raises: an alert never fails the audit or changes its exit code."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass

log = logging.getLogger("auditor.alerts")


class SinkSetupError(Exception):
    """The sink cannot be tried at all (a missing secret, an unreadable file): retrying will not help."""


@dataclass(frozen=True)
class Delivery:
    sink: str
    ok: bool
    attempts: int
    error: str | None = None


def deliver(
    name: str,
    send: Callable[[], None],
    *,
    retries: int,
    backoff: float,
    sleep: Callable[[float], None] = time.sleep,
    redact: tuple[str, ...] = (),
) -> Delivery:
    """Call `send` until it succeeds, at most 1 + `retries` times. `redact`: strings (a webhook URL with its
    token) never to appear in a log line."""
    error = ""
    for attempt in range(1, retries + 2):
        try:
            send()
        except SinkSetupError as exc:
            error = _safe(exc, redact)
            log.error("alert sink %s: %s; not sent (the audit goes on)", name, error)
            return Delivery(name, False, attempt, error)
        except Exception as exc:  # any failure of any transport: logged, retried, never raised
            error = _safe(exc, redact)
            log.warning("alert sink %s: attempt %d of %d failed: %s", name, attempt, retries + 1, error)
            if attempt <= retries:
                sleep(backoff * 2 ** (attempt - 1))
            continue
        log.info("alert sink %s: sent (attempt %d)", name, attempt)
        return Delivery(name, True, attempt)
    log.error("alert sink %s: gave up after %d attempts: %s (the audit goes on)", name, retries + 1, error)
    return Delivery(name, False, retries + 1, error)


def _safe(exc: BaseException, redact: tuple[str, ...]) -> str:
    text = f"{type(exc).__name__}: {exc}"
    for secret in redact:
        if secret:
            text = text.replace(secret, "<redacted>")
    return text[:500]
