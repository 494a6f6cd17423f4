"""First-match and union filters over boxes of (source, destination, connections).

Device ACLs and AWS NACLs are ordered first-match lists; security groups and Kubernetes policies are
unions of allows. Both reduce to boxes: a box is a product of a source set, a destination set and a
connection set; subtracting a box from a box leaves at most three boxes, so a first-match walk over N
entries stays small for the sets the model asks about.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from checks.lateral.addresses import IPSet
from checks.lateral.conns import ConnSet


@dataclass(frozen=True)
class Box:
    src: IPSet
    dst: IPSet
    conns: ConnSet

    def __bool__(self) -> bool:
        return bool(self.src) and bool(self.dst) and bool(self.conns)

    def intersect(self, other: Box) -> Box:
        return Box(
            self.src.intersect(other.src), self.dst.intersect(other.dst), self.conns.intersect(other.conns)
        )

    def minus(self, other: Box) -> list[Box]:
        inter = self.intersect(other)
        if not inter:
            return [self]
        parts = [
            Box(self.src.subtract(other.src), self.dst, self.conns),
            Box(inter.src, self.dst.subtract(other.dst), self.conns),
            Box(inter.src, inter.dst, self.conns.subtract(other.conns)),
        ]
        return [p for p in parts if p]


@dataclass(frozen=True)
class Entry:
    """One rule: a box, permit or deny, and what to cite when it decides."""

    box: Box
    permit: bool
    label: str
    fact: object = None


@dataclass(frozen=True)
class Decision:
    allowed: list[Box]
    deciding: list[Entry]  # the entries that allowed something, or the first that denied, for citing

    @property
    def conns(self) -> ConnSet:
        out = ConnSet()
        for box in self.allowed:
            out = out.union(box.conns)
        return out

    @property
    def dst(self) -> IPSet:
        out = IPSet()
        for box in self.allowed:
            out = out.union(box.dst)
        return out


def first_match(query: Box, entries: Iterable[Entry], *, default_permit: bool = False) -> Decision:
    remaining = [query] if query else []
    allowed: list[Box] = []
    deciding: list[Entry] = []
    first_deny: Entry | None = None
    for entry in entries:
        if not remaining:
            break
        nxt: list[Box] = []
        hit = False
        for box in remaining:
            inter = box.intersect(entry.box)
            if inter:
                hit = True
                if entry.permit:
                    allowed.append(inter)
                nxt.extend(box.minus(entry.box))
            else:
                nxt.append(box)
        if hit:
            if entry.permit:
                deciding.append(entry)
            elif first_deny is None:
                first_deny = entry
        remaining = nxt
    if default_permit:
        allowed.extend(remaining)
    if not allowed and first_deny is not None:
        deciding.append(first_deny)
    return Decision(allowed, deciding)


def union_allow(query: Box, entries: Iterable[Entry]) -> Decision:
    """Allow-only rules (security groups): everything any rule matches is allowed."""
    allowed: list[Box] = []
    deciding: list[Entry] = []
    for entry in entries:
        inter = query.intersect(entry.box)
        if inter:
            allowed.append(inter)
            deciding.append(entry)
    return Decision(allowed, deciding)


def combine(a: Decision, b: Decision) -> Decision:
    """Both filters on the path must allow: pairwise intersection of their allowed boxes."""
    boxes = [x.intersect(y) for x in a.allowed for y in b.allowed]
    return Decision([bx for bx in boxes if bx], [*a.deciding, *b.deciding])
