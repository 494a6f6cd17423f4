"""One VRF spelt per platform is one VRF for every check: tier 1, tier 3 and the route-target graph."""

from __future__ import annotations

from typing import Any

from auditor.config.models import Intent
from auditor.enums import FactKind, Status, TargetStatus, Tier
from auditor.facts import Coverage, FactRecord, MgmtService, Vrf
from auditor.store.reader import StoredFact
from checks.base import CheckContext, FactView, TargetView
from checks.route_targets import RouteTargetGraph, describe
from checks.tier1.mgmt_plane_in_oob_vrf import MgmtPlaneInOobVrf
from checks.tier3._leaks import leak_vrfs
from checks.vrf_names import VrfNames

TIERS = {
    "oob": {"cidrs": ["10.250.0.0/16"], "vrfs": ["MGMT"], "jump_hosts": ["10.250.200.10"]},
    "frontend": {"cidrs": ["10.20.0.0/16"], "vrfs": ["FRONTEND"]},
    "backend": {"cidrs": ["10.30.0.0/15"], "vrfs": ["default", "RDMA-A"]},
}


def _ctx(
    intent: dict[str, Any], devices: dict[str, tuple[str, Tier]], records: list[FactRecord]
) -> CheckContext:
    targets = tuple(
        TargetView(name, "device", platform, tier, "leaf", TargetStatus.OK, None)
        for name, (platform, tier) in devices.items()
    )
    facts: list[FactRecord] = [
        Coverage(target=name, covers=kind)
        for name in devices
        for kind in (FactKind.MGMT_SERVICE, FactKind.ACL, FactKind.VRF)
    ]
    facts += records
    stored = [
        StoredFact(i, f.kind, str(getattr(f, "device", None) or getattr(f, "target", "")), i, f"{i:064x}", f)
        for i, f in enumerate(facts, start=1)
    ]
    return CheckContext(
        intent=Intent.model_validate({"tiers": TIERS, **intent}), facts=FactView(stored), targets=targets
    )


def test_tier1_reads_an_aliased_management_vrf() -> None:
    devices = {"sonic-leaf1": ("sonic", Tier.BACKEND)}
    # not SONiC's built-in `mgmt` (a management VRF whatever the intent says): a site's own spelling
    ssh = MgmtService(device="sonic-leaf1", service="ssh", vrf="oob-mgmt")
    without = [f.status for f in MgmtPlaneInOobVrf().evaluate(_ctx({}, devices, [ssh]))]
    aliased = {"vrf_aliases": [{"name": "oob-mgmt", "vrf": "MGMT", "platforms": ["sonic"]}]}
    with_alias = [f.status for f in MgmtPlaneInOobVrf().evaluate(_ctx(aliased, devices, [ssh]))]
    assert Status.FAIL in without
    assert with_alias and Status.FAIL not in with_alias


def test_sonic_prefix_is_builtin_on_sonic_only() -> None:
    ctx = _ctx({}, {"s1": ("sonic", Tier.BACKEND), "e1": ("eos", Tier.BACKEND)}, [])
    names = VrfNames.of(ctx)
    assert names.canonical("s1", "Vrf-RDMA-A") == "RDMA-A"
    assert names.canonical("e1", "Vrf-RDMA-A") == "Vrf-RDMA-A"
    assert names.tier("s1", "Vrf-RDMA-A", Tier.BACKEND) == Tier.BACKEND
    # the global table is its device's own network, whether or not that tier lists `default`
    assert names.tier("e1", "default", Tier.FRONTEND) == Tier.FRONTEND
    assert names.tier("e1", "default", Tier.OOB) == Tier.OOB
    assert names.tier("e1", "default", Tier.BACKEND) == Tier.BACKEND
    assert names.tier("e1", "default", None) is None


def test_leak_texts_are_bounded() -> None:
    devices = {f"fe-leaf{i}": ("nxos", Tier.FRONTEND) for i in range(40)} | {
        "be-leaf1": ("eos", Tier.BACKEND)
    }
    records: list[FactRecord] = [
        Vrf(device=f"fe-leaf{i}", name="FRONTEND", route_targets_import=["65000:3001"]) for i in range(40)
    ]
    records.append(Vrf(device="be-leaf1", name="RDMA-A", route_targets_export=["evpn 65000:3001"]))
    ctx = _ctx({}, devices, records)
    graph = RouteTargetGraph.of(ctx)
    backend = next(v for v in ctx.facts.of(Vrf) if v.target == "be-leaf1")
    node = graph.node(backend)
    texts = describe(node, graph.outbound(node))
    assert len(texts) == 1
    assert "40 VRF(s)" in texts[0] and "and 37 more" in texts[0]
    assert len(texts[0]) < 300


def test_stored_fact_shape() -> None:
    """The helper above builds StoredFacts as the store does: one per record, target from the device."""
    ctx = _ctx({}, {"a": ("eos", Tier.BACKEND)}, [Vrf(device="a", name="RDMA-A")])
    vrfs: list[StoredFact[Vrf]] = ctx.facts.of(Vrf)
    assert [v.target for v in vrfs] == ["a"]


def test_leak_statements_name_their_vrfs() -> None:
    assert leak_vrfs("router general / vrf RDMA-B / leak routes source-vrf FRONTEND subscribe-policy A") == {
        "RDMA-B",
        "FRONTEND",
    }
    assert leak_vrfs("vrf context RDMA-A / address-family ipv4 unicast / import vrf default map RM") == {
        "RDMA-A",
        "default",
    }
    assert leak_vrfs("ip route vrf A 10.0.0.0/8 10.1.1.1 nexthop-vrf B") == {"A", "B"}
    assert leak_vrfs("ip route vrf A 10.0.0.0/8 egress-vrf A 10.1.1.1") == {"A"}  # back into itself


def test_both_declared_spellings_fold_without_aliases_or_sonic() -> None:
    tiers = dict(TIERS, backend={"cidrs": ["10.30.0.0/15"], "vrfs": ["RDMA-A", "Vrf-RDMA-A"]})
    ctx = CheckContext(
        intent=Intent.model_validate({"tiers": tiers}),
        facts=FactView([]),
        targets=(TargetView("e1", "device", "eos", Tier.BACKEND, "leaf", TargetStatus.OK, None),),
    )
    assert VrfNames.of(ctx).canonical("e1", "Vrf-RDMA-A") == "RDMA-A"
