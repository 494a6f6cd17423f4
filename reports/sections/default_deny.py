"""The default-deny declarations, summarised: security groups, network ACLs, device ACLs and Kubernetes
network policies, per scope, with how many deny by default and how many open to anyone."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from typing import TypeVar

from auditor.enums import FactKind
from auditor.facts import Acl, AwsNetworkAcl, AwsSecurityGroup, K8sNamespace, K8sNetworkPolicy
from reports.model import ReportData
from reports.sections.common import Facts, by_check, outcome, target_tiers, words
from reports.sections.records import DefaultDenyRow

R = TypeVar("R")

ANY = {"0.0.0.0/0", "::/0"}
SG_CHECKS = ["T2-SG-DEFAULT-DENY", "T2-DEFAULT-SG-EMPTY"]
NACL_CHECKS = ["T2-NACL-DEFAULT-DENY"]
ACL_CHECKS = ["T1-OOB-ACCESS-JUMP-HOSTS-ONLY", "T1-MGMT-PLANE-IN-OOB-VRF"]
K8S_CHECKS = ["T2-NS-DEFAULT-DENY", "T2-NO-CROSS-TENANT", "T2-EGRESS-PROXY-ONLY"]


def _account_region(_target: str, rules: AwsSecurityGroup | AwsNetworkAcl) -> str:
    return f"{rules.account}/{rules.region}"


def _sg_open(sg: AwsSecurityGroup) -> bool:
    return any(set(r.cidrs) & ANY or set(r.ipv6_cidrs) & ANY for r in sg.ingress)


def _nacl_open(acl: AwsNetworkAcl) -> bool:
    """An inbound allow from anywhere on all traffic, before any deny of it."""
    for e in sorted(acl.entries, key=lambda e: e.rule_number):
        if e.egress or (e.cidr not in ANY and e.ipv6_cidr not in ANY):
            continue
        return e.action == "allow" and e.protocol in ("-1", "all")
    return False


def _acl_open(acl: Acl) -> bool:
    for e in acl.entries:
        if (
            e.action == "permit"
            and (e.protocol in (None, "ip", "ipv4", "any"))
            and e.source == "any"
            and e.destination == "any"
        ):
            return True
    return False


def _deny_all(p: K8sNetworkPolicy) -> set[str]:
    """The directions a policy denies by default for every pod of its namespace (empty selector, no rules)."""
    if p.namespace is None or not p.pod_selector.is_empty():
        return set()
    out = set()
    if "Ingress" in p.policy_types and not p.ingress:
        out.add("Ingress")
    if "Egress" in p.policy_types and not p.egress:
        out.add("Egress")
    return out


def _open_flags(
    facts: Facts,
    kind: FactKind,
    model: type[R],
    scope_of: Callable[[str, R], str],
    is_open: Callable[[R], bool],
) -> dict[str, list[bool]]:
    """Per scope, whether each rule set of one kind lets anything in from anywhere."""
    flags: dict[str, list[bool]] = defaultdict(list)
    for f in facts.get(kind, ()):
        if isinstance(f.record, model):
            flags[scope_of(f.target, f.record)].append(is_open(f.record))
    return flags


def _rows(
    family: str, items: dict[str, list[bool]], checks: list[str], data: ReportData, detail: str
) -> list[DefaultDenyRow]:
    status, result = outcome(by_check(data.findings), checks)
    return [
        DefaultDenyRow(
            family, scope, len(flags), flags.count(False), flags.count(True), detail, status, result, checks
        )
        for scope, flags in sorted(items.items())
    ]


def default_deny(data: ReportData, facts: Facts) -> list[DefaultDenyRow]:
    rows: list[DefaultDenyRow] = []
    sgs = _open_flags(facts, FactKind.AWS_SECURITY_GROUP, AwsSecurityGroup, _account_region, _sg_open)
    rows += _rows("security groups", sgs, SG_CHECKS, data, "open: an inbound rule from 0.0.0.0/0 or ::/0")
    nacls = _open_flags(facts, FactKind.AWS_NETWORK_ACL, AwsNetworkAcl, _account_region, _nacl_open)
    rows += _rows("network ACLs", nacls, NACL_CHECKS, data, "open: all traffic allowed in from anywhere")
    tiers = target_tiers(data)
    acls = _open_flags(
        facts, FactKind.ACL, Acl, lambda target, _acl: f"{tiers.get(target, 'untiered')} devices", _acl_open
    )
    rows += _rows("device ACLs", acls, ACL_CHECKS, data, "open: permit ip any any; otherwise implicit deny")
    namespaces: dict[str, set[str]] = defaultdict(set)
    for f in facts.get(FactKind.K8S_NAMESPACE, ()):
        if isinstance(f.record, K8sNamespace):
            namespaces[f.record.cluster].add(f.record.name)
    denies: dict[tuple[str, str], set[str]] = defaultdict(set)
    flavors: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for f in facts.get(FactKind.K8S_NETWORK_POLICY, ()):
        p = f.record
        if not isinstance(p, K8sNetworkPolicy):
            continue
        flavors[p.cluster][p.flavor.value] += 1
        if p.namespace is not None:
            denies[(p.cluster, p.namespace)] |= _deny_all(p)
    status, result = outcome(by_check(data.findings), K8S_CHECKS)
    for cluster in sorted(set(namespaces) | set(flavors)):
        names = namespaces.get(cluster, set())
        both = sum(1 for n in names if denies.get((cluster, n)) == {"Ingress", "Egress"})
        some = sum(
            1 for n in names if denies.get((cluster, n)) and denies[(cluster, n)] != {"Ingress", "Egress"}
        )
        policies = words(f"{n:,} {k}" for k, n in sorted(flavors[cluster].items()))
        rows.append(
            DefaultDenyRow(
                "Kubernetes policies",
                cluster,
                len(names),
                both,
                len(names) - both,
                f"namespaces; {both:,} deny ingress and egress by default, {some:,} one direction only; "
                f"policies: {policies}",
                status,
                result,
                K8S_CHECKS,
            )
        )
    return rows
