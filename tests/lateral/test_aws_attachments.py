"""The AWS part of the lateral model with the cloud intent: attachments declared to a tier, transit
gateway route tables whose routes are unknown, and "the internet" as the intent's public space."""

from __future__ import annotations

from typing import Any

import pytest

from auditor.config.models import Intent
from auditor.facts import FactRecord, record_from_json
from auditor.store.reader import StoredFact
from checks.lateral.assemble import Scope, answer, build

A = "111122223333/us-east-1"
TIERS = {
    "oob": {"cidrs": ["10.250.0.0/16"]},
    "frontend": {"cidrs": ["10.20.0.0/16"], "aws": {"vpc_tags": {"tier": "frontend"}}},
    "backend": {"cidrs": ["10.30.0.0/15"]},
}
BASE: list[dict[str, Any]] = [
    {"kind": "aws_vpc", "vpc_id": "vpc-fe", "cidrs": ["10.20.0.0/16"], "tags": {"tier": "frontend"}},
    {"kind": "aws_subnet", "subnet_id": "subnet-fe", "vpc_id": "vpc-fe", "cidr": "10.20.1.0/24"},
    {
        "kind": "aws_security_group",
        "group_id": "sg-fe",
        "name": "fe",
        "vpc_id": "vpc-fe",
        "egress": [{"protocol": "-1", "cidrs": ["0.0.0.0/0"]}],
    },
    {
        "kind": "aws_tgw_attachment",
        "attachment_id": "tgw-attach-fe",
        "transit_gateway_id": "tgw-1",
        "resource_type": "vpc",
        "resource_id": "vpc-fe",
        "state": "available",
        "route_table_id": "tgw-rtb-1",
    },
    {
        "kind": "aws_tgw_attachment",
        "attachment_id": "tgw-attach-vpn",
        "transit_gateway_id": "tgw-1",
        "resource_type": "vpn",
        "resource_id": "vpn-oob",
        "state": "available",
        "route_table_id": "tgw-rtb-1",
    },
]
DEFAULT_TO_TGW = {
    "kind": "aws_route_table",
    "route_table_id": "rtb-fe",
    "vpc_id": "vpc-fe",
    "main": True,
    "routes": [
        {"destination": "10.20.0.0/16", "target_type": "local", "target_id": "local"},
        {"destination": "0.0.0.0/0", "target_type": "transit-gateway", "target_id": "tgw-1"},
    ],
}
TGW_DEFAULT_TO_VPN = {
    "kind": "aws_tgw_route_table",
    "route_table_id": "tgw-rtb-1",
    "transit_gateway_id": "tgw-1",
    "routes": [{"destination": "0.0.0.0/0", "attachment_ids": ["tgw-attach-vpn"]}],
}


def _reach(cloud: dict[str, Any], *raw: dict[str, Any]) -> dict[str, bool]:
    intent = Intent.model_validate({"tiers": TIERS, "cloud": cloud})
    facts: list[StoredFact[FactRecord]] = []
    for i, item in enumerate(raw, start=1):
        data = {"account": "111122223333", "region": "us-east-1", **item}
        record = record_from_json(data.pop("kind"), data)
        facts.append(StoredFact(i, record.kind, A, 1, "0" * 64, record))

    def of(model: type[FactRecord]) -> list[StoredFact[FactRecord]]:
        return [f for f in facts if isinstance(f.record, model)]

    model = build(intent, of, Scope(aws=frozenset({A})))
    return {f"{r.source.id} -> {r.tier.value}": bool(r.path) for r in answer(model)}


def test_a_default_route_to_a_vpn_declared_oob_reaches_oob() -> None:
    declared = {"attachments": [{"id": "vpn-oob", "tier": "oob"}]}
    reach = _reach(declared, *BASE, DEFAULT_TO_TGW, TGW_DEFAULT_TO_VPN)
    assert reach[f"{A}/subnet-fe -> oob"] is True
    assert reach[f"{A}/subnet-fe -> backend"] is False
    # the same by the attachment's id
    by_attachment = {"attachments": [{"id": "tgw-attach-vpn", "tier": "oob"}]}
    assert _reach(by_attachment, *BASE, DEFAULT_TO_TGW, TGW_DEFAULT_TO_VPN)[f"{A}/subnet-fe -> oob"] is True


