"""What a device's answer is before any parser reads it: an error, "not configured here", or content.

Every normalizer a platform registers is wrapped by `gate` (see auditor.normalize.NormalizerRegistry):
- An error reply (the OS refused or did not understand the command, or the user may not run it) is a
  collection gap: no facts, nothing covered, and a Problem naming the command, so the checks that need
  it are NOT_ASSESSED. A parser would otherwise read "% Invalid input" as an empty route table.
- A "not configured" reply (the feature the command reads is absent, e.g. no VXLAN) is evidence: no
  facts, and the command's fact kinds are covered, so a check reads "none configured", not a gap. Which
  replies mean that is declared per command (`Command.absent`): the same words answering another
  command are an error.
- An empty answer is a gap too, unless the command's record says the OS answers "none" with nothing
  (`Command.empty_means_none`: IOS `show ip access-lists`, NX-OS `| json` tables with no rows); then it
  covers the command's kinds.
- A whole-config capture (running config, Junos config) in which no configuration statement is found
  (garbage, an HTML error page, a login banner) yields nothing and says so.

The replies each OS prints are declared on its Platform record (`error_replies`, and `absent` on each
command); GENERIC_ERRORS are the ones several OSes share. Only a short answer whose first lines match
is taken for a reply, so a config that merely mentions such words is still read. The live collector
(collectors.network.session) asks `classify_reply` too, for a reply a driver raised instead of returning
(EOS eAPI), so the same data decides both live and offline.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace

from auditor.capture import RawCapture
from auditor.enums import FactKind
from auditor.facts.base import fact_model
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
    # On the Cisco-style CLIs (EOS, NX-OS, IOS, Onyx) every CLI error line starts with "% " and no show
    # output does: an undeclared one ("% Interface does not exist" answering another command) is an error.
    re.compile(r"^\s*% \S", re.MULTILINE),
)
# Whole-config formats: a capture of one must hold at least one configuration statement.
# A statement with its argument, as these OSes write them: a bare keyword is not enough, since a login
# banner or a busy message ("system busy, try later") starts with the same English words.
_JUNOS_TOP = (
    r"(system|interfaces|protocols|routing-options|firewall|vlans|routing-instances|policy-options|"
    r"class-of-service)"
)
_STATEMENT = re.compile(
    r"^\s*(hostname \S|interface \S|router \S|feature \S|username \S|snmp-server \S|spanning-tree \S|"
    r"vrf (instance|definition|context) \S|ip (route|access-list|routing|domain|name-server|vrf)\b|vlan \d|"
    rf"management (api|ssh|http)|set {_JUNOS_TOP} |{_JUNOS_TOP} \{{)",
    re.MULTILINE,
)


def classify_reply(platform: Platform, text: str, command: str | None = None) -> tuple[str, str] | None:
    """("error" | "not-configured", the matching line) when `text`, the answer to `command` (None: an
    offline file), is such a reply, else None. Only `command`'s own `absent` replies mean "not configured"."""
    if len(text) > REPLY_MAX_BYTES:
        return None
    head = "\n".join(text.strip().splitlines()[:4])
    declared = platform.command(command)
    for pattern in declared.absent if declared else ():
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


def _withheld(platform: Platform, capture: RawCapture, result: NormalizeResult) -> NormalizeResult:
    """Gaps on the device: a declared command's `live_only` kinds that its answer did not cover, and,
    on a whole-config capture, every kind the platform declares unavailable."""
    if capture.format in platform.config_formats or capture.format == platform.offline_format:
        for kind, why in unavailable_kinds(platform).items():
            result.gaps[kind] = f"{platform.title} cannot give it: {why}"
    declared = platform.command(capture.meta.get("command"))
    if declared is None:
        return result
    for kind in (FactKind(k) for k in declared.live_only):
        if kind not in result.covers:
            result.gaps[kind] = f"`{declared.command}` gave no usable answer"
    return result


def unavailable_kinds(platform: Platform) -> dict[FactKind, str]:
    """The whole fact kinds a platform declares unavailable (keys naming a model, without a field)."""
    by_model = {fact_model(k).__name__: k for k in FactKind if k != FactKind.COVERAGE and _has_model(k)}
    out: dict[FactKind, str] = {}
    for key, why in platform.unavailable.items():
        if "." in key:
            continue
        if key not in by_model:
            raise ValueError(f"platform {platform.name!r}: unavailable names {key!r}, not a fact model")
        out[by_model[key]] = why
    return out


def _has_model(kind: FactKind) -> bool:
    try:
        fact_model(kind)
    except KeyError:
        return False
    return True


def _naming(capture: RawCapture, result: NormalizeResult) -> NormalizeResult:
    """Every problem with a live capture names the command it answered, so a gap says what to re-run."""
    asked = capture.meta.get("command")
    if asked:
        result.problems = [
            p if asked in p.message else replace(p, message=f"`{asked}`: {p.message}")
            for p in result.problems
        ]
    return result


def _gap(capture: RawCapture, message: str) -> NormalizeResult:
    return NormalizeResult(
        problems=[
            Problem(
                capture.origin,
                f"{message}: not evidence of anything",
                hint="check the collection account's permissions and the command on this OS version, "
                "then re-collect",
            )
        ]
    )


def _asked(capture: RawCapture) -> str:
    """ "`command`: " for a live capture, "" for a file."""
    command = capture.meta.get("command")
    return f"`{command}`: " if command else ""


def _command(capture: RawCapture) -> str:
    return capture.meta.get("command") or capture.source


def gate(platform: Platform, fmt: str, normalize: Normalizer) -> Normalizer:
    """`normalize`, answering error and not-configured replies itself (see the module docstring)."""
    whole_config = fmt in platform.config_formats

    def gated(capture: RawCapture) -> NormalizeResult:
        return _withheld(platform, capture, read(capture))

    def read(capture: RawCapture) -> NormalizeResult:
        text = capture.content.decode("utf-8", errors="replace")
        declared = platform.command(capture.meta.get("command"))
        if not text.strip() and declared is not None:
            if not declared.empty_means_none:
                return _gap(capture, f"{platform.title} answered `{declared.command}` with nothing")
            if declared.kinds:
                return NormalizeResult(covers={FactKind(k) for k in declared.kinds})
        reply = classify_reply(platform, text, capture.meta.get("command"))
        raised = capture.meta.get("reply")  # the driver raised this answer (EOS eAPI): it is an error
        if raised and (reply is None or reply[0] != "not-configured"):
            line = reply[1] if reply else text.strip().splitlines()[0] if text.strip() else ""
            reply = ("error", f"{raised}: {line}" if line else raised)
        if reply is not None and reply[0] == "error":
            what = f"{platform.title} answered `{_command(capture)}` with an error ({reply[1]!r})"
            return _gap(capture, what)
        if reply is not None and declared is not None:  # not configured: what it reads is proved absent
            return NormalizeResult(covers={FactKind(k) for k in declared.kinds})
        if whole_config and text.strip() and _STATEMENT.search(text) is None:
            return NormalizeResult(
                problems=[
                    Problem(
                        capture.origin,
                        f"{_asked(capture)}not a {platform.title} configuration: no configuration statement",
                        line=1,
                        hint="re-collect the configuration, or check the file is the device's config",
                    )
                ]
            )
        return _naming(capture, normalize(capture))

    gated.__wrapped__ = normalize  # type: ignore[attr-defined]
    gated.__doc__ = normalize.__doc__
    gated.__name__ = getattr(normalize, "__name__", "normalize")
    return gated
