"""The eAPI transport for the NAPALM EOS driver: TLS verified, every command checked before it is sent.

NAPALM's EOS driver accepts a subclass of pyeapi's `EapiConnection` as its `transport` optional
argument (documented in `EOSDriver.__init__`), and passes the `context` optional argument on to it.
pyeapi's own HTTPS transport turns certificate verification *off* when no context is given, so this
subclass always builds a verifying `ssl.SSLContext` (system CAs or the device's `ca_file`) unless the
device entry opts out with `verify_tls: false`. Its `send()` (the one method that puts a JSON-RPC
request on the wire) validates the request first (`check_request`): method, parameters, and each
command of the `runCmds` list on its own against the read-only allowlist. A command is one line: the
allowlist refuses any line break or control character inside it, so nothing is sent unsplit.
"""

from __future__ import annotations

import json
import ssl
from typing import Any

from pyeapi.eapilib import DEFAULT_HTTP_PATH, DEFAULT_HTTPS_PORT, HttpsConnection, HttpsEapiConnection

from auditor.errors import ReadOnlyViolation
from collectors.network.readonly import check_command, normalize, printable


def tls_context(verify: bool, ca_file: str | None) -> ssl.SSLContext:
    """A client context that checks the chain and the host name, or (explicit opt-out) checks nothing."""
    if not verify:
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
        ctx.check_hostname = False
        ctx.verify_mode = ssl.CERT_NONE
        return ctx
    return ssl.create_default_context(cafile=ca_file)


class ReadOnlyEapiConnection(HttpsEapiConnection):  # type: ignore[misc]
    """HTTPS eAPI connection that refuses non-read-only requests and never skips TLS verification
    unless it is handed an explicitly unverified context. The TCP connect and TLS handshake of every
    request run under `connect_timeout`; reading the answer under `timeout` (the command timeout)."""

    # Named parameters, not *args: NAPALM passes on only the optional_args this signature names.
    def __init__(
        self,
        host: str,
        port: int | None = None,
        path: str | None = None,
        username: str | None = None,
        password: str | None = None,
        context: ssl.SSLContext | None = None,
        timeout: float = 60,
        connect_timeout: float | None = None,
        **kwargs: Any,
    ) -> None:
        self._guard_target = host
        ctx = context or tls_context(True, None)
        super().__init__(
            host,
            port=port,
            path=path,
            username=username,
            password=password,
            context=ctx,
            timeout=timeout,
            **kwargs,
        )
        self.transport = _TimedConnection(
            path or DEFAULT_HTTP_PATH,
            host,
            int(port or DEFAULT_HTTPS_PORT),
            context=ctx,
            timeout=timeout,
            connect_timeout=connect_timeout or timeout,
        )

    def send(self, data: str) -> Any:
        check_request(data, target=self._guard_target)
        return super().send(data)


class _TimedConnection(HttpsConnection):  # type: ignore[misc]
    """pyeapi's HTTPS connection with the connect (and TLS handshake) bounded by its own timeout, and
    the socket switched to the read timeout once connected. pyeapi opens one per request."""

    def __init__(
        self, path: str, host: str, port: int, *, timeout: float, connect_timeout: float, **kwargs: Any
    ) -> None:
        super().__init__(path, host, port, timeout=timeout, **kwargs)
        self.read_timeout = timeout
        self.connect_timeout = connect_timeout

    def connect(self) -> None:
        self.timeout = self.connect_timeout
        try:
            super().connect()
        finally:
            self.timeout = self.read_timeout
        if self.sock is not None:
            self.sock.settimeout(self.read_timeout)


# JSON-RPC `runCmds` parameters a read-only request may carry. `autoComplete` (abbreviations expanded
# by the device) and `expandAliases` (a user-defined alias can stand for any command) are refused: the
# text checked here must be the command the device runs.
_PARAMS = frozenset({"version", "cmds", "format", "timestamps", "includeErrorDetail"})


def check_request(data: str, *, target: str) -> None:
    """Check one eAPI JSON-RPC request, command by command, before it is sent: method `runCmds`, known
    parameters only, each command a string (or {"cmd": ...} without `input`) that passes the allowlist,
    with `enable` (privileged EXEC, for show running-config) accepted only as the first command."""

    def refuse(why: str) -> ReadOnlyViolation:
        return ReadOnlyViolation(f"{target}: refused eAPI request: {why}")

    try:
        request = json.loads(data)
    except ValueError:
        raise refuse("not JSON") from None
    if not isinstance(request, dict) or request.get("method") != "runCmds":
        raise refuse("only the runCmds method is sent")
    params = request.get("params")
    if not isinstance(params, dict) or not isinstance(params.get("cmds"), list):
        raise refuse("no command list")
    extra = sorted(set(params) - _PARAMS)
    if extra:
        raise refuse(f"parameter {', '.join(extra)} is not sent by a read-only collector")
    for index, cmd in enumerate(params["cmds"]):
        if isinstance(cmd, dict):
            if set(cmd) != {"cmd"} or not isinstance(cmd["cmd"], str):
                raise refuse(f"command {index + 1} carries input or is malformed")
            text = cmd["cmd"]
        elif isinstance(cmd, str):
            text = cmd
        else:
            raise refuse(f"command {index + 1} is not a string")
        if normalize(text).lower() == "enable" and printable(text) and index != 0:
            raise refuse(f"`enable` is only sent first (command {index + 1})")
        check_command(text, target=target)
