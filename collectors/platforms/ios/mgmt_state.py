"""IOS management plane as the router reports it running -> MgmtService facts with source
"operational", which checks prefer to the config's reading (checks/reconcile.py).

- `show ip http server status` (read with ntc-templates' cisco_ios template, in ios.show-text):
  `HTTP server status: Enabled|Disabled` -> http, `HTTP secure server status: ...` -> https.
- `show ip ssh` (entry "ios.show-mgmt"; no public template): `SSH Enabled - version 2.0` or
  `SSH Disabled - version 1.99` -> ssh.
IOS has no per-VRF switch for these servers; they are recorded in the default VRF, as the config
reader records them, so the two readings describe the same subject.
"""

from __future__ import annotations

import re
from typing import Any, Literal

from auditor.capture import RawCapture
from auditor.enums import FactKind
from auditor.facts import FactRecord, MgmtService
from auditor.normalize import NormalizeResult
from collectors.parsing.config_tree import Context
from collectors.parsing.live_common import decode_text
from collectors.parsing.show_common import CommandReader, dispatch

_SSH = re.compile(r"^SSH (Enabled|Disabled) - version \S+", re.M)


def _fact(ctx: Context, service: Literal["ssh", "http", "https"], enabled: bool) -> MgmtService:
    return MgmtService(device=ctx.device, service=service, enabled=enabled, source="operational")


def read_http_status(ctx: Context, records: Any) -> list[FactRecord]:
    row = records[0] if isinstance(records, list) and records and isinstance(records[0], dict) else {}
    out: list[FactRecord] = []
    for key, service in (("server_status", "http"), ("secure_server_status", "https")):
        value = str(row.get(key) or "").lower()
        if value in ("enabled", "disabled"):
            out.append(_fact(ctx, service, value == "enabled"))  # type: ignore[arg-type]
    if not out:
        raise ValueError("no `HTTP server status:` line: not the output of `show ip http server status`")
    return out


def read_ssh(ctx: Context, text: str) -> list[FactRecord]:
    m = _SSH.search(text)
    if m is None:
        raise ValueError("no `SSH Enabled|Disabled - version` line: not the output of `show ip ssh`")
    return [_fact(ctx, "ssh", m.group(1) == "Enabled")]


def _text(capture: RawCapture, ctx: Context) -> Any | None:
    text = decode_text(capture)
    return text if text.strip() else None


READERS = (CommandReader(r"show ip ssh", read_ssh, frozenset({FactKind.MGMT_SERVICE})),)


def normalize_mgmt_state(capture: RawCapture) -> NormalizeResult:
    """`show ip ssh`'s text. Never raises on bad content."""
    return dispatch(capture, READERS, _text)
