"""Crafted device configs: every line of a real config rewritten the ways that make regular
expressions backtrack (a long run of spaces between its words, of digits or dotted digits after it, its
last word repeated), in the line's own context, so each section reader sees them. Used by
tests/fuzz/test_crafted_linear.py (ratio of two sizes) and benchmarks/regex_crafted.py (timings).
"""

from __future__ import annotations

from collections.abc import Callable

from tests.fuzz.seeds import SEEDS, Seed

# The text config formats, each with the seed its crafted config is made from.
TEXT_CONFIGS: dict[str, Seed] = {}
for _seed in SEEDS:
    if _seed.format in (
        "eos.running-config",
        "ios.running-config",
        "junos.config",
        "nxos.running-config",
        "onyx.running-config",
        "ios.show-text",
        "opensm.partitions",
        "sonic.frr",
    ):
        TEXT_CONFIGS.setdefault(f"{_seed.format}:{_seed.path.name}", _seed)


def _spaces(line: str, run: int) -> str:
    indent = line[: len(line) - len(line.lstrip())]
    words = line.split()
    return indent + (" " * run).join(words) if len(words) > 1 else line + " " * run + "x"


def _digits(line: str, run: int) -> str:
    return line + " " + "1" * run


def _dotted(line: str, run: int) -> str:
    return line + " " + "1." * (run // 2)


def _digits_glued(line: str, run: int) -> str:
    return line + "1" * run  # onto the last word: `interface Ethernet1/5111...`


def _repeat_last(line: str, run: int) -> str:
    words = line.split()
    if not words:
        return line
    indent = line[: len(line) - len(line.lstrip())]
    last = words[-1]
    return indent + " ".join(words[:-1] + [last] * max(1, run // (len(last) + 1)))


CRAFTS: tuple[Callable[[str, int], str], ...] = (_spaces, _digits, _dotted, _digits_glued, _repeat_last)
_TERMINATORS = (";", "{", "}")  # Junos ends statements and blocks with these: the craft goes before
_STRUCTURE = {"end", "!", "exit", "quit", "exit-address-family", "exit-vrf", "}", "{"}


def craft(line: str, turn: int, run: int) -> str:
    """One line rewritten by craft number `turn`, keeping what gives the config its structure (block
    ends, statement terminators, comments) so the readers see the crafted values in context."""
    stripped = line.strip()
    if not stripped or stripped in _STRUCTURE or stripped.startswith(("!", "#")):
        return line
    body, end = line.rstrip(), ""
    if body.endswith(_TERMINATORS):
        body, end = body[:-1].rstrip(), " " + body[-1]
        if not body.strip():
            return line
    return CRAFTS[turn % len(CRAFTS)](body, run) + end


def crafted(seed: Seed, run: int, size: int) -> bytes:
    """About `size` bytes: the seed's lines, each rewritten by one craft (in turn) with runs of `run`
    characters, the whole repeated; every craft meets every line across the repetitions."""
    lines = seed.content().decode("utf-8", errors="replace").splitlines()
    out: list[str] = []
    total = 0
    turn = 0
    while total < size:
        for line in lines:
            rewritten = craft(line, turn, run)
            turn += 1
            out.append(rewritten)
            total += len(rewritten) + 1
            if total >= size:
                break
        turn += 1  # shift the crafts against the lines on the next pass
    return "\n".join(out).encode()


def normal(seed: Seed, size: int) -> bytes:
    """About `size` bytes of the seed itself, repeated: the same amount of ordinary config."""
    content = seed.content()
    return (content + b"\n") * max(1, size // (len(content) + 1))


def crafted_lines(seed: Seed, which: int, run: int) -> bytes:
    """The seed with every line rewritten by craft number `which` (structure kept): each line meets
    each craft in one of the five documents, whatever the seed's length."""
    lines = seed.content().decode("utf-8", errors="replace").splitlines()
    return "\n".join(craft(line, which, run) for line in lines).encode()
