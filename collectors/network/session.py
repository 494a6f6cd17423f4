"""One device session: connect (with retries), run the getters and show commands, yield captures.

A failed getter or command costs that capture only (a Problem); a dead session ends the target with a
CollectionError that keeps whatever was already collected.
"""

from __future__ import annotations

import contextlib
import logging
import socket
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import partial
from typing import Any

from netmiko import BaseConnection
from pyeapi.eapilib import CommandError

from auditor.capture import RawCapture
from auditor.errors import CollectionError, ReadOnlyViolation
from auditor.evidence.redact import redact_text
from auditor.normalize import Problem
from collectors.network import netmiko_guard
from collectors.network.commands import (
    NAPALM_DRIVER,
    NAPALM_GETTERS,
    NETMIKO_DEVICE_TYPE,
    commands_for,
    live_commands,
)
from collectors.network.credentials import Login
from collectors.network.drivers import napalm_driver
from collectors.network.hostkeys import Trust
from collectors.network.retry import classify, with_retries
from collectors.normalizers.napalm import bundle_content
from collectors.platforms.registry import Command, Platform
from collectors.platforms.registry import get as get_platform
from collectors.platforms.replies import classify_reply

log = logging.getLogger(__name__)
# paramiko and pyeapi log every failed connection at ERROR with a traceback; the collector reports the
# same failure once, worded for the operator, so their own records are kept for -v (debug) only.
for _name in ("paramiko", "pyeapi.eapilib"):
    if logging.getLogger(_name).level == logging.NOTSET:
        logging.getLogger(_name).setLevel(logging.CRITICAL)

# Errors after which the session cannot be used any more: stop instead of failing every command.
_SESSION_DEAD = ("closed the session", "timed out", "unreachable")


@dataclass(frozen=True)
class DeviceJob:
    """Everything one device's collection needs; secrets only inside `login`."""

    target: str
    host: str
    port: int | None
    platform: str
    login: Login
    trust: Trust
    meta: dict[str, str]
    connect_timeout: float
    command_timeout: float
    retries: int
    backoff: float

    @property
    def origin(self) -> str:
        return f"{self.host}:{self.port}" if self.port else self.host

    def netmiko_args(self) -> dict[str, Any]:
        """Netmiko options shared by both paths: auth, host keys, and every timeout bounded."""
        return {
            **{k: v for k, v in self.login.netmiko_args().items() if k not in ("username", "password")},
            **self.trust.netmiko,
            "conn_timeout": self.connect_timeout,
            "auth_timeout": self.connect_timeout,
            "banner_timeout": self.connect_timeout,
            "read_timeout_override": self.command_timeout,
            "session_timeout": self.command_timeout,
            "fast_cli": True,
        }


# A step reads one thing from an open session (a NAPALM driver or a Netmiko connection); None for a
# step that stores nothing itself (a prefetch).
Step = tuple[str, Callable[[Any], RawCapture | None]]


class Watch:
    """How an outside observer follows one device's collection (`collectors.network.deadline`): the
    stage it is in, the open session (so a stuck one can be aborted), and whether to stop. The default
    watches nothing."""

    def stage(self, name: str) -> None:
        """Called as each stage starts: "connect", a step's name, "disconnect", "closing" (the last)."""

    def opened(self, session: Any) -> None:
        """Called with each session once it is connected."""

    def cancelled(self) -> bool:
        """True once the observer has given up: the collection stops before its next step."""
        return False


def collect_device(job: DeviceJob, watch: Watch | None = None) -> Iterator[RawCapture | Problem]:
    """Connect, then run every step. A step that fails costs its capture only (a Problem). If the session
    dies, reconnect (same retry budget and backoff) and resume at the step that was cut off; what was
    collected stays collected. `watch` is told each stage and can stop the collection between steps."""
    watch = watch or Watch()
    if NAPALM_DRIVER.get(job.platform) == "eos" and job.login.password is None:
        raise CollectionError(
            "eAPI (HTTPS) logs in with a password; an SSH key or agent does not apply",
            target=job.target,
            hint="set credentials.password_env or password_file for this EOS device",
        )
    if job.platform in NAPALM_DRIVER:
        connect, close, steps = _napalm_plan(job)
    else:
        connect, close, steps = _netmiko_plan(job)
    resumes = 0
    i = 0
    while i < len(steps):
        dead = ""
        watch.stage("connect")
        session = with_retries(connect, target=job.target, retries=job.retries, backoff=job.backoff)
        watch.opened(session)
        try:
            while i < len(steps):
                what, step = steps[i]
                if watch.cancelled():
                    return
                watch.stage(what)
                try:
                    capture = step(session)
                except ReadOnlyViolation:
                    raise
                except Exception as exc:
                    refused = refusal_in(exc)  # NAPALM's EOS cli() wraps every error, a refusal too
                    if refused is not None:
                        raise refused from exc
                    dead = _session_dead(session, exc)
                    if dead:
                        break
                    log.debug("%s: %s failed", job.target, what, exc_info=True)
                    yield Problem(
                        job.target, f"{what}: {_short(exc)}", hint="the rest of this device was collected"
                    )
                else:
                    if capture is not None:
                        yield capture
                i += 1
        finally:
            _end_session(watch, partial(close, session), session, done=i >= len(steps), dead=bool(dead))
        if i < len(steps) and watch.cancelled():
            return
        if i < len(steps):  # the session died during steps[i]
            if resumes >= job.retries:
                attempts = f" (after {resumes + 1} attempts)" if resumes else ""
                raise CollectionError(
                    f"{dead} during {steps[i][0]!r}{attempts}",
                    target=job.target,
                    hint="check the device's session limits and logs; what was collected before is kept",
                    transient=True,
                )
            time.sleep(job.backoff * (2**resumes))
            resumes += 1


