"""X-FLOWS-NO-CROSS-TIER: no accepted flow into the backend or OOB network from outside it.

A conversation is a crossing when it was ACCEPTed, its destination lies in a backend or OOB CIDR, and its
source is not authorized there: for the backend, anything outside the backend CIDRs; for OOB, anything
outside the OOB CIDRs and the declared jump hosts (a jump host as destination is exempt too: it is how
operators enter). Authorised in either zone: whatever a declared OOB service carries
(`intent.tiers.oob.services`: its request, or its reply back to its sources; checks/oob_services.py),
including backend destinations a service names (pollers of the backend switches' loopbacks). OOB space
includes AWS VPCs and subnets tagged as OOB. Sources are labelled internet (public as `intent.addressing`
defines it, checks/address_space.py), frontend, backend, OOB or undeclared. Every flow-log source is
read: offline flow-log directories and AWS accounts whose flow records were collected live, from every
kind of interface (instances, appliances, endpoints, load balancers, NAT gateways).

Flow logs record both directions of a connection. A conversation to a high port whose reverse (from its
destination back to its source, ACCEPTed, to a lower port) was also seen is taken as the reply to a
connection the protected side opened, and is judged by that connection instead. A conversation accepted
only on the sender's own interface and REJECTed on the destination's (checks/flows.py) never entered.
Each crossing excused (reply, declared service, rejection at the destination) is a PASS naming why;
the flow-log source passes as a whole when nothing crossed unexcused.
"""

from __future__ import annotations

import ipaddress
from collections import defaultdict
from collections.abc import Iterable

from auditor.config.models import OobTier
from auditor.enums import FactKind, Severity, Tier
from auditor.facts import AwsNetworkInterface, FlowConversation, FlowLogStats
from auditor.store.reader import StoredFact
from checks.address_space import AddressSpace, address_space
from checks.base import Check, CheckContext, CheckMeta, Finding
from checks.flows import Conversation, DestinationRejects, conversations
from checks.netutil import Network, address, networks_of
from checks.oob_services import OobServices
from checks.tier1._common import tagged_aws_networks

NEEDS = frozenset({FactKind.FLOW_CONVERSATION})
Address = ipaddress.IPv4Address | ipaddress.IPv6Address


def _in(addr: Address, nets: Iterable[Network]) -> bool:
    return any(addr.version == n.version and addr in n for n in nets)


class Zones:
    def __init__(self, ctx: CheckContext) -> None:
        tiers = ctx.intent.tiers
        self.backend = tiers.backend.networks() if tiers.backend else []
        self.oob = tiers.oob.networks() if tiers.oob else []
        if isinstance(tiers.oob, OobTier):
            self.oob += tagged_aws_networks(ctx, tiers.oob)
        self.frontend = tiers.frontend.networks() if tiers.frontend else []
        self.jumps = networks_of(tiers.oob.jump_hosts) if isinstance(tiers.oob, OobTier) else []
        self.space: AddressSpace = address_space(ctx)
        self.services = OobServices.of(ctx.intent)

    def protected(self, dst: Address) -> str | None:
        if _in(dst, self.oob) and not _in(dst, self.jumps):
            return "OOB"
        if _in(dst, self.backend):
            return "backend"
        return None

    def authorized(self, src: Address, zone: str) -> bool:
        if zone == "OOB":
            return _in(src, self.oob) or _in(src, self.jumps)
        return _in(src, self.backend)

    def label(self, src: Address) -> str:
        for name, nets in (("frontend", self.frontend), ("backend", self.backend), ("OOB", self.oob)):
            if _in(src, nets):
                return name
        return "internet" if self.space.is_public(str(src)) else "undeclared space"


