"""The eAPI transport for the NAPALM EOS driver: TLS verified, every command checked before it is sent.

NAPALM's EOS driver accepts a subclass of pyeapi's `EapiConnection` as its `transport` optional
argument (documented in `EOSDriver.__init__`), and passes the `context` optional argument on to it.
pyeapi's own HTTPS transport turns certificate verification *off* when no context is given, so this
subclass always builds a verifying `ssl.SSLContext` (system CAs or the device's `ca_file`) unless the
device entry opts out with `verify_tls: false`. Its `send()` (the one method that puts a JSON-RPC
request on the wire) checks every command in the request against the read-only allowlist first.
"""

from __future__ import annotations

import json
import ssl
from typing import Any

from pyeapi.eapilib import HttpsEapiConnection

from collectors.network.readonly import check_command


def tls_context(verify: bool, ca_file: str | None) -> ssl.SSLContext:
    """A client context that checks the chain and the host name, or (explicit opt-out) checks nothing."""
    if not verify:
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
        ctx.check_hostname = False
        ctx.verify_mode = ssl.CERT_NONE
        return ctx
    return ssl.create_default_context(cafile=ca_file)


class ReadOnlyEapiConnection(HttpsEapiConnection):  # type: ignore[misc]
    """HTTPS eAPI connection that refuses non-read-only commands and never skips TLS verification
    unless it is handed an explicitly unverified context."""

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
        **kwargs: Any,
    ) -> None:
        self._guard_target = host
        super().__init__(
            host,
            port=port,
            path=path,
            username=username,
            password=password,
            context=context or tls_context(True, None),
            timeout=timeout,
            **kwargs,
        )

    def send(self, data: str) -> Any:
        request = json.loads(data)
        for cmd in request.get("params", {}).get("cmds", []):
            text = cmd.get("cmd", "") if isinstance(cmd, dict) else str(cmd)
            check_command(text, target=self._guard_target)
        return super().send(data)
