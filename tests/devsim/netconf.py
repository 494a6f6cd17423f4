"""The NETCONF side, for Junos: the `netconf` SSH subsystem as junos-eznc and ncclient use it.

RFC 6241 over SSH with NETCONF 1.0 framing (each message ends with `]]>]]>`; the server offers base:1.0
only, so the client frames the same way). Every RPC is logged: `<command>` RPCs (the CLI over
NETCONF, what NAPALM's `cli()` sends) as their command text, any other as `rpc <name>`. `show
configuration` answers the device's config text as Junos does (`<configuration-information>
<configuration-output>`); other commands answer their text from `Device.text`; a read RPC
(`get-*`) with no answer and any write RPC (`edit-config`, `commit`, `lock`, ...) get an rpc-error
(the write is also in the log, which the allowlist refuses at stop).
"""

from __future__ import annotations

import contextlib
import re
from typing import Any
from xml.sax.saxutils import escape

from tests.devsim.allowlist import CommandLog
from tests.devsim.device import Device

EOM = "]]>]]>"
NS = "urn:ietf:params:xml:ns:netconf:base:1.0"
HELLO = (
    f'<?xml version="1.0" encoding="UTF-8"?><hello xmlns="{NS}"><capabilities>'
    "<capability>urn:ietf:params:netconf:base:1.0</capability>"
    "<capability>http://xml.juniper.net/netconf/junos/1.0</capability>"
    "</capabilities><session-id>4242</session-id></hello>" + EOM
)
_MESSAGE_ID = re.compile(r'message-id="([^"]*)"')
_HELLO = re.compile(r"<(\w+:)?hello[\s>]")
_COMMAND = re.compile(r"<(?:\w+:)?command[^>]*>(.*?)</(?:\w+:)?command>", re.DOTALL)
_RPC_NAME = re.compile(r"<(?:\w+:)?rpc[\s>][^>]*>\s*<([\w:-]+)")


def _reply(message_id: str, body: str) -> str:
    return f'<rpc-reply xmlns="{NS}" message-id="{message_id}">{body}</rpc-reply>{EOM}'


def _error(message_id: str, text: str) -> str:
    body = (
        "<rpc-error><error-type>protocol</error-type><error-tag>operation-failed</error-tag>"
        f"<error-severity>error</error-severity><error-message>{escape(text)}</error-message></rpc-error>"
    )
    return _reply(message_id, body)


def answer(device: Device, message: str, log: CommandLog) -> str | None:
    """The reply to one client message (None: the client said goodbye)."""
    if _HELLO.search(message):
        return ""
    message_id = (_MESSAGE_ID.search(message) or [None, ""])[1] or ""
    command = _COMMAND.search(message)
    if command is not None:
        text = " ".join(command.group(1).split())
        log.add(device.name, text)
        out = device.answer(text)
        if out is None:
            return _error(message_id, f"syntax error, expecting <command>: {text}")
        if text.startswith("show configuration"):
            return _reply(
                message_id,
                f"<configuration-information><configuration-output>{escape(out)}"
                "</configuration-output></configuration-information>",
            )
        return _reply(message_id, f"<output>{escape(out)}</output>")
    name_match = _RPC_NAME.search(message)
    name = name_match.group(1).split(":")[-1] if name_match else "?"
    if name == "close-session":
        return None
    if not name.startswith("get-"):
        log.add(device.name, f"rpc {name}")  # a write RPC: the allowlist refuses it when the sim stops
    return _error(message_id, f"{name}: not simulated")


async def serve_netconf(process: Any, device: Device, log: CommandLog) -> None:
    """Run one NETCONF session on an SSH channel opened with the `netconf` subsystem."""
    process.stdout.write(HELLO)
    buffer = ""
    try:
        while True:
            data = await process.stdin.read(65536)
            if not data:
                break
            buffer += data
            while EOM in buffer:
                message, buffer = buffer.split(EOM, 1)
                reply = answer(device, message, log)
                if reply is None:
                    process.stdout.write(_reply("", "<ok/>"))
                    process.exit(0)
                    return
                if reply:
                    process.stdout.write(reply)
    finally:
        with contextlib.suppress(Exception):
            process.exit(0)
