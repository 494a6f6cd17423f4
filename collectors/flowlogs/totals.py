"""Running totals of flow records: conversations keyed by (src, dst, dst port, protocol, action), and the
counts an auditor needs to judge the evidence (NODATA, SKIPDATA, malformed lines, the time covered)."""

from __future__ import annotations

import ipaddress
import json
from collections.abc import Iterator
from dataclasses import dataclass, field

from auditor.normalize import Problem

MAX_REPORTED_LINES = 20  # per file: the first malformed lines are listed, the rest summed up
MIXED = "\x00mixed"  # interface marker: the conversation spans several interfaces
Key = tuple[str, str, int | None, int | None, str]


@dataclass(slots=True)
class Aggregate:
    """Running totals of one conversation."""

    packets: int
    bytes: int
    records: int
    first_seen: int | None
    last_seen: int | None
    interface: str | None

    def merge(self, other: Aggregate) -> None:
        self.packets += other.packets
        self.bytes += other.bytes
        self.records += other.records
        self.first_seen = _lowest(self.first_seen, other.first_seen)
        self.last_seen = _highest(self.last_seen, other.last_seen)
        if other.interface is None:  # `-`: no interface named, as DuckDB's min/max skip NULL
            return
        if self.interface is None:
            self.interface = other.interface
        elif self.interface != other.interface:
            self.interface = MIXED

    @property
    def interface_id(self) -> str | None:
        return None if self.interface == MIXED else self.interface


def _lowest(a: int | None, b: int | None) -> int | None:
    return b if a is None else a if b is None else min(a, b)


def _highest(a: int | None, b: int | None) -> int | None:
    return b if a is None else a if b is None else max(a, b)


@dataclass
class FileCounts:
    """Per-file counters that decide which problems a file gets."""

    malformed: int = 0
    skipdata: int = 0


@dataclass(frozen=True)
class ConversationBlock:
    """Conversations the engine already merged, keyed by canonical addresses and sorted, as DuckDB wrote
    them: a JSON array of FlowConversation fields less `source` (the caller names the source). Hundreds of
    thousands of conversations become facts in one validation call instead of one Python object each."""

    json: str  # `[{"src_addr":...,"dst_addr":...,"dst_port":...,...}, ...]`, in sorted_conversations order
    count: int
    mixed: frozenset[int] = frozenset()  # positions of those seen on several interfaces (interface_id null)

    def aggregates(self) -> Iterator[tuple[Key, Aggregate]]:
        """The block as (key, aggregate) pairs, for merging it with conversations from other readers."""
        for index, c in enumerate(json.loads(self.json)):
            key = (c["src_addr"], c["dst_addr"], c["dst_port"], c["protocol"], c["action"])
            interface = MIXED if index in self.mixed else c["interface_id"]
            yield (
                key,
                Aggregate(c["packets"], c["bytes"], c["records"], c["first_seen"], c["last_seen"], interface),
            )


@dataclass
class FlowTotals:
    """What a set of flow-log objects held. Records = ACCEPT + REJECT records (those in conversations)."""

    merged: dict[Key, Aggregate] = field(default_factory=dict)  # see `conversations`
    blocks: list[ConversationBlock] = field(default_factory=list)
    files: int = 0
    accepted: int = 0
    rejected: int = 0
    nodata: int = 0
    skipdata: int = 0
    malformed: int = 0
    first_seen: int | None = None
    last_seen: int | None = None
    problems: list[Problem] = field(default_factory=list)
    per_file: dict[str, FileCounts] = field(default_factory=dict)

    @property
    def records(self) -> int:
        return self.accepted + self.rejected

    @property
    def garbled(self) -> int:
        return self.malformed

    @property
    def conversations(self) -> dict[Key, Aggregate]:
        """Every conversation, the engine's blocks merged in (merging is order-free: sums, min, max)."""
        while self.blocks:
            for key, agg in self.blocks.pop().aggregates():
                self._merge(key, agg)
        return self.merged

    def single_block(self) -> ConversationBlock | None:
        """The one block holding every conversation, when the engine alone read them (the fast path)."""
        return self.blocks[0] if len(self.blocks) == 1 and not self.merged else None

    def add(self, key: Key, agg: Aggregate) -> None:
        """Merge one conversation (a record or a partial aggregate)."""
        self._merge(key, agg)
        if key[4] == "ACCEPT":
            self.accepted += agg.records
        else:
            self.rejected += agg.records

    def add_block(self, block: ConversationBlock, accepted: int, rejected: int) -> None:
        """Conversations the engine merged itself, with their ACCEPT and REJECT record counts."""
        if block.count:
            self.blocks.append(block)
        self.accepted += accepted
        self.rejected += rejected

    def _merge(self, key: Key, agg: Aggregate) -> None:
        have = self.merged.get(key)
        if have is None:
            self.merged[key] = Aggregate(
                agg.packets, agg.bytes, agg.records, agg.first_seen, agg.last_seen, agg.interface
            )
        else:
            have.merge(agg)

    def seen(self, first: int | None, last: int | None) -> None:
        self.first_seen = _lowest(self.first_seen, first)
        self.last_seen = _highest(self.last_seen, last)

    def status(self, origin: str, status: str, count: int) -> None:
        """Count NODATA/SKIPDATA records of one file."""
        if status == "NODATA":
            self.nodata += count
        else:
            self.skipdata += count
            self.per_file.setdefault(origin, FileCounts()).skipdata += count

    def bad_line(self, origin: str, line: int | None, message: str) -> None:
        """One malformed line: counted; the first ones of each file are named with their line number."""
        self.malformed += 1
        counts = self.per_file.setdefault(origin, FileCounts())
        counts.malformed += 1
        if counts.malformed <= MAX_REPORTED_LINES:
            self.problems.append(Problem(origin, f"not a flow record: {message}", line))

    def finish(self) -> None:
        """Add the per-file summaries (garbled beyond the listed ones, SKIPDATA) once all is read."""
        for origin, counts in self.per_file.items():
            if counts.malformed > MAX_REPORTED_LINES:
                message = (
                    f"{counts.malformed} lines in total are not flow records; "
                    f"only the first {MAX_REPORTED_LINES} are listed"
                )
                self.problems.append(Problem(origin, message))
            if counts.skipdata:
                message = (
                    f"{counts.skipdata} SKIPDATA records: AWS dropped flow records in those capture windows"
                )
                self.problems.append(
                    Problem(origin, message, hint="the flow evidence is incomplete for those windows")
                )
        self.per_file.clear()

    def sorted_conversations(self) -> Iterator[tuple[Key, Aggregate]]:
        """Deterministic order, so the same records always give the same facts in the same order."""
        conversations = self.conversations
        for key in sorted(conversations, key=_sort_key):
            yield key, conversations[key]


def _sort_key(key: Key) -> tuple[str, str, int, int, str]:
    src, dst, port, protocol, action = key
    return (src, dst, -1 if port is None else port, -1 if protocol is None else protocol, action)


class AddressCache:
    """Canonical text of an address (`2001:DB8::05` -> `2001:db8::5`), None when it is not one."""

    def __init__(self) -> None:
        self._cache: dict[str, str | None] = {}

    def canonical(self, raw: str) -> str | None:
        if raw in self._cache:
            return self._cache[raw]
        try:
            text: str | None = str(ipaddress.ip_address(raw))
        except ValueError:
            text = None
        self._cache[raw] = text
        return text
