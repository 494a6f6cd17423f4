"""T2-NACL-DEFAULT-DENY: network ACLs of model-serving subnets admit nothing from the internet except
the load-balancer ports, and do not allow all egress.

NACLs are stateless and first-match by rule number. Only entries for the whole internet (0.0.0.0/0,
::/0, each family on its own) decide what "anyone" may send: walking them in order, each protocol's
port range is decided by the first entry covering it. From the internet only TCP/UDP on
`frontend.load_balancer_ports` may be allowed; to it, every TCP or every UDP port (or all protocols)
is "allow-all egress". Return traffic for internet clients therefore needs the load balancer in a
public subnet, which is the design this check expects. A subnet with no explicit association uses its
VPC's default NACL.
"""

from __future__ import annotations

from collections.abc import Iterable

from auditor.enums import FactKind, Severity, Tier
from auditor.facts import AwsNetworkAcl, NaclEntry
from auditor.store.reader import StoredFact
from checks.base import Check, CheckContext, CheckMeta, Finding
from checks.tier2._aws_scope import BASE_NEEDS, serving_scopes

NEEDS = frozenset({FactKind.AWS_NETWORK_ACL})
PROTOS = ("tcp", "udp", "icmp", "other")
_BY_NUMBER = {"6": "tcp", "17": "udp", "1": "icmp", "58": "icmp"}
Span = tuple[int, int]


def _subtract(span: Span, taken: list[Span]) -> list[Span]:
    out = [span]
    for lo, hi in taken:
        nxt: list[Span] = []
        for a, b in out:
            if hi < a or lo > b:
                nxt.append((a, b))
                continue
            if a < lo:
                nxt.append((a, lo - 1))
            if b > hi:
                nxt.append((hi + 1, b))
        out = nxt
    return out


def world_allowed(entries: Iterable[NaclEntry], egress: bool, family: int) -> dict[str, list[Span]]:
    """Per protocol, the destination port spans the internet entries allow (icmp/other: (0, 65535))."""
    decided: dict[str, list[Span]] = {p: [] for p in PROTOS}
    allowed: dict[str, list[Span]] = {p: [] for p in PROTOS}
    mine = [
        e
        for e in entries
        if e.egress == egress and (e.cidr if family == 4 else e.ipv6_cidr) in ("0.0.0.0/0", "::/0")
    ]
    for entry in sorted(mine, key=lambda e: e.rule_number):
        protos = PROTOS if entry.protocol == "-1" else (_BY_NUMBER.get(entry.protocol, "other"),)
        for proto in protos:
            span: Span = (0, 65535)
            if proto in ("tcp", "udp") and entry.port_from is not None:
                span = (entry.port_from, entry.port_to if entry.port_to is not None else entry.port_from)
            new = _subtract(span, decided[proto])
            decided[proto] += new
            if entry.action == "allow":
                allowed[proto] += new
    return allowed


def _text(spans: list[Span]) -> str:
    return ", ".join(f"{a}" if a == b else f"{a}-{b}" for a, b in sorted(spans))


def offenses(acl: AwsNetworkAcl, lb_ports: set[int]) -> list[str]:
    out: list[str] = []
    for family, world in ((4, "0.0.0.0/0"), (6, "::/0")):
        inbound = world_allowed(acl.entries, False, family)
        if all(_subtract((0, 65535), inbound[p]) == [] for p in PROTOS):
            out.append(f"inbound all traffic from {world}")
            inbound = {p: [] for p in PROTOS}
        for proto in ("tcp", "udp"):
            extra = [s for span in inbound[proto] for s in _subtract(span, [(p, p) for p in lb_ports])]
            if extra:
                out.append(f"inbound {proto} {_text(extra)} from {world}")
        for proto in ("icmp", "other"):
            if inbound[proto]:
                out.append(f"inbound {proto} from {world}")
        outbound = world_allowed(acl.entries, True, family)
        full = [p for p in ("tcp", "udp") if _subtract((0, 65535), outbound[p]) == []]
        if full:
            out.append(f"outbound all {'/'.join(full)} ports to {world}")
    return out


class NaclDefaultDeny(Check):
    meta = CheckMeta(
        id="T2-NACL-DEFAULT-DENY",
        title="Model-serving NACLs deny the internet except the load-balancer ports",
        tier=Tier.FRONTEND,
        severity=Severity.MEDIUM,
        needs=BASE_NEEDS | NEEDS,
        rationale=(
            "The subnet's network ACL is the second, stateless line behind security groups: it must not "
            "let the internet in beyond the load-balancer ports, nor let every port out, so that one "
            "mis-edited security group does not expose or exfiltrate a model-serving subnet "
            "(NIST SP 800-53 SC-7(5), deny by default)."
        ),
        remediation=(
            "In the model-serving subnets' NACL, allow inbound from 0.0.0.0/0 and ::/0 only on the "
            "load-balancer ports (or only from the VPC's ranges), keep the final deny-all entries, and "
            "limit outbound to the VPC, the proxy and the resolvers."
        ),
    )

    def evaluate(self, ctx: CheckContext) -> Iterable[Finding]:
        frontend = ctx.intent.tiers.frontend
        assert frontend is not None
        lb_ports = set(frontend.load_balancer_ports)
        expected = f"inbound from the internet only tcp/udp {sorted(lb_ports)}; outbound not allow-all"
        scopes, gaps = serving_scopes(self, ctx, NEEDS)
        yield from gaps
        acls = list(ctx.facts.of(AwsNetworkAcl))
        for scope in scopes:
            chosen: dict[str, tuple[StoredFact[AwsNetworkAcl], list[str]]] = {}
            for subnet in scope.subnets:
                rec = subnet.record
                acl = next(
                    (a for a in acls if a.target == scope.target and rec.subnet_id in a.record.subnet_ids),
                    None,
                )
                acl = acl or next(
                    (
                        a
                        for a in acls
                        if a.target == scope.target and a.record.vpc_id == rec.vpc_id and a.record.is_default
                    ),
                    None,
                )
                if acl is None:
                    reason = f"{rec.subject()}: no network ACL in the evidence is associated with it"
                    yield self.not_assessed(rec.subject(), reason, target=scope.target, expected=expected)
                    continue
                chosen.setdefault(acl.record.network_acl_id, (acl, []))[1].append(rec.subnet_id)
            for acl, subnets in chosen.values():
                rec_acl = acl.record
                bad = offenses(rec_acl, lb_ports)
                where = f" (subnets {', '.join(subnets)})"
                if bad:
                    yield self.failed(
                        rec_acl.subject(), expected, "; ".join(bad) + where, acl, target=acl.target
                    )
                else:
                    found = f"{len(rec_acl.entries)} entries; internet limited as expected{where}"
                    yield self.passed(rec_acl.subject(), expected, found, acl, target=acl.target)
