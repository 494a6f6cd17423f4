"""Security groups and network ACLs as filter entries.

Security groups are stateful allow-lists bound to interfaces: a host may carry any group attached to
an interface of its subnet (from ENI facts), or, when the evidence has no ENIs for the VPC, any group of
the VPC (an over-approximation, stated in the hop). A group reference admits the addresses of the
subnets whose interfaces may carry that group. NACLs are stateless, ordered by rule number, first
match, implicit deny; return traffic is not required by the model (a one-way UDP packet already
reaches an IPMI port), which can only over-report for TCP. Rules that admit only the ICMP errors path MTU
discovery needs (ICMP type 3, ICMPv6 types 1-2) are left out: an error message opens no connection, while
the model's "other protocols" would read the rule as admitting every non-TCP/UDP protocol.
"""

from __future__ import annotations

from collections.abc import Mapping

from auditor.facts import AwsNetworkAcl, AwsSecurityGroup, NaclEntry, SgRule
from auditor.store.reader import StoredFact
from checks.lateral.addresses import IPSet
from checks.lateral.conns import ConnSet, protocol_name
from checks.lateral.filters import Box, Entry
from checks.tier2._aws_scope import path_mtu_discovery


def rule_conns(protocol: str, lo: int | None, hi: int | None) -> ConnSet:
    proto = protocol_name(protocol)
    if proto == "ALL":
        return ConnSet.everything()
    if proto in ("TCP", "UDP", "SCTP"):
        if lo is None or lo < 0 or (lo == 0 and hi in (None, 65535)):
            return ConnSet.ports(proto)
        return ConnSet.ports(proto, lo, hi if hi is not None else lo)
    return ConnSet(other=True)


def _sg_peers(rule: SgRule, group_addresses: Mapping[str, IPSet]) -> IPSet:
    peers = IPSet.parse(*rule.cidrs, *rule.ipv6_cidrs)
    for group in rule.groups:
        peers = peers.union(group_addresses.get(group, IPSet()))
    return peers


def sg_entries(
    sg: StoredFact[AwsSecurityGroup], *, ingress: bool, group_addresses: Mapping[str, IPSet]
) -> list[Entry]:
    rec = sg.record
    out: list[Entry] = []
    for rule in rec.ingress if ingress else rec.egress:
        if path_mtu_discovery(rule.protocol, rule.from_port):
            continue  # an ICMP error (path MTU discovery) opens no connection to move through
        peers = _sg_peers(rule, group_addresses)
        conns = rule_conns(rule.protocol, rule.from_port, rule.to_port)
        box = Box(peers, IPSet.everything(), conns) if ingress else Box(IPSet.everything(), peers, conns)
        what = ", ".join([*rule.cidrs, *rule.ipv6_cidrs, *rule.groups]) or "nothing"
        direction = "from" if ingress else "to"
        out.append(
            Entry(box, True, f"{rec.group_id} ({rec.name}) allows {conns.describe()} {direction} {what}", sg)
        )
    return out


def nacl_entries(nacl: StoredFact[AwsNetworkAcl], *, egress: bool) -> list[Entry]:
    rec = nacl.record
    chosen: list[NaclEntry] = sorted(
        (e for e in rec.entries if e.egress == egress), key=lambda e: e.rule_number
    )
    out: list[Entry] = []
    for e in chosen:
        if e.action == "allow" and path_mtu_discovery(e.protocol, e.icmp_type):
            continue  # as for security groups: only ICMP errors, no connection
        peers = IPSet.parse(*(c for c in (e.cidr, e.ipv6_cidr) if c))
        conns = rule_conns(e.protocol, e.port_from, e.port_to)
        box = Box(IPSet.everything(), peers, conns) if egress else Box(peers, IPSet.everything(), conns)
        direction = "egress" if egress else "ingress"
        what = e.cidr or e.ipv6_cidr or "?"
        rule = "*" if e.rule_number == 32767 else str(e.rule_number)
        out.append(
            Entry(
                box,
                e.action == "allow",
                f"{rec.network_acl_id} {direction} rule {rule} {e.action}s "
                f"{conns.describe()} {'to' if egress else 'from'} {what}",
                nacl,
            )
        )
    return out
