"""Finding texts that list items stay bounded on a large fleet: a count and the first few, while the
finding's fact references keep every item (checks/text.py, shared by every check that lists)."""

from __future__ import annotations

from auditor.config.models import Intent
from auditor.enums import FactKind, Status, TargetStatus, Tier
from auditor.facts import AwsFlowLogConfig, AwsVpc, Coverage, FactRecord, Interface, Vrf
from auditor.store.reader import StoredFact
from checks.base import CheckContext, FactView, TargetView
from checks.cross.flowlogs_enabled import FlowLogsEnabled
from checks.text import bounded, clauses, listing
from checks.tier3.no_route_leak import BackendNoRouteLeak
from checks.tier3.non_blocking import BackendNonBlocking

TIERS = {
    "oob": {"cidrs": ["10.250.0.0/16"], "vrfs": ["MGMT"], "jump_hosts": ["10.250.200.10"]},
    "frontend": {"cidrs": ["10.20.0.0/16"], "vrfs": ["FRONTEND"]},
    "backend": {
        "cidrs": ["10.30.0.0/15"],
        "vrfs": ["default", "RDMA-A", "RDMA-B"],
        "device_roles": {"leaf": ["be-leaf*"], "spine": ["be-spine*"]},
        "max_oversubscription": 1.0,
    },
}


def _ctx(devices: dict[str, Tier | None], records: list[FactRecord], kinds: list[FactKind]) -> CheckContext:
    targets = tuple(
        TargetView(
            name, "device" if tier else "aws", "eos", tier, "leaf" if tier else None, TargetStatus.OK, None
        )
        for name, tier in devices.items()
    )
    facts: list[FactRecord] = [Coverage(target=n, covers=k) for n in devices for k in kinds] + records
    stored = [
        StoredFact(
            i,
            f.kind,
            str(getattr(f, "device", None) or getattr(f, "target", "") or "acct"),
            i,
            f"{i:064x}",
            f,
        )
        for i, f in enumerate(facts, start=1)
    ]
    return CheckContext(
        intent=Intent.model_validate({"tiers": TIERS}), facts=FactView(stored), targets=targets
    )


def test_helpers_count_and_name_the_first_few() -> None:
    items = [f"item{i:04d}" for i in range(5000)]
    assert listing(items[:10]) == ", ".join(items[:10])  # short lists read as before
    assert listing(items) == ", ".join(items[:10]) + " and 4990 more"
    assert listing([], empty="none") == "none"
    assert clauses(items) == "; ".join(items[:10]) + "; and 4990 more"
    assert clauses(items[:3]) == "; ".join(items[:3])
    assert bounded(items + items, "port(s)") == "5000 port(s): item0000, item0001, item0002 and 4997 more"


def test_route_leak_to_thousands_of_vrfs_is_a_count() -> None:
    """The 34 KB finding of issue 14: a backend VRF importing the route-target thousands of VRFs export."""
    n = 3000
    devices: dict[str, Tier | None] = {f"fe-leaf{i}": Tier.FRONTEND for i in range(n)}
    devices["be-leaf0"] = Tier.BACKEND
    records: list[FactRecord] = [
        Vrf(device=f"fe-leaf{i}", name="FRONTEND", route_targets_export=["1:1"]) for i in range(n)
    ]
    records.append(Vrf(device="be-leaf0", name="RDMA-A", route_targets_import=["1:1"]))
    ctx = _ctx(devices, records, [FactKind.VRF, FactKind.BGP_NEIGHBOR])
    failed = [f for f in BackendNoRouteLeak().evaluate(ctx) if f.status == Status.FAIL]
    assert len(failed) == 1, failed
    leak = failed[0]
    assert len(leak.found) < 1000, len(leak.found)
    assert f"{n} VRF(s)" in leak.found and f"and {n - 3} more" in leak.found, leak.found
    assert len(leak.facts) > 1  # the VRFs on the other end stay in the fact references


def test_a_spine_with_hundreds_of_ports_is_listed_in_part() -> None:
    ports: list[FactRecord] = [
        Interface(device="be-leaf1", name=f"Ethernet{p}", type="ethernet", speed_mbps=400000, description=d)
        for p, d in [(p, f"GPU_node{p}") for p in range(1, 301)]
        + [(p, f"P2P_be-spine{p}") for p in range(301, 601)]
    ]
    ctx = _ctx(
        {"be-leaf1": Tier.BACKEND}, ports, [FactKind.INTERFACE, FactKind.BGP_NEIGHBOR, FactKind.LLDP_NEIGHBOR]
    )
    findings = list(BackendNonBlocking().evaluate(ctx))
    assert len(findings) == 1, findings
    found = findings[0].found
    assert "(Ethernet1, Ethernet10, " in found and " and 590 more)" in found and len(found) < 500, found
    assert len(findings[0].facts) == 600  # every port stays in the fact references


def test_flow_log_ids_of_one_vpc_are_counted() -> None:
    base = {"account": "111122223333", "region": "us-east-1"}
    records: list[FactRecord] = [AwsVpc(**base, vpc_id="vpc-1", cidrs=["10.20.0.0/16"])]
    records += [
        AwsFlowLogConfig(
            **base,
            flow_log_id=f"fl-{i:05d}",
            resource_id="vpc-1",
            traffic_type="ALL",
            destination_type="s3",
            destination="arn:aws:s3:::b",
            status="ACTIVE",
        )
        for i in range(400)
    ]
    ctx = _ctx({"acct": None}, records, [FactKind.AWS_VPC, FactKind.AWS_FLOW_LOG_CONFIG])
    findings = [f for f in FlowLogsEnabled().evaluate(ctx) if f.subject.endswith("vpc-1")]
    assert len(findings) == 1 and "and 390 more" in findings[0].found, findings
