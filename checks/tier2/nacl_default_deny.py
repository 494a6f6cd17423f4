"""T2-NACL-DEFAULT-DENY: network ACLs of model-serving subnets admit nothing from the internet except
the load-balancer ports and return traffic, and do not allow all egress.

NACLs are stateless and first-match by rule number. For each source that stands for the internet (the
whole family, 0.0.0.0/0 or ::/0, and each public range an inbound allow names: public as the intent's
address space defines it, outside the VPCs' own ranges), the entries whose CIDR holds all of it decide
each protocol's port range in order. From the internet only TCP/UDP on `frontend.load_balancer_ports`
may be allowed, plus return traffic: an allow on ports lo-65535 with lo >= 1024 (TCP by default; see
`intent.cloud.nacl_return_traffic`) is the rule a stateless NACL needs for the replies to the subnet's own
connections (AWS's documented NACL design), not an opening; a narrower high port (8080, 8000-8999) is.
Nor is an allow of the ICMP errors path MTU discovery needs (ICMP type 3, ICMPv6 types 1 and 2).
To the internet, every TCP or every UDP port (or all protocols) is "allow-all egress". A subnet with no
explicit association uses its VPC's default NACL.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable

from auditor.config.models import NaclReturnTraffic
from auditor.enums import FactKind, Severity, Tier
from auditor.facts import AwsNetworkAcl, NaclEntry
from auditor.store.reader import StoredFact
from checks.base import Check, CheckContext, CheckMeta, Finding
from checks.netutil import Network, network
from checks.text import clauses, listing
from checks.tier2._aws_scope import BASE_NEEDS, Internet, internet, path_mtu_discovery, serving_scopes

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


def _covers(cidr: str | None, probe: Network) -> bool:
    net = network(cidr) if cidr else None
    return net is not None and net.version == probe.version and probe.subnet_of(net)  # type: ignore[arg-type]


def world_allowed(
    entries: Iterable[NaclEntry],
    egress: bool,
    family: int,
    probe: Network | None = None,
    returns: NaclReturnTraffic | None = None,
) -> dict[str, list[Span]]:
    """Per protocol, the destination port spans that sources in `probe` (default: the whole internet of
    the family) may send: the entries whose CIDR holds all of `probe` decide, first match by rule
    number (icmp/other: (0, 65535)). Spans allowed by a return-traffic rule (`returns`) are left out, and
    so is a path-MTU-discovery ICMP allow (only when `returns` is given: the inbound judgement)."""
    whole = ipaddress.ip_network("0.0.0.0/0" if family == 4 else "::/0")
    probe = probe or whole
    decided: dict[str, list[Span]] = {p: [] for p in PROTOS}
    allowed: dict[str, list[Span]] = {p: [] for p in PROTOS}
    mine = [
        e for e in entries if e.egress == egress and _covers(e.cidr if family == 4 else e.ipv6_cidr, probe)
    ]
    for entry in sorted(mine, key=lambda e: e.rule_number):
        protos = PROTOS if entry.protocol == "-1" else (_BY_NUMBER.get(entry.protocol, "other"),)
        reply = returns is not None and (
            returns.is_return_rule(entry.protocol, entry.port_from, entry.port_to)
            or path_mtu_discovery(entry.protocol, entry.icmp_type)
        )
        for proto in protos:
            span: Span = (0, 65535)
            if proto in ("tcp", "udp") and entry.port_from is not None:
                span = (entry.port_from, entry.port_to if entry.port_to is not None else entry.port_from)
            new = _subtract(span, decided[proto])
            decided[proto] += new
            if entry.action == "allow" and not reply:
                allowed[proto] += new
    return allowed


def _text(spans: list[Span]) -> str:
    return ", ".join(f"{a}" if a == b else f"{a}-{b}" for a, b in sorted(spans))


def _probes(acl: AwsNetworkAcl, family: int, net: Internet | None) -> list[tuple[str, Network]]:
    """The internet as NACL sources: the whole family, and each public range an inbound allow names."""
    whole = "0.0.0.0/0" if family == 4 else "::/0"
    out: list[tuple[str, Network]] = [(whole, ipaddress.ip_network(whole))]
    if net is None:
        return out
    for e in acl.entries:
        cidr = e.cidr if family == 4 else e.ipv6_cidr
        parsed = network(cidr) if cidr else None
        if e.egress or e.action != "allow" or parsed is None or parsed.prefixlen == 0 or not net.holds(cidr):
            continue
        if all(str(n) != str(parsed) for _, n in out):
            out.append((str(parsed), parsed))
    return out


def offenses(
    acl: AwsNetworkAcl,
    lb_ports: set[int],
    net: Internet | None = None,
    returns: NaclReturnTraffic | None = None,
) -> list[str]:
    out: list[str] = []
    for family, world in ((4, "0.0.0.0/0"), (6, "::/0")):
        for label, probe in _probes(acl, family, net):
            everything = world_allowed(acl.entries, False, family, probe)
            if all(_subtract((0, 65535), everything[p]) == [] for p in PROTOS):
                out.append(f"inbound all traffic from {label}")
                continue
            inbound = world_allowed(acl.entries, False, family, probe, returns)
            for proto in ("tcp", "udp"):
                extra = [s for span in inbound[proto] for s in _subtract(span, [(p, p) for p in lb_ports])]
                if extra:
                    out.append(f"inbound {proto} {_text(extra)} from {label}")
            for proto in ("icmp", "other"):
                if inbound[proto]:
                    out.append(f"inbound {proto} from {label}")
        outbound = world_allowed(acl.entries, True, family)
        full = [p for p in ("tcp", "udp") if _subtract((0, 65535), outbound[p]) == []]
        if full:
            out.append(f"outbound all {'/'.join(full)} ports to {world}")
    return out


def _returns_used(acl: AwsNetworkAcl, returns: NaclReturnTraffic) -> list[int]:
    return sorted(
        e.rule_number
        for e in acl.entries
        if not e.egress and e.action == "allow" and returns.is_return_rule(e.protocol, e.port_from, e.port_to)
    )


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
        returns = ctx.intent.cloud.nacl_return_traffic
        expected = (
            f"inbound from the internet only tcp/udp {sorted(lb_ports)} (and return traffic on ephemeral "
            f"ports); outbound not allow-all"
        )
        scopes, gaps = serving_scopes(self, ctx, NEEDS)
        yield from gaps
        net = internet(ctx)
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
                bad = offenses(rec_acl, lb_ports, net, returns)
                where = f" (subnets {listing(subnets)})"
                replies = _returns_used(rec_acl, returns)
                if replies:
                    where += f"; rule(s) {', '.join(map(str, replies))} admit return traffic only"
                if bad:
                    yield self.failed(
                        rec_acl.subject(), expected, clauses(bad) + where, acl, target=acl.target
                    )
                else:
                    found = f"{len(rec_acl.entries)} entries; internet limited as expected{where}"
                    yield self.passed(rec_acl.subject(), expected, found, acl, target=acl.target)
