"""T2-SG-DEFAULT-DENY: security groups of model-serving subnets admit nothing from the internet except
the load-balancer ports, and do not allow all egress.

In scope: with ENI facts for the target, the groups attached to ENIs in model-serving subnets; without
them, every group of the frontend VPCs (tagged `vpc_tags`, else the VPCs of the serving subnets).
VPC default groups are left to T2-DEFAULT-SG-EMPTY, which holds them to "no rules at all".
Internet = 0.0.0.0/0, ::/0 and any other public CIDR as the intent's address space defines it (declared
`external` ranges included), outside the VPCs' own ranges (see _aws_scope.Internet). Allowed from it:
TCP/UDP on `frontend.load_balancer_ports`, and the ICMP errors path MTU discovery needs (ICMP type 3,
ICMPv6 types 1 and 2; see _aws_scope.path_mtu_discovery). Allow-all egress: to 0.0.0.0/0 or ::/0 on every
protocol, or on every TCP or UDP port; accepted for the groups declared in
`intent.cloud.open_egress_groups` (by id or tags, e.g. node groups whose egress the proxy confines),
whose PASS names the declared reason. Prefix-list references are not resolved (their entries are not in
the evidence).
"""

from __future__ import annotations

from collections.abc import Iterable

from auditor.enums import FactKind, Severity, Tier
from auditor.facts import AwsNetworkInterface, AwsSecurityGroup, SgRule
from auditor.store.reader import StoredFact
from checks.base import Check, CheckContext, CheckMeta, Finding
from checks.text import clauses
from checks.tier2._aws_scope import (
    BASE_NEEDS,
    Internet,
    internet,
    path_mtu_discovery,
    protocol_name,
    serving_scopes,
    world,
)

NEEDS = frozenset({FactKind.AWS_SECURITY_GROUP})
_PORTED = {"tcp", "udp", "6", "17"}


def _ports(rule: SgRule) -> tuple[int, int]:
    lo = rule.from_port if rule.from_port is not None and rule.from_port >= 0 else 0
    hi = rule.to_port if rule.to_port is not None and rule.to_port >= 0 else 65535
    return lo, hi


def _span(rule: SgRule) -> str:
    proto = protocol_name(rule.protocol)
    if proto == "all":
        return "all traffic"
    if rule.protocol.lower() not in _PORTED:
        return proto
    lo, hi = _ports(rule)
    return f"{proto} {lo}" if lo == hi else f"{proto} {lo}-{hi}"


def _sources(rule: SgRule, net: Internet | None = None) -> list[str]:
    return [c for c in [*rule.cidrs, *rule.ipv6_cidrs] if (net.holds(c) if net else world(c))]


def ingress_offense(rule: SgRule, lb_ports: set[int], net: Internet | None = None) -> str | None:
    sources = _sources(rule, net)
    if not sources or path_mtu_discovery(rule.protocol, rule.from_port):  # ICMP: FromPort is the type
        return None
    if rule.protocol.lower() in _PORTED:
        lo, hi = _ports(rule)
        if hi - lo < 1024 and all(p in lb_ports for p in range(lo, hi + 1)):
            return None
    return f"ingress {_span(rule)} from {', '.join(sources)}"


def egress_offense(rule: SgRule) -> str | None:
    targets = _sources(rule)
    if not targets:
        return None
    proto = rule.protocol.lower()
    if proto == "-1" or (proto in _PORTED and _ports(rule) == (0, 65535)):
        return f"egress {_span(rule)} to {', '.join(targets)}"
    return None


class SgDefaultDeny(Check):
    meta = CheckMeta(
        id="T2-SG-DEFAULT-DENY",
        title="Model-serving security groups deny the internet except the load-balancer ports",
        tier=Tier.FRONTEND,
        severity=Severity.HIGH,
        needs=BASE_NEEDS | NEEDS,
        rationale=(
            "A security group open to 0.0.0.0/0 exposes inference hosts (SSH, Jupyter, metrics, model "
            "servers) to the whole internet, and allow-all egress lets a compromised host send model "
            "weights anywhere (CIS AWS Foundations 5.2/5.3, NIST SP 800-53 SC-7)."
        ),
        remediation=(
            "Remove rules that admit 0.0.0.0/0 or ::/0 except the declared load-balancer ports (better: "
            "admit only the load balancer's security group), and replace allow-all egress with rules to "
            "the proxy, the resolvers and the VPC's own ranges."
        ),
    )

    def evaluate(self, ctx: CheckContext) -> Iterable[Finding]:
        frontend = ctx.intent.tiers.frontend
        assert frontend is not None
        lb_ports = set(frontend.load_balancer_ports)
        expected = (
            f"nothing admitted from the internet (0.0.0.0/0, ::/0, public space) except tcp/udp "
            f"{sorted(lb_ports)}; no allow-all egress unless declared"
        )
        scopes, gaps = serving_scopes(self, ctx, NEEDS)
        yield from gaps
        net = internet(ctx)
        groups = {(g.target, g.record.group_id): g for g in ctx.facts.of(AwsSecurityGroup)}
        enis = ctx.facts.of(AwsNetworkInterface)
        for scope in scopes:
            if ctx.facts.covered(scope.target, FactKind.AWS_NETWORK_INTERFACE):
                attached = {
                    sg
                    for e in enis
                    if e.target == scope.target and e.record.subnet_id in scope.subnet_ids
                    for sg in e.record.security_groups
                }
                why = "attached to ENIs in the model-serving subnets"
                chosen = [groups[(scope.target, g)] for g in sorted(attached) if (scope.target, g) in groups]
                for g in sorted(attached):
                    if (scope.target, g) not in groups:
                        subject = f"{scope.target}/{g}"
                        reason = f"{subject}: attached to a model-serving ENI but not in the evidence"
                        yield self.not_assessed(subject, reason, target=scope.target)
            else:
                why = "in the frontend VPCs (no ENI evidence)"
                chosen = [
                    g
                    for (t, _), g in sorted(groups.items())
                    if t == scope.target and g.record.vpc_id in scope.vpcs
                ]
            for group in chosen:
                if group.record.name == "default":
                    continue  # T2-DEFAULT-SG-EMPTY
                yield self._group(group, lb_ports, expected, why, ctx, net)

    def _group(
        self,
        group: StoredFact[AwsSecurityGroup],
        lb_ports: set[int],
        expected: str,
        why: str,
        ctx: CheckContext,
        net: Internet,
    ) -> Finding:
        rec = group.record
        bad = [x for x in (ingress_offense(r, lb_ports, net) for r in rec.ingress) if x]
        open_egress = [x for x in (egress_offense(r) for r in rec.egress) if x]
        accepted = ctx.intent.cloud.open_egress(rec.group_id, rec.tags) if open_egress else None
        if accepted is None:
            bad += open_egress
        if bad:
            return self.failed(rec.subject(), expected, clauses(bad), group, target=group.target)
        egress = (
            f"allow-all egress accepted as declared ({accepted.reason})"
            if accepted is not None
            else "no allow-all egress"
        )
        found = (
            f"{len(rec.ingress)} ingress and {len(rec.egress)} egress rule(s), "
            f"internet only on the load-balancer ports, {egress} ({why})"
        )
        return self.passed(rec.subject(), expected, found, group, target=group.target)