def _session_dead(session: Any, exc: BaseException) -> str:
    """Why the session cannot be used any more ("" if it can): stop instead of failing every command."""
    if not _netmiko_alive(getattr(session, "device", session)):
        return "the device closed the session"
    failure = classify(exc)
    if failure.transient and any(s in failure.reason for s in _SESSION_DEAD):
        return failure.reason
    return ""


def _end_session(watch: Watch, close: Callable[[], object], session: Any, *, done: bool, dead: bool) -> None:
    """Say goodbye; to a session that died on a stuck channel, hang up first (a graceful goodbye there
    waits another full timeout on the same blocked channel)."""
    watch.stage("closing" if done else "disconnect")
    if dead:
        abort_session(session)
    _quietly(close)


def abort_session(session: Any) -> None:
    """Close a session's connection under it, so a thread blocked on it wakes up and a later disconnect
    fails at once instead of waiting on the stuck channel (best effort)."""
    conn = getattr(session, "device", session)  # a NAPALM driver holds its Netmiko or pyeapi session
    with contextlib.suppress(Exception):
        client = getattr(conn, "remote_conn_pre", None)  # Netmiko: the paramiko SSHClient
        if client is not None:
            client.close()
    with contextlib.suppress(Exception):
        transport = getattr(getattr(conn, "connection", None), "transport", None)  # pyeapi Node
        sock = getattr(transport, "sock", None)
        if sock is not None:
            sock.shutdown(socket.SHUT_RDWR)


def refusal_in(exc: BaseException) -> ReadOnlyViolation | None:
    """The guard's refusal behind a driver's own exception (its cause or context chain), if any: a
    refused command ends the target, whatever the driver wrapped it in."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        if isinstance(current, ReadOnlyViolation):
            return current
        seen.add(id(current))
        current = current.__cause__ or current.__context__
    return None


def _capture(job: DeviceJob, fmt: str, source: str, content: bytes, command: str | None) -> RawCapture:
    meta = dict(job.meta)
    if command is not None:
        meta["command"] = command
    return RawCapture(
        target=job.target,
        format=fmt,
        source=source,
        origin=job.origin,
        collected_at=datetime.now(UTC),
        content=content,
        meta=meta,
    )


def _napalm_plan(job: DeviceJob) -> tuple[Callable[[], Any], Callable[[Any], None], list[Step]]:
    driver_name = NAPALM_DRIVER[job.platform]

    def connect() -> Any:
        drv = napalm_driver(
            driver_name,
            host=job.host,
            port=job.port,
            username=job.login.username,
            password=job.login.password,
            timeout=job.command_timeout,
            netmiko_args=job.netmiko_args(),
            verify_tls=job.trust.verify_tls,
            ca_file=job.trust.ca_file,
        )
        drv.open()
        return drv

    # Each getter is its own step (a failing getter costs only itself, a dropped session resumes at the
    # getter it cut off); their results are stored together, as ONE capture, by the bundle step: an
    # interface's state, addresses and VRF come from three getters and a fact rests on one capture.
    results: dict[str, Any] = {}

    def getter_step(getter: str) -> Step:
        def step(drv: Any) -> None:
            # A driver that lacks the getter raises NotImplementedError: those facts come from the config.
            with contextlib.suppress(NotImplementedError):
                results[getter] = getattr(drv, getter)()

        return getter, step

    def bundle_step(_drv: Any) -> RawCapture | None:
        if not results:
            return None
        source = f"napalm {driver_name} {' '.join(g for g in NAPALM_GETTERS if g in results)}"
        return _capture(job, "napalm.getters", source, bundle_content(results), None)

    prefetched: dict[str, str] = {}
    answers = _Answers(get_platform(job.platform))

    def cli_step(command: Command) -> Step:
        def step(drv: Any) -> RawCapture | None:
            if answers.not_applicable(command):
                return None
            out = prefetched.pop(command.command, None)
            if out is None:
                try:
                    out = str(drv.cli([command.command])[command.command])
                except Exception as exc:
                    return answers.raised(job, command, exc)
            return answers.store(job, command, out)

        return command.command, step

    commands = live_commands(job.platform)  # running config first
    steps = [getter_step(g) for g in NAPALM_GETTERS] + [("napalm getters", bundle_step)]
    if driver_name == "eos":
        steps.append(("eAPI batch", _eapi_batch([c.command for c in commands], prefetched)))
    steps += [cli_step(c) for c in commands]
    return connect, lambda drv: drv.close(), steps


class _Answers:
    """What one session's answers decide about the commands after them, from the platform's record:
    a command whose `requires` statement the running config (collected first) lacks is not sent, and a
    reply a driver raised instead of returning (EOS eAPI errors) is stored as that command's capture, for
    the normalizers' gate (collectors.platforms.replies) to judge by the record: "not configured" or a
    gap naming the command."""

    def __init__(self, platform: Platform) -> None:
        self.platform = platform
        self.config: str | None = None

    def store(self, job: DeviceJob, command: Command, out: str) -> RawCapture:
        config = command.format in self.platform.config_formats and out.strip()  # the running config
        if config and classify_reply(self.platform, out, command.command) is None:  # not an error page
            self.config = out
        return _capture(job, command.format, command.command, out.encode(), command.command)

    def not_applicable(self, command: Command) -> bool:
        skip = (
            command.requires is not None
            and self.config is not None
            and not command.requires.search(self.config)
        )
        if skip:
            log.debug("%s: not sent, the running config lacks %s", command.command, command.requires)
        return skip

    def raised(self, job: DeviceJob, command: Command, exc: Exception) -> RawCapture:
        """The device's answer a driver raised, stored as the capture of `command` with how it came in
        meta["reply"]: the normalizers' gate reads it as "not configured" when the record says so, as an
        error (a gap naming the command) otherwise. An exception carrying no answer is re-raised."""
        reply = _reply_in(exc)
        if reply is None:
            raise exc
        text, how = reply
        capture = _capture(job, command.format, command.command, text.encode(), command.command)
        capture.meta["reply"] = how
        return capture


def _reply_in(exc: BaseException) -> tuple[str, str] | None:
    """The device's own answer carried by a driver's exception (its cause or context chain), with how
    it came: pyeapi's CommandError holds eAPI's error data, whose last entry is the failed command's
    (`output` when EOS gave its CLI text, else its `errors`). None when no such answer is there."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        if isinstance(current, CommandError):
            data = current.output if isinstance(current.output, list) else []
            last = data[-1] if data and isinstance(data[-1], dict) else {}
            text = last.get("output") or "\n".join(str(e) for e in last.get("errors") or ())
            if text:
                return text, f"eAPI error {current.error_code}: {current.error_text}"
        seen.add(id(current))
        current = current.__cause__ or current.__context__
    return None