class FlowsNoCrossTier(Check):
    meta = CheckMeta(
        id="X-FLOWS-NO-CROSS-TIER",
        title="No accepted flow into the backend or OOB network from outside it",
        tier=Tier.CROSS,
        severity=Severity.CRITICAL,
        needs=NEEDS,
        rationale=(
            "Configuration says what should be possible; flow logs show what happened. An accepted flow "
            "from the internet or the frontend into a BMC or the RDMA fabric is segmentation failing in "
            "practice, whatever the configs claim (NIST SP 800-53 SI-4, AC-4)."
        ),
        remediation=(
            "Find the path the flow took (route, security group, NACL, policy) and close it; treat the "
            "source as potentially compromised and review what it reached."
        ),
    )

    def evaluate(self, ctx: CheckContext) -> Iterable[Finding]:
        zones = Zones(ctx)
        if not zones.backend and not zones.oob:
            yield self.not_assessed("backend and OOB CIDRs", "the intent declares no backend or OOB CIDR")
            return
        nets = ", ".join(str(n) for n in [*zones.backend, *zones.oob])
        expected = f"no ACCEPTed flow into {nets} from outside its tier (jump hosts excepted for OOB)"
        sources = [
            t
            for t in ctx.targets
            if t.kind == "flow-logs" or ctx.facts.covered(t.name, FactKind.FLOW_CONVERSATION)
        ]
        ready, gaps = self.split_assessable(ctx, sources, NEEDS)
        yield from gaps
        names = {t.name for t in ready}
        convs = [c for c in conversations(ctx.facts.of(FlowConversation), names) if c.action == "ACCEPT"]
        lowest: dict[tuple[str, str, str], int] = {}  # (target, src, dst) -> lowest destination port
        for c in convs:
            port = c.dst_port if c.dst_port is not None else 0
            key = (c.target, c.src_addr, c.dst_addr)
            lowest[key] = min(port, lowest.get(key, port))
        counted: dict[str, int] = defaultdict(int)
        failed: set[str] = set()
        rejects = DestinationRejects(ctx.facts.of(FlowConversation), ctx.facts.of(AwsNetworkInterface))
        for conv in convs:
            counted[conv.target] += 1
            src, dst = address(conv.src_addr), address(conv.dst_addr)
            if src is None or dst is None:
                continue
            zone = zones.protected(dst)
            if zone is None or zones.authorized(src, zone):
                continue
            excuse = _excuse(conv, zones, lowest, rejects)
            if excuse is not None:  # an authorised crossing: on the record, with the reason
                found = f"accepted: {conv.counts()}, from {zones.label(src)} into {zone}: {excuse}"
                yield self.passed(conv.subject(), expected, found, *conv.facts, target=conv.target)
                continue
            found = f"accepted: {conv.counts()}, from {zones.label(src)} into {zone}"
            failed.add(conv.target)
            yield self.failed(conv.subject(), expected, found, *conv.facts, target=conv.target)
        stats: dict[str, list[StoredFact[FlowLogStats]]] = defaultdict(list)
        for s in ctx.facts.of(FlowLogStats):
            stats[s.target].append(s)
        for name in sorted(names - failed):
            found = f"none among {counted[name]} accepted conversation(s)"
            yield self.passed(f"flow logs {name}", expected, found, *stats[name], target=name)


def _excuse(
    conv: Conversation, zones: Zones, lowest: dict[tuple[str, str, str], int], rejects: DestinationRejects
) -> str | None:
    """Why an accepted conversation into a protected zone from outside it is not a crossing (None: it is)."""
    back = lowest.get((conv.target, conv.dst_addr, conv.src_addr))
    dport = conv.dst_port
    if dport is not None and back is not None and dport >= 1024 and back < dport:
        return f"the reply to a connection {conv.dst_addr} opened to {conv.src_addr} (port {back})"
    service = zones.services.covering(conv.src_addr, conv.dst_addr, conv.protocol, dport)
    if service is not None:  # a declared OOB service, e.g. pollers of backend loopbacks
        role = (
            "request"
            if zones.services.admitting(conv.src_addr, conv.dst_addr, conv.protocol, dport)
            else "reply"
        )
        return f"the {role} of {service}"
    return rejects.stopped((conv.src_addr, conv.dst_addr, dport, conv.protocol), conv.facts)
