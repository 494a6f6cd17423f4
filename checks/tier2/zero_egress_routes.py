"""T2-ZERO-EGRESS-ROUTES: model-serving subnets have no route to the internet of their own.

The rule (simple on purpose, so an auditor can re-derive it): the route table of a model-serving
subnet (its explicit association, else its VPC's main table) holds no active route to an internet
gateway, a public NAT gateway, an egress-only internet gateway or a carrier gateway, whatever the
destination; and its default route (0.0.0.0/0, ::/0), if any, goes to a transit gateway, a network
interface or instance (an appliance), a VPC endpoint (Gateway Load Balancer / Network Firewall), a
Cloud WAN core network or a VPN gateway: the declared egress path through the proxy or firewall, not
the internet; or to a peering or VPN declared in `intent.cloud.attachments` as a frontend attachment (the
egress or inspection VPC). A private NAT gateway does not reach the internet and is allowed. Where the
transit gateway sends the traffic next is judged by the lateral-movement analysis, not here.
"""

from __future__ import annotations

from collections.abc import Iterable

from auditor.enums import FactKind, Severity, Tier
from auditor.facts import AwsGateway, AwsRoute, AwsRouteTable
from auditor.store.reader import StoredFact
from checks.base import Check, CheckContext, CheckMeta, Finding
from checks.netutil import is_default_route
from checks.text import clauses, listing
from checks.tier2._aws_scope import BASE_NEEDS, serving_scopes

NEEDS = frozenset({FactKind.AWS_ROUTE_TABLE})
INTERNET = frozenset({"internet-gateway", "nat-gateway", "egress-only-internet-gateway", "carrier-gateway"})
EGRESS_PATHS = frozenset(
    {"transit-gateway", "network-interface", "instance", "vpc-endpoint", "core-network", "vpn-gateway"}
)
EXPECTED = (
    "no route to an internet, public NAT, egress-only or carrier gateway; a default route only via a transit "
    "gateway, appliance ENI, firewall endpoint or VPN"
)


class ZeroEgressRoutes(Check):
    meta = CheckMeta(
        id="T2-ZERO-EGRESS-ROUTES",
        title="Model-serving subnets have no direct route to the internet",
        tier=Tier.FRONTEND,
        severity=Severity.HIGH,
        needs=BASE_NEEDS | NEEDS,
        rationale=(
            "A default route to an internet or NAT gateway is a way out that bypasses the declared proxy "
            "and its logs: zero default egress means the serving subnets can reach the internet only "
            "through the inspected path (NIST SP 800-207, SP 800-53 SC-7(4))."
        ),
        remediation=(
            "Remove routes to internet, NAT and egress-only gateways from the model-serving subnets' "
            "route tables; send the default route (if one is needed) to the transit gateway or firewall "
            "endpoint that leads to the proxy."
        ),
    )

    def evaluate(self, ctx: CheckContext) -> Iterable[Finding]:
        scopes, gaps = serving_scopes(self, ctx, NEEDS)
        yield from gaps
        tables = ctx.facts.of(AwsRouteTable)
        gateways = {(g.target, g.record.gateway_id): g.record for g in ctx.facts.of(AwsGateway)}
        for scope in scopes:
            chosen: dict[str, tuple[StoredFact[AwsRouteTable], list[str]]] = {}
            mine = [t for t in tables if t.target == scope.target]
            for subnet in scope.subnets:
                rec = subnet.record
                table = next((t for t in mine if rec.subnet_id in t.record.subnet_ids), None)
                table = table or next(
                    (t for t in mine if t.record.vpc_id == rec.vpc_id and t.record.main), None
                )
                if table is None:
                    reason = f"{rec.subject()}: no route table in the evidence applies to it"
                    yield self.not_assessed(rec.subject(), reason, target=scope.target, expected=EXPECTED)
                    continue
                chosen.setdefault(table.record.route_table_id, (table, []))[1].append(rec.subnet_id)
            for table, subnets in chosen.values():
                bad = [
                    text
                    for r in table.record.routes
                    if (text := _offense(r, gateways.get((table.target, r.target_id or "")), ctx)) is not None
                ]
                where = f" (subnets {listing(subnets)})"
                if bad:
                    yield self.failed(
                        table.record.subject(), EXPECTED, clauses(bad) + where, table, target=table.target
                    )
                else:
                    found = f"{len(table.record.routes)} route(s), none to the internet{where}"
                    yield self.passed(table.record.subject(), EXPECTED, found, table, target=table.target)


def _offense(route: AwsRoute, gateway: AwsGateway | None, ctx: CheckContext) -> str | None:
    if route.state == "blackhole":
        return None
    declared = ctx.intent.cloud.attachment_tier(route.target_id)
    text = f"{route.destination} -> {route.target_type} {route.target_id or ''}".rstrip()
    if route.target_type == "nat-gateway" and gateway is not None and not gateway.public:
        return None  # a private NAT gateway translates between private networks only
    if route.target_type in INTERNET:
        return f"{text} (direct internet path)"
    if declared == Tier.FRONTEND:
        return None  # the declared egress path (a peering or VPN into the egress VPC)
    if is_default_route(route.destination) and route.target_type not in EGRESS_PATHS:
        return f"{text} (default route not via a declared egress path)"
    return None
