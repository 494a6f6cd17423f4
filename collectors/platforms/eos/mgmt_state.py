"""EOS management plane as the switch reports it running (entry "eos.show-mgmt") -> MgmtService facts
with source "operational", which checks prefer to what the running config implies (checks/reconcile).

The text forms, as EOS prints them (public captures: ANTA's unit tests for VerifySSHStatus, EOS before
and from 4.32, and Arista device reports of `show management api http-commands`):

    show management ssh                          show management api http-commands
    SSHD status for Default VRF is enabled       Enabled:            Yes
    SSHD status for VRF MGMT: enabled            HTTPS server:       running, set to use port 443
    SSH connection limit is 50                   HTTP server:        shutdown, set to use port 80
                                                 VRFs:               mgmt

- SSH: each `SSHD status for Default VRF|VRF X (is|:) enabled|disabled` line is one fact.
- eAPI: it serves the VRFs listed in `VRFs:` when `Enabled: Yes` and its HTTPS or HTTP server is
  running (`VRFs: None`: the default VRF, where eAPI listens without a `vrf` block). A listed VRF
  whose server is not running is reported disabled. The JSON form of this command carries no VRF
  (ANTA's captures), hence the text.
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

_SSHD = re.compile(r"^SSHD status for (?:(Default) VRF|VRF (\S+?))(?: is|:) (enabled|disabled)\s*$", re.M)
_FIELD = re.compile(r"^([A-Za-z][A-Za-z ]*?):\s+(.*?)\s*$", re.M)


def _fact(ctx: Context, service: Literal["ssh", "eapi"], vrf: str, enabled: bool) -> MgmtService:
    return MgmtService(device=ctx.device, service=service, vrf=vrf, enabled=enabled, source="operational")


def read_ssh(ctx: Context, text: str) -> list[FactRecord]:
    found = {(m.group(2) or "default"): m.group(3) == "enabled" for m in _SSHD.finditer(text)}
    if not found:
        raise ValueError("no `SSHD status for ... VRF` line: not the output of `show management ssh`")
    return [_fact(ctx, "ssh", vrf, on) for vrf, on in found.items()]


def read_http_commands(ctx: Context, text: str) -> list[FactRecord]:
    fields = {m.group(1).strip().lower(): m.group(2) for m in _FIELD.finditer(text)}
    if "enabled" not in fields or "vrfs" not in fields:
        raise ValueError(
            "no `Enabled:` and `VRFs:` lines: not the output of `show management api http-commands`"
        )
    running = any(fields.get(k, "").startswith("running") for k in ("https server", "http server"))
    serving = fields["enabled"].strip().lower() == "yes" and running
    listed = [v for v in re.split(r"[,\s]+", fields["vrfs"]) if v and v.lower() != "none"]
    return [_fact(ctx, "eapi", vrf, serving) for vrf in listed or ["default"]]


def _text(capture: RawCapture, ctx: Context) -> Any | None:
    text = decode_text(capture)
    if not text.strip():
        ctx.problem(None, f"empty output of {capture.meta.get('command')!r}")
        return None
    return text


K = FactKind
READERS = (
    CommandReader(r"show management ssh", read_ssh, frozenset({K.MGMT_SERVICE})),
    CommandReader(r"show management api http-commands", read_http_commands, frozenset({K.MGMT_SERVICE})),
)


def normalize_mgmt_state(capture: RawCapture) -> NormalizeResult:
    """One EOS management-plane show command's text output. Never raises on bad content."""
    return dispatch(capture, READERS, _text)
