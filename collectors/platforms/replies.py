"""What a device's answer is before any parser reads it: an error, "not configured here", or content.

Every normalizer a platform registers is wrapped by `gate` (see auditor.normalize.NormalizerRegistry):
- An error reply (the OS refused or did not understand the command, or the user may not run it) is a
  collection gap: no facts, nothing covered, and a Problem naming the command, so the checks that need
  it are NOT_ASSESSED. A parser would otherwise read "% Invalid input" as an empty route table.
- A "not configured" reply (the feature the command reads is absent, e.g. no VXLAN) is evidence: no
  facts, and the command's fact kinds are covered, so a check reads "none configured", not a gap.
- A whole-config capture (running config, Junos config) in which no configuration statement is found
  (garbage, an HTML error page, a login banner) yields nothing and says so.

The replies each OS prints are declared on its Platform record (`error_replies`,
`not_configured_replies`); GENERIC_ERRORS are the ones several OSes share. Only a short answer whose
first lines match is taken for a reply, so a config that merely mentions such words is still read.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from auditor.capture import RawCapture
from auditor.enums import FactKind
from auditor.normalize import NormalizeResult, Problem
from collectors.platforms.registry import Platform

Normalizer = Callable[[RawCapture], NormalizeResult]
REPLY_MAX_BYTES = 2048  # an error reply is a line or two; a real answer of this size is not mistaken
_M = re.IGNORECASE | re.MULTILINE
GENERIC_ERRORS = (
    re.compile(r"^\s*% ?(Invalid|Incomplete|Ambiguous|Unrecognized|Unknown) (input|command)", _M),
    re.compile(r"^\s*% ?(Permission denied|Authorization (failed|denied))", _M),
    re.compile(r"^\s*Command authorization failed", _M),
    re.compile(r"^\s*(error: )?(syntax error, expecting|permission denied|unknown command)", _M),
    re.compile(r"^\s*(-?bash: .*)?command not found\s*$", _M),
)
# Whole-config formats: a capture of one must hold at least one configuration statement.
_STATEMENT = re.compile(
    r"^\s*(hostname|interface|vlan|router|ip|ipv6|vrf|management|username|feature|spanning-tree|"
    r"set|system|interfaces|protocols|routing-options|version|snmp-server|logging|ntp|aaa|line|"
    r"no|service|banner|boot|clock|lldp|mlag|port-channel|protocol|web|ssh)\b",
    re.MULTILINE,
)


def classify_reply(platform: Platform, text: str) -> tuple[str, str] | None:
    """("error" | "not-configured", the matching line) when `text` is such a reply, else None."""
    if len(text) > REPLY_MAX_BYTES:
        return None
    head = "\n".join(text.strip().splitlines()[:4])
    for pattern in platform.not_configured_replies:
        found = pattern.search(head)
        if found:
            return "not-configured", _line(head, found.start())
    for pattern in (*platform.error_replies, *GENERIC_ERRORS):
        found = pattern.search(head)
        if found:
            return "error", _line(head, found.start())
    return None


def _line(text: str, at: int) -> str:
    start = text.rfind("\n", 0, at) + 1
    end = text.find("\n", at)
    return text[start : end if end >= 0 else len(text)].strip()


def _command(capture: RawCapture) -> str:
    return capture.meta.get("command") or capture.source


def gate(platform: Platform, fmt: str, normalize: Normalizer) -> Normalizer:
    """`normalize`, answering error and not-configured replies itself (see the module docstring)."""
    whole_config = fmt in platform.config_formats

    def gated(capture: RawCapture) -> NormalizeResult:
        text = capture.content.decode("utf-8", errors="replace")
        reply = classify_reply(platform, text)
        if reply is not None and reply[0] == "error":
            return NormalizeResult(
                problems=[
                    Problem(
                        capture.origin,
                        f"{platform.title} answered `{_command(capture)}` with an error ({reply[1]!r}): "
                        "not evidence of anything",
                        hint="check the collection account's permissions and the command on this OS "
                        "version, then re-collect",
                    )
                ]
            )
        if reply is not None:
            kinds = _kinds(platform, capture)
            return NormalizeResult(covers=set(kinds))
        if whole_config and text.strip() and _STATEMENT.search(text) is None:
            return NormalizeResult(
                problems=[
                    Problem(
                        capture.origin,
                        f"not a {platform.title} configuration: no configuration statement in it",
                        line=1,
                        hint="re-collect the configuration, or check the file is the device's config",
                    )
                ]
            )
        return normalize(capture)

    gated.__wrapped__ = normalize  # type: ignore[attr-defined]
    gated.__doc__ = normalize.__doc__
    gated.__name__ = getattr(normalize, "__name__", "normalize")
    return gated


def _kinds(platform: Platform, capture: RawCapture) -> frozenset[FactKind]:
    command = _command(capture)
    for cmd in platform.live_commands():
        if cmd.command == command:
            return frozenset(FactKind(k) for k in cmd.kinds)
    return frozenset()