def test_undeclared_a_default_route_out_of_the_evidence_is_not_a_path() -> None:
    reach = _reach({}, *BASE, DEFAULT_TO_TGW, TGW_DEFAULT_TO_VPN)
    assert reach[f"{A}/subnet-fe -> oob"] is False
    # an attachment declared frontend (the egress VPC) is not a tier-1/3 landing either
    egress = {"attachments": [{"id": "vpn-oob", "tier": "frontend"}]}
    assert _reach(egress, *BASE, DEFAULT_TO_TGW, TGW_DEFAULT_TO_VPN)[f"{A}/subnet-fe -> oob"] is False


def test_a_route_to_a_vgw_whose_vpn_is_declared_reaches_the_tier() -> None:
    to_vgw = {
        **DEFAULT_TO_TGW,
        "routes": [
            {"destination": "10.20.0.0/16", "target_type": "local", "target_id": "local"},
            {"destination": "172.16.0.0/12", "target_type": "vpn-gateway", "target_id": "vgw-1"},
        ],
    }
    vpn = {
        "kind": "aws_gateway",
        "gateway_id": "vpn-bmc",
        "gateway_type": "vpn-connection",
        "via": "vgw-1",
        "destinations": ["172.16.0.0/12"],
    }
    declared = {"attachments": [{"id": "vpn-bmc", "tier": "backend"}]}
    assert _reach(declared, *BASE, to_vgw, vpn)[f"{A}/subnet-fe -> backend"] is True
    assert _reach({}, *BASE, to_vgw, vpn)[f"{A}/subnet-fe -> backend"] is False


def test_a_tgw_table_with_unknown_routes_is_not_walked() -> None:
    specific = {
        **DEFAULT_TO_TGW,
        "routes": [
            {"destination": "10.20.0.0/16", "target_type": "local", "target_id": "local"},
            {"destination": "10.250.0.0/16", "target_type": "transit-gateway", "target_id": "tgw-1"},
        ],
    }
    unknown = {**TGW_DEFAULT_TO_VPN, "routes": None}
    # unknown routes: the walk leaves the evidence by a route specific to OOB space (an assumed landing)
    assert _reach({}, *BASE, specific, unknown)[f"{A}/subnet-fe -> oob"] is True
    # known routes that blackhole it: no path
    blackhole = {**TGW_DEFAULT_TO_VPN, "routes": [{"destination": "10.250.0.0/16", "state": "blackhole"}]}
    assert _reach({}, *BASE, specific, blackhole)[f"{A}/subnet-fe -> oob"] is False


def _public_oob_subnet(source: str) -> list[dict[str, Any]]:
    return [
        {"kind": "aws_vpc", "vpc_id": "vpc-oob", "cidrs": ["10.250.0.0/16"]},
        {"kind": "aws_subnet", "subnet_id": "subnet-bmc", "vpc_id": "vpc-oob", "cidr": "10.250.10.0/24"},
        {
            "kind": "aws_route_table",
            "route_table_id": "rtb-oob",
            "vpc_id": "vpc-oob",
            "main": True,
            "routes": [{"destination": "0.0.0.0/0", "target_type": "internet-gateway", "target_id": "igw-1"}],
        },
        {
            "kind": "aws_security_group",
            "group_id": "sg-bmc",
            "name": "bmc",
            "vpc_id": "vpc-oob",
            "ingress": [{"protocol": "tcp", "from_port": 443, "to_port": 443, "cidrs": [source]}],
        },
    ]


def test_the_internet_is_the_intents_public_space() -> None:
    assert _reach({}, *_public_oob_subnet("0.0.0.0/0"))["internet -> oob"] is True
    assert _reach({}, *_public_oob_subnet("10.0.0.0/8"))["internet -> oob"] is False
    # documentation space is not the internet, unless the intent declares it an external stand-in
    assert _reach({}, *_public_oob_subnet("203.0.113.0/24"))["internet -> oob"] is False
    intent = Intent.model_validate({"tiers": TIERS, "addressing": {"external": ["203.0.113.0/24"]}})
    facts: list[StoredFact[FactRecord]] = []
    for i, item in enumerate(_public_oob_subnet("203.0.113.0/24"), start=1):
        data = {"account": "111122223333", "region": "us-east-1", **item}
        record = record_from_json(data.pop("kind"), data)
        facts.append(StoredFact(i, record.kind, A, 1, "0" * 64, record))
    model = build(intent, lambda m: [f for f in facts if isinstance(f.record, m)], Scope(aws=frozenset({A})))
    assert {f"{r.source.id} -> {r.tier.value}": bool(r.path) for r in answer(model)}[
        "internet -> oob"
    ] is True


