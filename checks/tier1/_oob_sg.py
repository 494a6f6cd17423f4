"""Security groups in front of OOB space (T1-OOB-ACCESS-JUMP-HOSTS-ONLY on AWS): which ENIs guard OOB
addresses, and which ingress rules open SSH, IPMI or Redfish to anything but the jump hosts or a declared
OOB service's sources (referenced groups resolved to their members' addresses). A managed prefix list's
entries are not in the evidence: a rule from one is unresolved (sg_unresolved), not a violation."""

from __future__ import annotations

from auditor.facts import AwsNetworkInterface, SgRule
from checks.tier1._acl import PROTECTED, Service
from checks.tier1._common import Oob


def guards_oob(eni: AwsNetworkInterface, oob: Oob) -> bool:
    """An ENI with an OOB address that is not a jump host's own (the jump hosts are the way in)."""
    ips = eni.private_ips + eni.ipv6_addresses
    return any(oob.in_oob(ip) for ip in ips) and not all(oob.is_jump_host(ip) for ip in ips)


def _sg_opens(rule: SgRule, service: Service) -> bool:
    proto = rule.protocol.lower()
    if proto in ("-1", "all"):
        return True
    if proto not in (service.protocol, {"tcp": "6", "udp": "17"}[service.protocol]):
        return False
    lo = rule.from_port if rule.from_port is not None else 0
    hi = rule.to_port if rule.to_port is not None else 65535
    return lo <= service.port <= hi or lo == -1


def sg_violations(rule: SgRule, oob: Oob, members: dict[str, list[str]], guarded: list[str]) -> list[str]:
    out: list[str] = []
    for service in PROTECTED:
        if not _sg_opens(rule, service):
            continue

        def allowed(source: str, service: Service = service) -> bool:
            return oob.is_jump_host(source) or all(
                oob.services.admitting(source, ip, service.protocol, service.port) is not None
                for ip in guarded
            )

        for cidr in [*rule.cidrs, *rule.ipv6_cidrs]:
            if not allowed(cidr):
                out.append(f"{service} from {cidr}")
        for group in rule.groups:
            strangers = [ip for ip in members.get(group, []) if not allowed(ip)]
            if strangers:
                out.append(f"{service} from security group {group} ({', '.join(sorted(strangers)[:5])})")
    return out


def sg_unresolved(rule: SgRule) -> list[str]:
    """The prefix lists a rule admits SSH, IPMI or Redfish from: their entries are not in the evidence, so
    whether only jump hosts are in them is unknown (NOT_ASSESSED, neither PASS nor FAIL)."""
    return [
        f"{service} from prefix list {pl}"
        for service in PROTECTED
        if _sg_opens(rule, service)
        for pl in rule.prefix_lists
    ]
