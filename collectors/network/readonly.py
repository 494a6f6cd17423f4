"""The one read-only guard: every line any device collector sends passes `check_command` first.

Every wire path calls it before a byte leaves the process: the guarded Netmiko channel
(`collectors.network.netmiko_guard`, used for SSH platforms and by the NAPALM SSH drivers, `cli()`
included) and the guarded eAPI transport (`collectors.network.eapi`, used by the NAPALM EOS driver,
which checks each command of a `runCmds` request on its own). A command is allowed only if it is a
show-style command (with read-only output filters) or one of the session set-up / tear-down commands
the drivers themselves send. Everything else raises ReadOnlyViolation.

The order matters. A terminal acts on control characters as it reads them: DEL or Ctrl-H erase,
Ctrl-U and Ctrl-W kill the line or a word, Tab completes, ESC starts an editing sequence, CR and LF end
the line, and a shell treats `?`, quotes and `!` specially. So the raw text is checked FIRST, byte by
byte: only printable ASCII (space to `~`) may appear, which rules out every C0 control, DEL, every C1
control (NEL U+0085 among them), the Unicode line and paragraph separators and any look-alike letter.
Only then is whitespace normalised and the command matched against the allowlist.
"""

from __future__ import annotations

import re

from auditor.errors import ReadOnlyViolation

# Commands that read state. The first word decides (never an abbreviation: `sh` is refused).
_READ_VERBS = frozenset({"show", "display", "get"})

# Exact session set-up / tear-down lines drivers send (paging, width, privilege for show commands).
SESSION_COMMANDS = frozenset(
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

# The only characters a command may hold: printable ASCII. Anything else is refused before any
# normalisation (see the module docstring).
_PRINTABLE = re.compile(r"[\x20-\x7e]*")

# Shell or CLI syntax that could chain, redirect, substitute, expand history, quote a pipe away, or ask
# the CLI for help/completion: `; & | | $ ` < > \ ( ) { } ! ? ' "`. A single `|` is an output filter and
# is checked filter by filter.
_FORBIDDEN = re.compile(r"[;&`$<>\\(){}!?'\"]|\|\|")


def normalize(line: str) -> str:
    """Collapse runs of spaces so `show  ip route` and `show ip route` are checked alike. Only meant for
    text that already passed `printable`: it must never turn a control character into a space."""
    return " ".join(line.split())


def printable(line: str) -> bool:
    """True when `line` holds nothing but printable ASCII (no control character, no line break)."""
    return _PRINTABLE.fullmatch(line) is not None


def _pipes_ok(parts: list[str]) -> bool:
    for part in parts[1:]:
        words = part.split()
        if not words:
            return False
        two = " ".join(words[:2]).lower()
        head = two if two in _SAFE_PIPES else words[0].lower()
        if head not in _SAFE_PIPES:
            return False
    return True


def is_allowed(line: str) -> bool:
    """True when `line` only reads state. Case-insensitive for the verb; strict about everything else."""
    if not printable(line):  # before any normalisation: a control character is never whitespace here
        return False
    cmd = normalize(line)
    low = cmd.lower()
    if low in SESSION_COMMANDS:
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
    """Name a refused line without echoing what could be a secret typed at the wrong prompt, and without
    echoing control characters into a terminal or a log."""
    if not printable(line):
        bad = sorted({f"U+{ord(c):04X}" for c in line if not printable(c)})
        shown = ", ".join(bad[:4]) + (", ..." if len(bad) > 4 else "")
        return f"a line holding control or non-ASCII characters ({shown})"
    words = normalize(line).split(" ")
    if len(words) > 1 and re.fullmatch(r"[A-Za-z][A-Za-z-]*", words[0]):
        return repr(" ".join(words)[:120])
    return "a line of text (not shown: it does not look like a command)"


def check_commands(lines: list[str], *, target: str) -> None:
    for line in lines:
        check_command(line, target=target)