EGRESS_VPC: list[dict[str, Any]] = [
    {"kind": "aws_vpc", "vpc_id": "vpc-eg", "cidrs": ["10.90.0.0/16"]},
    {"kind": "aws_subnet", "subnet_id": "subnet-eg", "vpc_id": "vpc-eg", "cidr": "10.90.1.0/24"},
    {
        "kind": "aws_tgw_attachment",
        "attachment_id": "tgw-attach-eg",
        "transit_gateway_id": "tgw-1",
        "resource_type": "vpc",
        "resource_id": "vpc-eg",
        "state": "available",
        "route_table_id": "tgw-rtb-eg",
    },
    # the VPN to the on-site OOB network ends on the same transit gateway (DescribeVpnConnections)
    {"kind": "aws_gateway", "gateway_id": "vpn-oob", "gateway_type": "vpn-connection", "via": "tgw-1"},
]


def test_a_vpn_on_the_transit_gateway_is_reached_only_by_the_tgw_routes_to_it() -> None:
    declared = {"attachments": [{"id": "vpn-oob", "tier": "oob"}]}
    to_egress = {
        **TGW_DEFAULT_TO_VPN,
        "routes": [{"destination": "0.0.0.0/0", "attachment_ids": ["tgw-attach-eg"]}],
    }
    # decoy: the frontend's default route goes to the TGW, whose table sends it to the egress VPC only
    reach = _reach(declared, *BASE, *EGRESS_VPC, DEFAULT_TO_TGW, to_egress)
    assert reach[f"{A}/subnet-fe -> oob"] is False
    # violation: the same table also holds the OOB network's route to the VPN attachment
    leak = {
        **to_egress,
        "routes": [
            *to_egress["routes"],
            {"destination": "10.250.0.0/16", "attachment_ids": ["tgw-attach-vpn"]},
        ],
    }
    assert _reach(declared, *BASE, *EGRESS_VPC, DEFAULT_TO_TGW, leak)[f"{A}/subnet-fe -> oob"] is True


def _oob_vpc(ingress_from: str) -> list[dict[str, Any]]:
    """An OOB VPC in the evidence, attached to the TGW (the attachment declared OOB), not tagged."""
    return [
        {"kind": "aws_vpc", "vpc_id": "vpc-oob", "cidrs": ["172.17.0.0/16"]},
        {"kind": "aws_subnet", "subnet_id": "subnet-oob", "vpc_id": "vpc-oob", "cidr": "172.17.1.0/24"},
        {
            "kind": "aws_security_group",
            "group_id": "sg-oob",
            "name": "ssh-proxy",
            "vpc_id": "vpc-oob",
            "ingress": [{"protocol": "tcp", "from_port": 22, "to_port": 22, "cidrs": [ingress_from]}],
        },
        {
            "kind": "aws_tgw_attachment",
            "attachment_id": "tgw-attach-oob",
            "transit_gateway_id": "tgw-1",
            "resource_type": "vpc",
            "resource_id": "vpc-oob",
            "state": "available",
            "route_table_id": "tgw-rtb-oob",
        },
    ]


def test_a_declared_vpc_attachment_in_the_evidence_is_walked_into_its_filters_decide() -> None:
    declared = {"attachments": [{"id": "tgw-attach-oob", "tier": "oob"}]}
    to_oob_vpc = {
        **TGW_DEFAULT_TO_VPN,
        "routes": [{"destination": "172.17.0.0/16", "attachment_ids": ["tgw-attach-oob"]}],
    }
    # decoy: the frontend's TGW table routes the OOB VPC, but its security group admits the jump host only
    reach = _reach(declared, *BASE, *_oob_vpc("10.250.200.10/32"), DEFAULT_TO_TGW, to_oob_vpc)
    assert reach[f"{A}/subnet-fe -> oob"] is False
    # violation: the group also admits the frontend; the OOB VPC is OOB by its declared attachment alone
    reach = _reach(declared, *BASE, *_oob_vpc("10.20.0.0/16"), DEFAULT_TO_TGW, to_oob_vpc)
    assert reach[f"{A}/subnet-fe -> oob"] is True
    # without the VPC in the evidence, the declared attachment is taken as reaching OOB (nothing to walk)
    reach = _reach(declared, *BASE, DEFAULT_TO_TGW, to_oob_vpc)
    assert reach[f"{A}/subnet-fe -> oob"] is True


