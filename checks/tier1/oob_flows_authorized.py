"""T1-OOB-FLOWS-AUTHORIZED: flow logs show no accepted connection into OOB space except from jump hosts
and declared services.

A conversation (FlowConversation, aggregated over every flow-log file of the window, whatever kind of
interface recorded it: instance, appliance, endpoint, load balancer, NAT, Lambda) is a violation when
it was ACCEPTed, its destination is in OOB space (the OOB CIDRs and AWS VPCs/subnets tagged as OOB),
and its source is neither a jump host nor itself in OOB space (traffic inside the OOB network is not
"into" it), nor authorised by a declared OOB service (`intent.tiers.oob.services`: the request from the
service's sources, or its reply from the service's destinations back into OOB, see checks/oob_services).
A jump host as destination is exempt too: logging in to it is how operators enter. A conversation
accepted only on the sender's own interface and REJECTed on the destination's (checks/flows.py,
DestinationRejects) never entered. Each crossing excused this way is a PASS naming why (the service, the
reply, the jump host, the rejection), so that what was let into OOB space is on the record; traffic
inside OOB space is not a crossing and gives no finding of its own.

Replies: flow logs record each direction separately, so the answer of a server to a BMC's own request
(NTP, DNS, a firmware mirror) also "enters" OOB space. A conversation is read as a reply, and left
out, when its destination port is ephemeral (>= 1024), the reverse conversation (destination back to
source, same protocol) was accepted too, and that reverse conversation's port is lower than this one's.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field

from auditor.enums import FactKind, Severity, Tier
from auditor.facts import AwsNetworkInterface, FactRecord, FlowConversation
from auditor.store.reader import StoredFact
from checks.base import Check, CheckContext, CheckMeta, Finding
from checks.flows import DestinationRejects
from checks.tier1._common import Oob

NEEDS = frozenset({FactKind.FLOW_CONVERSATION})
Key = tuple[str, str, int | None, int | None]


@dataclass
class _Conversation:
    """One (src, dst, port, protocol) ACCEPTed, summed over the flow-log files it appears in."""

    facts: list[StoredFact[FlowConversation]] = field(default_factory=list)
    packets: int = 0
    records: int = 0

    def add(self, f: StoredFact[FlowConversation]) -> None:
        self.facts.append(f)
        self.packets += f.record.packets
        self.records += f.record.records


class OobFlowsAuthorized(Check):
    meta = CheckMeta(
        id="T1-OOB-FLOWS-AUTHORIZED",
        title="No accepted flow into OOB space except from jump hosts and declared services",
        tier=Tier.OOB,
        severity=Severity.CRITICAL,
        needs=NEEDS,
        rationale=(
            "Configuration says what should be possible; flow logs show what happened. An accepted "
            "connection into BMC or switch-management space from anything but a jump host is either a "
            "filtering gap or an intrusion, and must be explained."
        ),
        remediation=(
            "Find the path the flow took (route tables, security groups, NACLs, ACLs), close it so only the "
            "jump hosts reach OOB space, and investigate the source host."
        ),
    )

    def evaluate(self, ctx: CheckContext) -> Iterable[Finding]:
        oob = Oob.of(ctx)
        sources = [
            t
            for t in ctx.targets
            if t.kind == "flow-logs" or ctx.facts.covered(t.name, FactKind.FLOW_CONVERSATION)
        ]
        ready, gaps = self.split_assessable(ctx, sources, NEEDS)
        yield from gaps
        names = {t.name for t in ready}
        accepted: dict[Key, _Conversation] = defaultdict(_Conversation)
        counted: dict[str, int] = defaultdict(int)
        for f in ctx.facts.of(FlowConversation):
            if f.target not in names:
                continue
            counted[f.target] += 1
            r = f.record
            if r.action.upper() == "ACCEPT":
                accepted[(r.src_addr, r.dst_addr, r.dst_port, r.protocol)].add(f)
        expected = f"accepted flows into {oob.cidr_text()} only from jump hosts ({oob.jump_text()})"
        if oob.services:
            expected += (
                " and declared OOB services (" + ", ".join(s.name for s in oob.services.services) + ")"
            )
        into: dict[str, int] = defaultdict(int)
        failing: set[str] = set()
        rejects = DestinationRejects(ctx.facts.of(FlowConversation), ctx.facts.of(AwsNetworkInterface))
        for key in sorted(accepted, key=lambda k: (k[0], k[1], k[2] or 0, k[3] or 0)):
            src, dst = key[0], key[1]
            if not oob.in_oob(dst):
                continue
            conv = accepted[key]
            for target in {f.target for f in conv.facts}:
                into[target] += 1
            if oob.is_jump_host(src) or oob.in_oob(src):
                continue  # inside the OOB network: not "into" it
            facts: list[StoredFact[FactRecord]] = list(conv.facts)
            counts = (
                f"{conv.records} record(s), {conv.packets} packet(s) ACCEPTed from {src} "
                f"in {len(conv.facts)} flow-log file(s)"
            )
            first = conv.facts[0].record
            excuse = _excuse(key, accepted, oob, rejects, conv.facts)
            if excuse is not None:
                # an authorised crossing: said, so that the auditor sees what was let in and why
                found = f"{counts}: {excuse}"
                yield self.passed(first.subject(), expected, found, *facts, target=conv.facts[0].target)
                continue
            failing |= {f.target for f in conv.facts}
            yield self.failed(first.subject(), expected, counts, *facts, target=conv.facts[0].target)
        for name in sorted(names - failing):
            found = (
                f"{into[name]} accepted conversation(s) into OOB space among {counted[name]}, "
                "none from an unauthorized source"
            )
            yield self.passed(name, expected, found, target=name)


def _excuse(
    key: Key,
    accepted: dict[Key, _Conversation],
    oob: Oob,
    rejects: DestinationRejects,
    facts: list[StoredFact[FlowConversation]],
) -> str | None:
    """Why an accepted conversation from outside into OOB space is not a violation (None: it is)."""
    src, dst, port, proto = key
    if oob.is_jump_host(dst):
        return "to a jump host: logging in to it is how operators enter the OOB network"
    service = oob.services.covering(src, dst, proto, port)
    if service is not None:
        role = "request" if oob.services.admitting(src, dst, proto, port) else "reply"
        return f"the {role} of {service}"
    if _is_reply(key, accepted):
        return f"the reply to a connection {dst} opened to {src} (accepted too, to a lower port)"
    return rejects.stopped((src, dst, port, proto), facts)


def _is_reply(key: Key, accepted: dict[Key, _Conversation]) -> bool:
    src, dst, port, proto = key
    if port is None or port < 1024:
        return False
    return any(
        k[0] == dst and k[1] == src and k[3] == proto and k[2] is not None and k[2] < port for k in accepted
    )
