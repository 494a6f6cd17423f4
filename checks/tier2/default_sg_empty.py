"""T2-DEFAULT-SG-EMPTY: the default security group of every VPC has no rules (CIS AWS 5.4).

Every VPC in the evidence, not only the frontend's: a default group with rules is where instances and
ENIs land when nobody chose a group, so it must admit and send nothing.
"""

from __future__ import annotations

from collections.abc import Iterable

from auditor.enums import FactKind, Severity, Tier
from auditor.facts import AwsSecurityGroup, AwsVpc, SgRule
from checks.base import Check, CheckContext, CheckMeta, Finding
from checks.tier2._aws_scope import protocol_name

NEEDS = frozenset({FactKind.AWS_VPC, FactKind.AWS_SECURITY_GROUP})
EXPECTED = "no inbound and no outbound rule"


def describe(rule: SgRule) -> str:
    peers = [*rule.cidrs, *rule.ipv6_cidrs, *rule.prefix_lists, *rule.groups]
    ports = ""
    if rule.from_port is not None and rule.from_port >= 0 and protocol_name(rule.protocol) != "all":
        ports = f" {rule.from_port}" + (f"-{rule.to_port}" if rule.to_port != rule.from_port else "")
    return f"{protocol_name(rule.protocol)}{ports} {', '.join(peers) or 'nothing'}"


class DefaultSgEmpty(Check):
    meta = CheckMeta(
        id="T2-DEFAULT-SG-EMPTY",
        title="Every VPC's default security group has no rules",
        tier=Tier.FRONTEND,
        severity=Severity.MEDIUM,
        needs=NEEDS,
        rationale=(
            "Resources launched without an explicit group get the VPC's default one; its stock rules let "
            "every member talk to every other and reach anywhere (CIS AWS Foundations 5.4)."
        ),
        remediation=(
            "Remove all inbound and outbound rules from each VPC's default security group and attach "
            "purpose-made groups instead (the default group cannot be deleted)."
        ),
    )

    def evaluate(self, ctx: CheckContext) -> Iterable[Finding]:
        clouds, gaps = self.split_assessable(ctx, [t for t in ctx.targets if t.kind == "aws"], NEEDS)
        yield from gaps
        names = {t.name for t in clouds}
        defaults = {
            (g.target, g.record.vpc_id): g
            for g in ctx.facts.of(AwsSecurityGroup)
            if g.record.name == "default" and g.target in names
        }
        for vpc in ctx.facts.of(AwsVpc):
            if vpc.target not in names:
                continue
            group = defaults.get((vpc.target, vpc.record.vpc_id))
            if group is None:
                yield self.not_assessed(
                    vpc.record.subject(),
                    f"{vpc.record.subject()}: its default security group is not in the evidence",
                    target=vpc.target,
                    expected=EXPECTED,
                )
                continue
            rec = group.record
            if not rec.ingress and not rec.egress:
                yield self.passed(rec.subject(), EXPECTED, "no rules", group, vpc, target=group.target)
                continue
            parts = [f"inbound {describe(r)}" for r in rec.ingress]
            parts += [f"outbound {describe(r)}" for r in rec.egress]
            yield self.failed(rec.subject(), EXPECTED, "; ".join(parts), group, vpc, target=group.target)
