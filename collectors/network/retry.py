"""Name what went wrong with a device in words an operator can act on, and retry only what may pass.

Transient: unreachable, timed out, connection dropped. Never retried: authentication failures,
unknown or changed host keys, TLS verification failures, read-only refusals.
"""

from __future__ import annotations

import logging
import ssl
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from auditor.errors import AuditorError, CollectionError, ReadOnlyViolation

log = logging.getLogger(__name__)
T = TypeVar("T")


@dataclass(frozen=True)
class Failure:
    reason: str
    hint: str
    transient: bool


def classify(exc: BaseException) -> Failure:
    """Map a driver exception (Netmiko, paramiko, pyeapi, NAPALM, socket) to a reason and a hint."""
    text = f"{type(exc).__name__}: {exc}"
    name = type(exc).__name__
    low = text.lower()
    if isinstance(exc, ReadOnlyViolation):
        return Failure(exc.message, exc.hint, False)
    if "not found in known_hosts" in low:
        return Failure(
            "SSH host key is not in known_hosts (unknown keys are refused by default)",
            "add the device's key to the known_hosts file, or set accept_unknown_host_key: true "
            "for this device (the report will show it)",
            False,
        )
    if "badhostkey" in low or "does not match" in low:
        return Failure(
            "SSH host key does not match the one in known_hosts",
            "verify the device's identity before updating known_hosts",
            False,
        )
    if "authentication" in low or "401" in low or "unauthorized" in low or "permission denied" in low:
        return Failure(
            "authentication failed", "check the username and secret this device's credentials point at", False
        )
    if isinstance(exc, ssl.SSLCertVerificationError) or "certificate verify failed" in low:
        return Failure(
            "TLS certificate verification failed",
            "give the device's CA in ca_file, or set verify_tls: false (the report will show it)",
            False,
        )
    if isinstance(exc, TimeoutError) or "timed out" in low or "timeout" in name.lower():
        if "tcp connection to device failed" in low or "connection refused" in low:
            return _unreachable()
        return Failure(
            "timed out waiting for the device",
            "check that the device answers on its management address; raise collection.connect_timeout "
            "or command_timeout if it is slow",
            True,
        )
    if (
        isinstance(exc, ConnectionRefusedError)
        or "connection refused" in low
        or "tcp connection to device failed" in low
        or "unable to connect" in low
        or "cannot connect" in low
        or "no route to host" in low
    ):
        return _unreachable()
    if isinstance(exc, EOFError | ConnectionResetError | BrokenPipeError) or "socket is closed" in low:
        return Failure("the device closed the session", "check the device's session limits and logs", True)
    return Failure(f"collection failed ({name})", "run with -v for details", False)


def _unreachable() -> Failure:
    return Failure(
        "device unreachable (connection refused or no answer)",
        "check the address, port and that SSH/eAPI is enabled",
        True,
    )


def as_collection_error(exc: BaseException, target: str) -> CollectionError:
    if isinstance(exc, CollectionError):
        return exc
    if isinstance(exc, AuditorError) and not isinstance(exc, ReadOnlyViolation):
        return CollectionError(exc.message, target=target, hint=exc.hint)
    f = classify(exc)
    return CollectionError(f.reason, target=target, hint=f.hint, transient=f.transient)


def with_retries(
    fn: Callable[[], T],
    *,
    target: str,
    retries: int,
    backoff: float,
    sleep: Callable[[float], None] = time.sleep,
) -> T:
    """Call `fn`; on a transient failure wait backoff, 2*backoff, ... and try again, up to `retries` times.
    Raises CollectionError with the last reason."""
    attempt = 0
    while True:
        try:
            return fn()
        except Exception as exc:
            err = as_collection_error(exc, target)
            if not err.transient or attempt >= retries:
                if attempt:
                    err = CollectionError(
                        f"{err.message.split(': ', 1)[-1]} (after {attempt + 1} attempts)",
                        target=target,
                        hint=err.hint,
                        transient=err.transient,
                    )
                raise err from None
            delay = backoff * (2**attempt)
            log.info("%s: %s; retrying in %.1fs", target, err.message, delay)
            attempt += 1
            sleep(delay)
