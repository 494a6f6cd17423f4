"""The one read-only guard: every line any device collector sends passes `check_command` first.

Both wire paths call it before a byte leaves the process: the guarded Netmiko channel
(`collectors.network.netmiko_guard`, used for SSH platforms and by the NAPALM SSH drivers) and the
guarded eAPI transport (`collectors.network.eapi`, used by the NAPALM EOS driver). A command is
allowed only if it is a show-style command (with read-only output filters) or one of the session
set-up / tear-down commands the drivers themselves send. Everything else raises ReadOnlyViolation.
"""

from __future__ import annotations

import re

from auditor.errors import ReadOnlyViolation

# Commands that read state. The first word decides; the rest is checked for pipes and shell syntax.
_READ_VERBS = frozenset({"show", "display", "get"})

# Exact session set-up / tear-down lines drivers send (paging, width, privilege for show commands).
_SESSION_COMMANDS = frozenset(
    {
        "",  # a bare RETURN: drivers send it to find the prompt
        "terminal length 0",
        "terminal length 999",
        "terminal width 511",
        "terminal pager 0",
        "terminal no monitor",
        "no cli session paging enable",  # Onyx/MLNX-OS: paging off for this CLI session only
        "enable",  # privileged EXEC (show running-config needs it); never `configure`
        "exit",
        "logout",
    }
)

# NVUE on Cumulus Linux: `nv show ...` and `nv config show ...` read; everything else under `nv` writes.
_NV_READ = re.compile(r"^nv (config )?show( |$)")

# Output filters that only narrow or reformat what a show command prints. No redirect, tee, append.
_SAFE_PIPES = frozenset(
    {
        "json",
        "json-pretty",
        "json native",
        "xml",
        "include",
        "i",
        "inc",
        "exclude",
        "e",
        "ex",
        "exc",
        "section",
        "sec",
        "begin",
        "b",
        "no-more",
        "count",
        "grep",
        "egrep",
        "head",
        "last",
    }
)

# Shell or CLI syntax that could chain, redirect or substitute a second command.
_FORBIDDEN = re.compile(r"[;&`$<>\\\n\r]|\|\||\(\s*\)")


def normalize(line: str) -> str:
    """Collapse whitespace so `show  ip route` and `show ip route` are checked alike."""
    return " ".join(line.split())


def _pipes_ok(parts: list[str]) -> bool:
    for part in parts[1:]:
        words = part.split()
        if not words:
            return False
        head = " ".join(words[:2]) if " ".join(words[:2]) in _SAFE_PIPES else words[0]
        if head.lower() not in _SAFE_PIPES:
            return False
    return True


def is_allowed(line: str) -> bool:
    """True when `line` only reads state. Case-insensitive for the verb; strict about everything else."""
    cmd = normalize(line)
    low = cmd.lower()
    if low in _SESSION_COMMANDS:
        return True
    if _FORBIDDEN.search(cmd):
        return False
    parts = [p.strip() for p in cmd.split("|")]
    first = parts[0].lower()
    verb = first.split(" ", 1)[0]
    if verb in _READ_VERBS or _NV_READ.match(first):
        return _pipes_ok(parts)
    return False


def check_command(line: str, *, target: str) -> None:
    """Raise ReadOnlyViolation unless `line` is allowlisted. Called before anything is sent."""
    if not is_allowed(line):
        raise ReadOnlyViolation(f"{target}: refused to send {_describe(line)}: not a read-only command")


def _describe(line: str) -> str:
    """Name a refused line without echoing what could be a secret typed at the wrong prompt."""
    words = normalize(line).split(" ")
    if len(words) > 1 and re.fullmatch(r"[A-Za-z][A-Za-z-]*", words[0]):
        return repr(" ".join(words)[:120])
    return "a line of text (not shown: it does not look like a command)"


def check_commands(lines: list[str], *, target: str) -> None:
    for line in lines:
        check_command(line, target=target)