def _eapi_batch(commands: list[str], into: dict[str, str]) -> Callable[[Any], None]:
    """EOS: fetch every show command in one eAPI request (text format, so each output is the exact CLI
    text) instead of one HTTPS request each. The per-command steps then store them one capture each.
    If EOS rejects any command of the batch, nothing is prefetched and each step asks for its own, so
    one unsupported command costs only its own capture."""

    def step(drv: Any) -> None:
        try:
            results = drv.device.run_commands(commands, encoding="text")
        except CommandError:
            log.debug("eAPI batch refused; fetching commands one by one", exc_info=True)
            return
        into.update((cmd, str(r.get("output", ""))) for cmd, r in zip(commands, results, strict=True))

    return step


def _netmiko_plan(job: DeviceJob) -> tuple[Callable[[], Any], Callable[[Any], None], list[Step]]:
    device_type = NETMIKO_DEVICE_TYPE[job.platform]

    def connect() -> BaseConnection:
        return netmiko_guard.connect(
            device_type,
            host=job.host,
            port=job.port or 22,
            username=job.login.username,
            password=job.login.password or "",
            timeout=job.command_timeout,
            **job.netmiko_args(),
        )

    answers = _Answers(get_platform(job.platform))

    def send_step(command: Command) -> Step:
        def step(conn: BaseConnection) -> RawCapture | None:
            if answers.not_applicable(command):
                return None
            out = conn.send_command(command.command, read_timeout=job.command_timeout)
            return answers.store(job, command, str(out))

        return command.command, step

    steps = [send_step(c) for c in commands_for(job.platform)]
    return connect, lambda conn: conn.disconnect(), steps


def _netmiko_alive(conn: object) -> bool:
    """False once the device has closed the SSH channel (anything that is not Netmiko counts as alive)."""
    chan = getattr(conn, "remote_conn", None)
    if chan is None or not hasattr(chan, "closed"):
        return True
    transport = chan.get_transport() if hasattr(chan, "get_transport") else None
    return not chan.closed and not chan.eof_received and (transport is None or transport.is_active())


def _short(exc: BaseException) -> str:
    """The error in one line; redacted, because driver errors can quote device output."""
    text, _ = redact_text(" ".join(str(exc).split())[:300])
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def _quietly(fn: Callable[[], object]) -> None:
    try:
        fn()
    except Exception:  # closing a broken session must not hide why it broke
        log.debug("close failed", exc_info=True)


__all__ = ["CollectionError", "DeviceJob", "collect_device"]
