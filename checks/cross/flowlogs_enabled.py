"""X-FLOWLOGS-ENABLED: every VPC records all its traffic in flow logs.

A VPC passes when an ACTIVE flow log on the VPC itself records ALL traffic, or when ACCEPT and REJECT
logs together do, or when every one of its subnets (or, with ENI evidence, every ENI) is covered that
way. A flow log whose DeliverLogsStatus is FAILED (its destination refuses the records) records nothing.
Every VPC of every assessed AWS target is in scope: an unlogged VPC is where an intruder would stage,
whatever tier it was meant for.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

from auditor.enums import FactKind, Severity, Tier
from auditor.facts import AwsFlowLogConfig, AwsNetworkInterface, AwsSubnet, AwsVpc, FactRecord
from auditor.store.reader import StoredFact
from checks.base import Check, CheckContext, CheckMeta, Finding
from checks.text import listing

NEEDS = frozenset({FactKind.AWS_VPC, FactKind.AWS_FLOW_LOG_CONFIG})
EXPECTED = "an ACTIVE flow log recording ALL traffic on the VPC (or on each of its subnets or ENIs)"
BOTH = frozenset({"ACCEPT", "REJECT"})


def _records(c: AwsFlowLogConfig) -> bool:
    """ACTIVE and not failing to deliver (DeliverLogsStatus FAILED: the destination refuses the records,
    e.g. a bucket policy or IAM role without the permission, so nothing is logged)."""
    return (c.status or "").upper() == "ACTIVE" and (c.delivery or "").upper() != "FAILED"


def _traffic(configs: Iterable[AwsFlowLogConfig]) -> set[str]:
    """The traffic the ACTIVE, delivering configs record together."""
    out: set[str] = set()
    for c in configs:
        if not _records(c):
            continue
        kind = (c.traffic_type or "").upper()
        out |= BOTH if kind == "ALL" else {kind}
    return out


class FlowLogsEnabled(Check):
    meta = CheckMeta(
        id="X-FLOWLOGS-ENABLED",
        title="Flow logs record all traffic of every VPC",
        tier=Tier.CROSS,
        severity=Severity.HIGH,
        needs=NEEDS,
        rationale=(
            "Flow logs are the evidence that segmentation holds in practice and the record an incident "
            "responder needs; a VPC without them, or logging only accepted or rejected traffic, leaves a "
            "blind spot (NIST SP 800-53 AU-2/AU-12, CIS AWS Foundations 3.7)."
        ),
        remediation=(
            "Create a flow log with traffic type ALL on each VPC (aws ec2 create-flow-logs --resource-type "
            "VPC --traffic-type ALL) delivering to the immutable log bucket, and fix any flow log whose "
            "status is not ACTIVE."
        ),
    )

    def evaluate(self, ctx: CheckContext) -> Iterable[Finding]:
        clouds, gaps = self.split_assessable(ctx, [t for t in ctx.targets if t.kind == "aws"], NEEDS)
        yield from gaps
        names = {t.name for t in clouds}
        configs: dict[tuple[str, str], list[StoredFact[AwsFlowLogConfig]]] = defaultdict(list)
        for c in ctx.facts.of(AwsFlowLogConfig):
            configs[(c.target, c.record.resource_id)].append(c)
        subnets: dict[tuple[str, str], list[str]] = defaultdict(list)
        for s in ctx.facts.of(AwsSubnet):
            subnets[(s.target, s.record.vpc_id)].append(s.record.subnet_id)
        enis: dict[tuple[str, str], list[str]] = defaultdict(list)
        for e in ctx.facts.of(AwsNetworkInterface):
            if e.record.vpc_id:
                enis[(e.target, e.record.vpc_id)].append(e.record.interface_id)
        for vpc in ctx.facts.of(AwsVpc):
            if vpc.target not in names:
                continue
            key = (vpc.target, vpc.record.vpc_id)
            own = configs[key]
            facts: list[StoredFact[FactRecord]] = [vpc, *own]
            recorded = _traffic(c.record for c in own)
            if recorded >= BOTH:
                ids = listing(c.record.flow_log_id for c in own if _records(c.record))
                yield self.passed(
                    vpc.record.subject(), EXPECTED, f"VPC flow log(s) {ids}", *facts, target=vpc.target
                )
                continue
            covered = self._parts(ctx, vpc.target, subnets[key], configs, "subnet")
            if covered is None and ctx.facts.covered(vpc.target, FactKind.AWS_NETWORK_INTERFACE):
                covered = self._parts(ctx, vpc.target, enis[key], configs, "ENI")
            if covered is not None:
                text, parts = covered
                yield self.passed(vpc.record.subject(), EXPECTED, text, *facts, *parts, target=vpc.target)
                continue
            yield self.failed(vpc.record.subject(), EXPECTED, _why(own), *facts, target=vpc.target)

    @staticmethod
    def _parts(
        ctx: CheckContext,
        target: str,
        ids: list[str],
        configs: dict[tuple[str, str], list[StoredFact[AwsFlowLogConfig]]],
        what: str,
    ) -> tuple[str, list[StoredFact[FactRecord]]] | None:
        """All of a VPC's subnets (or ENIs) logged for all traffic, or None."""
        if not ids:
            return None
        facts: list[StoredFact[FactRecord]] = []
        for resource in ids:
            mine = configs[(target, resource)]
            if _traffic(c.record for c in mine) < BOTH:
                return None
            facts += mine
        return f"every {what} ({len(ids)}) has an ACTIVE flow log for ALL traffic", facts


def _why(own: list[StoredFact[AwsFlowLogConfig]]) -> str:
    if not own:
        return "no flow log on the VPC, nor on all of its subnets"
    parts = [
        f"{c.record.flow_log_id}: status {c.record.status or 'unknown'}, "
        f"traffic {c.record.traffic_type or 'unknown'}"
        + (
            f", delivery FAILED ({c.record.delivery_error or 'no message'})"
            if (c.record.delivery or "").upper() == "FAILED"
            else ""
        )
        for c in own
    ]
    return "flow log(s) do not record all traffic: " + "; ".join(parts)
