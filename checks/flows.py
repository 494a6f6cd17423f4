"""Flow conversations as checks read them: one per (source, destination, port, protocol, action) per
flow-log target, summed over the files it was read from (each file is its own capture).

Flow logs record a packet on every logged interface it passes: the sender's ENI logs its egress (ACCEPT
when the sender's security group and NACL let it out), the receiver's ENI its ingress. A connection the
destination refused therefore shows as ACCEPT on the sending interface and REJECT on the receiving one.
`DestinationRejects` tells such a conversation from one that got in: it never entered the destination.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from auditor.facts import AwsNetworkInterface, FlowConversation
from auditor.store.reader import StoredFact
from checks.netutil import address

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


FlowKey = tuple[str, str, int | None, int | None]  # (source, destination, port, protocol)


class DestinationRejects:
    """Which accepted conversations were stopped at their destination: every ACCEPT record of it was
    logged on an interface that holds the source address (the sender's egress), and a REJECT record of
    the same source, destination, port and protocol was logged on an interface that holds the destination
    address. Which interface holds which address comes from the ENI evidence (DescribeNetworkInterfaces);
    without it, or when a record spans several interfaces, nothing is proven and the ACCEPT stands."""

    def __init__(
        self,
        flows: Iterable[StoredFact[FlowConversation]],
        interfaces: Iterable[StoredFact[AwsNetworkInterface]],
    ) -> None:
        self.addresses: dict[str, set[str]] = {}
        for e in interfaces:
            held = self.addresses.setdefault(e.record.interface_id, set())
            held |= {str(a) for ip in [*e.record.private_ips, *e.record.ipv6_addresses] if (a := address(ip))}
        self.rejected: dict[FlowKey, set[str]] = {}
        for f in flows:
            r = f.record
            if r.action.upper() == "REJECT" and r.interface_id:
                key = (r.src_addr, r.dst_addr, r.dst_port, r.protocol)
                self.rejected.setdefault(key, set()).add(r.interface_id)

    def holds(self, interface_id: str | None, addr: str) -> bool:
        parsed = address(addr)
        return (
            interface_id is not None
            and parsed is not None
            and str(parsed) in self.addresses.get(interface_id, ())
        )

    def stopped(self, key: FlowKey, accepted: Iterable[StoredFact[FlowConversation]]) -> str | None:
        """Why the accepted records of `key` never entered the destination (None: not proven)."""
        src, dst = key[0], key[1]
        at = sorted(i for i in self.rejected.get(key, ()) if self.holds(i, dst))
        senders = sorted({f.record.interface_id or "" for f in accepted})
        if not at or not senders or not all(self.holds(i, src) for i in senders):
            return None
        return (
            f"accepted only on the sender's interface ({', '.join(senders)}, its egress) and REJECTed on the "
            f"destination's interface {', '.join(at)}: it never entered"
        )
