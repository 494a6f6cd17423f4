"""The one-pass config trees (collectors.parsing.config_tree, collectors.platforms.nxos.tree) against ciscoconfparse2, kept
here as the oracle: the same nodes, texts, line numbers and nesting for every IOS-style and NX-OS config
in the fixtures, and for configs whose blank lines, `!` lines and odd indentation are shuffled at random."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from ciscoconfparse2 import CiscoConfParse

from collectors.parsing.config_tree import DELIMITED_BANNER, Config, Node, blank_free_text, parse_tree
from collectors.platforms.nxos import tree as nxos_tree

ROOT = Path(__file__).resolve().parents[2]
CONFIGS = sorted(
    {
        *ROOT.glob("tests/fixtures/**/*.cfg"),
        *ROOT.glob("examples/**/*.cfg"),
    }
)


NXOS_CONFIGS = sorted(
    {
        *ROOT.glob("tests/fixtures/nxos/*/running-config.txt"),
    }
)


def _is_config(text: str, comments: tuple[str, ...] = ("!",)) -> bool:
    return bool(text.strip()) and not text.strip().startswith(comments)


def _node(obj: object, comments: tuple[str, ...] = ("!",)) -> Node:
    text = str(getattr(obj, "text", "")).strip()
    children = tuple(
        _node(c, comments) for c in getattr(obj, "children", []) if _is_config(str(c.text), comments)
    )
    if DELIMITED_BANNER.match(text):
        children = ()  # the library nests a banner's body under it; parse_tree blanks the body
    return Node(text, int(getattr(obj, "linenum", 0)) + 1, children)


def _closing_delimiters_kept(lines: list[str]) -> list[str]:
    """blank_free_text's output with each banner's closing line put back: the library's banner parsing
    needs the delimiter to see where the banner ends."""
    blanked = blank_free_text(lines)
    for i in range(1, len(lines)):
        ends_run = i + 1 == len(lines) or blanked[i + 1] == lines[i + 1]
        if blanked[i] != lines[i] and ends_run:
            start = i
            while start > 0 and blanked[start - 1] != lines[start - 1]:
                start -= 1
            if start > 0 and DELIMITED_BANNER.match(lines[start - 1]):
                blanked[i] = lines[i]
    return blanked


def oracle(lines: list[str]) -> Config:
    parsed = CiscoConfParse(
        _closing_delimiters_kept(lines), syntax="ios", loguru=False, ignore_blank_lines=False, factory=False
    )
    top = [o for o in parsed.objs if o.parent is o and _is_config(str(o.text))]
    return Config(nodes=tuple(_node(o) for o in top))


def test_the_fixtures_hold_configs() -> None:
    assert len(CONFIGS) >= 100


@pytest.mark.parametrize("path", CONFIGS, ids=lambda p: str(p.relative_to(p.parents[2])))
def test_same_tree_as_ciscoconfparse2(path: Path) -> None:
    lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    assert parse_tree(lines) == oracle(lines)


def _shuffled_config(rng: random.Random) -> list[str]:
    words = ["interface Ethernet1", "vrf BACKEND", "router bgp 65001", "ip address 10.0.0.1/31", "mtu 9214"]
    lines = []
    for _ in range(rng.randint(5, 60)):
        kind = rng.random()
        if kind < 0.15:
            lines.append("")
        elif kind < 0.3:
            lines.append(" " * rng.choice([0, 1, 3, 6]) + "!")
        else:
            lines.append(" " * rng.choice([0, 0, 1, 2, 3, 6, 9]) + rng.choice(words))
    return lines


@pytest.mark.parametrize("seed", range(40))
def test_same_tree_on_random_indentation(seed: int) -> None:
    lines = _shuffled_config(random.Random(seed))
    assert parse_tree(lines) == oracle(lines)


def test_banner_bodies_are_not_configuration() -> None:
    lines = ["hostname r1", "banner motd ^C", "interface Gi0/1", " shutdown", "^C", "interface Gi0/2"]
    tree = parse_tree(lines)
    assert [(n.text, n.line, n.children) for n in tree.nodes] == [
        ("hostname r1", 1, ()),
        ("banner motd ^C", 2, ()),
        ("interface Gi0/2", 6, ()),
    ]
    assert tree == oracle(lines)


def _nxos_oracle(lines: list[str]) -> list[Node]:
    parsed = CiscoConfParse(
        _closing_delimiters_kept(lines), syntax="nxos", loguru=False, ignore_blank_lines=False, factory=False
    )
    comments = ("!", "#")
    return [_node(o, comments) for o in parsed.objs if o.parent is o and _is_config(str(o.text), comments)]


def _frozen(node: nxos_tree.Node) -> Node:
    return Node(node.text, node.line, tuple(_frozen(c) for c in node.children))


def test_the_fixtures_hold_nxos_configs() -> None:
    assert len(NXOS_CONFIGS) >= 12


@pytest.mark.parametrize("path", NXOS_CONFIGS, ids=lambda p: p.parent.name + "/" + p.name)
def test_nxos_same_tree_as_ciscoconfparse2(path: Path) -> None:
    lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    assert [_frozen(n) for n in nxos_tree.parse_tree(lines)] == _nxos_oracle(lines)
