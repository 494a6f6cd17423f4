"""X-LATERAL-NO-PATH: no path of any length from the internet or tier 2 into tier 1 or tier 3."""

from __future__ import annotations

from collections.abc import Iterable

from auditor.enums import FactKind, Severity, Tier
from auditor.facts import FactRecord
from auditor.store.reader import StoredFact
from checks.base import Check, CheckContext, CheckMeta, Finding, TargetView
from checks.lateral.assemble import Reach, Scope, answer, build
from checks.lateral.graph import INTERNET, Link

DEVICE_NEEDS = frozenset({FactKind.ROUTE, FactKind.INTERFACE})
AWS_NEEDS = frozenset(
    {FactKind.AWS_SUBNET, FactKind.AWS_ROUTE_TABLE, FactKind.AWS_SECURITY_GROUP, FactKind.AWS_NETWORK_ACL}
)
K8S_NEEDS = frozenset({FactKind.K8S_NAMESPACE, FactKind.K8S_NETWORK_POLICY})


class LateralNoPath(Check):
    meta = CheckMeta(
        id="X-LATERAL-NO-PATH",
        title="No lateral path from the internet or the frontend into tier 1 or tier 3",
        tier=Tier.CROSS,
        severity=Severity.CRITICAL,
        needs=DEVICE_NEEDS | AWS_NEEDS | K8S_NEEDS,
        rationale=(
            "Segmentation fails when any chain of allowed hops connects an attacker's starting point (the "
            "internet, a compromised frontend workload) with BMCs, switch management or the RDMA fabric: "
            "each hop may look harmless alone. The auditor builds one reachability model over device routing "
            "and ACLs, AWS route tables, transit gateways, security groups and NACLs, and Kubernetes "
            "policies, and searches it for such chains (NIST SP 800-207 zero trust; PCI DSS 1.3)."
        ),
        remediation=(
            "Break the chain at the hop that should not exist: remove the route (route table, VRF static "
            "route, TGW route) that carries tier-1/3 prefixes, or deny the traffic in the security group, "
            "NACL, device ACL or Kubernetes NetworkPolicy named in the finding."
        ),
    )

    def evaluate(self, ctx: CheckContext) -> Iterable[Finding]:
        tiers = [
            t for t in (Tier.OOB, Tier.BACKEND) if (ti := ctx.intent.tiers.get(t)) is not None and ti.cidrs
        ]
        if not tiers:
            yield self.not_assessed(
                "tier-1/3 address space",
                "no tier-1 or tier-3 CIDRs are declared; declare intent.tiers.oob.cidrs / backend.cidrs",
            )
            return
        devices, gaps = self.split_assessable(ctx, self._kind(ctx, "device"), DEVICE_NEEDS)
        yield from gaps
        clouds, gaps = self.split_assessable(ctx, self._kind(ctx, "aws"), AWS_NEEDS)
        yield from gaps
        clusters, gaps = self.split_assessable(ctx, self._kind(ctx, "kubernetes"), K8S_NEEDS)
        yield from gaps
        scope = Scope(
            devices=frozenset(t.name for t in devices),
            device_tiers=tuple((t.name, t.tier) for t in devices),
            aws=frozenset(t.name for t in clouds),
            kubernetes=frozenset(t.name for t in clusters),
            pods_covered=frozenset(t.name for t in clusters if ctx.facts.covered(t.name, FactKind.K8S_POD)),
        )
        if not (scope.devices or scope.aws or scope.kubernetes):
            return
        model = build(ctx.intent, ctx.facts.of, scope)
        for reach in answer(model):
            if reach.source.id in model.unassessed:
                yield self.not_assessed(
                    f"{reach.source.id} -> {reach.tier.value}", model.unassessed[reach.source.id]
                )
                continue
            yield self._finding(reach, [str(c) for c in ctx.intent.tiers.get(reach.tier).cidrs])  # type: ignore[union-attr]

    @staticmethod
    def _kind(ctx: CheckContext, kind: str) -> list[TargetView]:
        return [t for t in ctx.targets if t.kind == kind]

    def _finding(self, reach: Reach, cidrs: list[str]) -> Finding:
        zone, tier = reach.source, reach.tier
        subject = f"{zone.id} -> {tier.value}"
        expected = f"no path of any length from {zone.id} into tier {tier.value} ({', '.join(cidrs)})"
        source_facts = [f for f in zone.facts if isinstance(f, StoredFact)]
        target = source_facts[0].target if source_facts else None
        if not reach.path:
            found = "no path found: every route, filter and policy on the way stops it"
            if zone.id == INTERNET:
                found = "no path found from any internet entry point"
            return self.passed(subject, expected, found, *source_facts[:20], target=target)
        facts = _facts(source_facts, reach.path)
        return self.failed(
            subject,
            expected,
            describe(reach.path),
            *facts,
            target=target,
            message=f"{zone.id} reaches tier {tier.value} in {len(reach.path)} link(s)",
        )


def describe(path: list[Link]) -> str:
    """`[1] A -> B (TCP 22 to 10.250.10.0/24): hop; hop [2] ...`: every hop with what allows it."""
    parts = []
    for n, link in enumerate(path, start=1):
        hops = "; ".join(h.text for h in link.hops)
        parts.append(
            f"[{n}] {link.src} -> {link.dst} ({link.conns.describe()} to {link.addresses.describe()}): {hops}"
        )
    return " ".join(parts)


def _facts(first: list[StoredFact[FactRecord]], path: list[Link]) -> list[StoredFact[FactRecord]]:
    seen: dict[int, StoredFact[FactRecord]] = {f.id: f for f in first}
    for link in path:
        for hop in link.hops:
            for fact in hop.facts:
                if isinstance(fact, StoredFact):
                    seen.setdefault(fact.id, fact)
    return list(seen.values())
