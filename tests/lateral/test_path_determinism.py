"""The example path of a lateral finding does not depend on the order the evidence arrived in.

Targets are collected concurrently, so facts (and the links built from them) reach the zone graph in
completion order. Two runs of identical evidence must still name the same path: among equally short
paths and among parallel links, the choice is made by a stable key, never by insertion order.
"""

from __future__ import annotations

import itertools
import shutil
from pathlib import Path

from checks.cross.lateral_no_path import LateralNoPath
from checks.lateral.addresses import IPSet
from checks.lateral.conns import ConnSet
from checks.lateral.graph import Hop, Link, Zone, ZoneGraph, paths_to, walk
from tests.e2e.conftest import LAB
from tests.lateral.labctx import lab_context


def _link(src: str, dst: str, *hops: str) -> Link:
    return Link(src, dst, IPSet.parse("10.0.0.0/24"), ConnSet.ports("TCP", 22), tuple(Hop(h) for h in hops))


LINKS = [
    # two equally short routes from the frontend to tier 1: via pivot a or via pivot b
    _link("fe", "pivot-b", "route b"),
    _link("fe", "pivot-a", "route a"),
    _link("pivot-b", "tier", "acl b"),
    _link("pivot-a", "tier", "acl a"),
    # two parallel links with the same number of hops between the same zones
    _link("fe", "pivot-c", "sg z"),
    _link("fe", "pivot-c", "sg y"),
    _link("pivot-c", "tier2", "nacl c"),
]


def _path(order: tuple[Link, ...], target: str) -> list[str]:
    graph = ZoneGraph()
    for zone in sorted({lk.src for lk in order} | {lk.dst for lk in order}):
        graph.add_zone(Zone(zone, "device"))
    for link in order:
        graph.add_link(link)
    return [
        f"{lk.src}->{lk.dst}: {'; '.join(h.text for h in lk.hops)}"
        for lk in walk(graph, "fe", paths_to(graph, [target]))
    ]


def test_the_same_path_whatever_the_order_links_were_added() -> None:
    for target in ("tier", "tier2"):
        paths = {tuple(_path(order, target)) for order in itertools.permutations(LINKS)}
        assert len(paths) == 1, paths


def test_ties_are_broken_by_the_zone_and_hop_text() -> None:
    assert _path(tuple(LINKS), "tier") == ["fe->pivot-a: route a", "pivot-a->tier: acl a"]
    assert _path(tuple(LINKS), "tier2") == ["fe->pivot-c: sg y", "pivot-c->tier2: nacl c"]


def test_a_shorter_path_beats_a_smaller_name() -> None:
    links = [_link("fe", "a-pivot", "r1"), _link("a-pivot", "b-pivot", "r2"), _link("b-pivot", "tier", "r3")]
    links.append(_link("fe", "z-pivot", "r4"))
    links.append(_link("z-pivot", "tier", "r5"))
    assert _path(tuple(links), "tier") == ["fe->z-pivot: r4", "z-pivot->tier: r5"]


def test_lab_paths_do_not_depend_on_collection_order(tmp_path: Path) -> None:
    lab = tmp_path / "lab"
    shutil.copytree(LAB, lab, ignore=shutil.ignore_patterns(".auditor", "out"))

    def found(reverse: bool) -> list[tuple[str, str, str]]:
        ctx = lab_context(lab / "auditor.yaml", reverse=reverse)
        return sorted((f.subject, f.status.value, f.found) for f in LateralNoPath().evaluate(ctx))

    forward = found(False)
    assert any(status == "FAIL" for _, status, _ in forward), "the lab plants lateral paths"
    assert found(True) == forward