def test_path_mtu_icmp_rules_open_no_path() -> None:
    """A public OOB subnet (internet gateway route) whose group admits only ICMP 'fragmentation needed'
    from anywhere: no path from the internet; a group admitting every ICMP type is one."""

    def oob_public(ingress: dict[str, Any]) -> list[dict[str, Any]]:
        return [
            {"kind": "aws_vpc", "vpc_id": "vpc-oob", "cidrs": ["10.250.0.0/16"], "tags": {"tier": "oob"}},
            {"kind": "aws_subnet", "subnet_id": "subnet-oob", "vpc_id": "vpc-oob", "cidr": "10.250.1.0/24"},
            {
                "kind": "aws_route_table",
                "route_table_id": "rtb-oob",
                "vpc_id": "vpc-oob",
                "main": True,
                "routes": [
                    {"destination": "10.250.0.0/16", "target_type": "local", "target_id": "local"},
                    {"destination": "0.0.0.0/0", "target_type": "internet-gateway", "target_id": "igw-1"},
                ],
            },
            {
                "kind": "aws_security_group",
                "group_id": "sg-oob",
                "name": "bmc",
                "vpc_id": "vpc-oob",
                "ingress": [ingress],
            },
        ]

    tiers = {**TIERS, "oob": {"cidrs": ["10.250.0.0/16"], "aws": {"vpc_tags": {"tier": "oob"}}}}
    pmtud = {"protocol": "icmp", "from_port": 3, "to_port": 4, "cidrs": ["0.0.0.0/0"]}
    every = {"protocol": "icmp", "from_port": -1, "to_port": -1, "cidrs": ["0.0.0.0/0"]}
    for rule, path in ((pmtud, False), (every, True)):
        intent = Intent.model_validate({"tiers": tiers})
        facts: list[StoredFact[FactRecord]] = []
        for i, item in enumerate(oob_public(rule), start=1):
            data = {"account": "111122223333", "region": "us-east-1", **item}
            record = record_from_json(data.pop("kind"), data)
            facts.append(StoredFact(i, record.kind, A, 1, "0" * 64, record))

        def of(model: type[FactRecord]) -> list[StoredFact[FactRecord]]:
            return [f for f in facts if isinstance(f.record, model)]  # noqa: B023

        results = {
            f"{r.source.id} -> {r.tier.value}": bool(r.path)
            for r in answer(build(intent, of, Scope(aws=frozenset({A}))))
        }
        assert results["internet -> oob"] is path, (rule, results)


def _facts_of(*raw: dict[str, Any]) -> list[StoredFact[FactRecord]]:
    facts: list[StoredFact[FactRecord]] = []
    for i, item in enumerate(raw, start=1):
        data = {"account": "111122223333", "region": "us-east-1", **item}
        record = record_from_json(data.pop("kind"), data)
        facts.append(StoredFact(i, record.kind, A, 1, "0" * 64, record))
    return facts


def _build(facts: list[StoredFact[FactRecord]]) -> None:
    intent = Intent.model_validate({"tiers": TIERS})

    def of(model: type[FactRecord]) -> list[StoredFact[FactRecord]]:
        return [f for f in facts if isinstance(f.record, model)]

    answer(build(intent, of, Scope(aws=frozenset({A}))))


def test_one_subnet_id_in_two_accounts_is_named_not_joined() -> None:
    """A copied export (the same subnet id under two accounts) cannot be joined by id: the model says which
    id and where, instead of failing on a lookup (it raised KeyError on a fleet built by copying)."""
    copy = {**BASE[1], "account": "444455556666"}
    with pytest.raises(
        ValueError, match=r"subnet id subnet-fe appears as .*111122223333.* and as .*444455556666"
    ):
        _build(_facts_of(*BASE, copy, DEFAULT_TO_TGW))


def test_the_same_subnet_reported_twice_is_one_subnet() -> None:
    """The decoy: one account's subnet in two captures (live and offline, say) is the same subnet."""
    _build(_facts_of(*BASE, BASE[1], DEFAULT_TO_TGW))
