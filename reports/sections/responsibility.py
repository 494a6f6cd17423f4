"""The shared-responsibility matrix of the config (`intent.shared_responsibility`: control area -> who
operates it) beside the controls it affects, and what the run found on them.

An area is tied to checks by the words of its name: the tier it names (oob/management, frontend,
backend/fabric/rdma), or the evidence it names (cloud/aws: AWS facts; kubernetes/k8s/policy: Kubernetes
facts; physical/network/switch/device: device facts; flow: flow logs). An area no word ties to any check
is listed as such, never silently dropped."""

from __future__ import annotations

from collections.abc import Callable

from auditor.enums import Tier
from reports.model import CheckInfo, ReportData
from reports.sections.common import by_check, outcome
from reports.sections.records import ResponsibilityRow

DEVICE_KINDS = {
    "interface",
    "vrf",
    "vlan",
    "route",
    "bgp_neighbor",
    "acl",
    "acl_binding",
    "mgmt_service",
    "qos_interface",
    "lldp_neighbor",
    "vxlan_vni",
    "ib_partition",
}
Match = Callable[[CheckInfo], bool]

RULES: list[tuple[tuple[str, ...], Match]] = [
    (("oob", "management", "bmc"), lambda c: c.tier is Tier.OOB),
    (("frontend",), lambda c: c.tier is Tier.FRONTEND),
    (("backend", "fabric", "rdma", "gpu"), lambda c: c.tier is Tier.BACKEND),
    (("cloud", "aws", "vpc"), lambda c: any(n.startswith("aws_") for n in c.needs)),
    (("kubernetes", "k8s", "policy", "cni"), lambda c: any(n.startswith("k8s_") for n in c.needs)),
    (("flow", "log"), lambda c: any(n.startswith(("flow_", "aws_flow")) for n in c.needs)),
    (("physical", "switch", "device", "network"), lambda c: bool(set(c.needs) & DEVICE_KINDS)),
]


def checks_of(area: str, checks: list[CheckInfo]) -> list[str]:
    """The checks an area's name ties it to (the first rule whose word it contains)."""
    name = area.lower()
    for keys, match in RULES:
        if any(k in name for k in keys):
            return [c.id for c in checks if match(c)]
    return []


def responsibility(data: ReportData) -> list[ResponsibilityRow]:
    raw = data.intent.get("shared_responsibility") or {}
    if not isinstance(raw, dict):
        return []
    groups = by_check(data.findings)
    rows = []
    for area, owner in sorted(raw.items()):
        ids = checks_of(str(area), data.checks)
        status, result = outcome(groups, ids) if ids else (None, "no check of this run covers this area")
        rows.append(ResponsibilityRow(str(area), str(owner), ids, status, result))
    return rows
