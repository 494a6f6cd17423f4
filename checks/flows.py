"""Flow conversations as checks read them: one per (source, destination, port, protocol, action) per
flow-log target, summed over the files it was read from (each file is its own capture)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from auditor.facts import FlowConversation
from auditor.store.reader import StoredFact

Key = tuple[str, str, str, int | None, int | None, str]


@dataclass
class Conversation:
    target: str
    src_addr: str
    dst_addr: str
    dst_port: int | None
    protocol: int | None
    action: str
    records: int = 0
    packets: int = 0
    bytes: int = 0
    facts: list[StoredFact[FlowConversation]] = field(default_factory=list)

    def subject(self) -> str:
        return self.facts[0].record.subject()

    def counts(self) -> str:
        files = f" in {len(self.facts)} file(s)" if len(self.facts) > 1 else ""
        return f"{self.records} record(s), {self.packets} packet(s), {self.bytes} byte(s){files}"


def conversations(facts: Iterable[StoredFact[FlowConversation]], targets: set[str]) -> list[Conversation]:
    """Merge the per-file conversation facts of each target, in first-seen order."""
    merged: dict[Key, Conversation] = {}
    for fact in facts:
        rec = fact.record
        if fact.target not in targets:
            continue
        key = (fact.target, rec.src_addr, rec.dst_addr, rec.dst_port, rec.protocol, rec.action)
        conv = merged.get(key)
        if conv is None:
            conv = merged[key] = Conversation(
                fact.target, rec.src_addr, rec.dst_addr, rec.dst_port, rec.protocol, rec.action
            )
        conv.records += rec.records
        conv.packets += rec.packets
        conv.bytes += rec.bytes
        conv.facts.append(fact)
    return list(merged.values())
