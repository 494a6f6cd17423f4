"""Tests of the `aws.describe` normalizer against real describe_* JSON (Batfish, pybatfish, botocore).

One parameter per fixture folder (its describe files written one after another into one capture, as a
collector writing several responses would) or per single-response file. Facts are compared field by
field with the simplest reading of the raw JSON (the `_expect_*` helpers share no code with the
normalizer), then a few tests pin hand-checked values on named objects.
"""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from auditor.capture import RawCapture
from auditor.enums import FactKind
from auditor.facts.aws import (
    AwsFlowLogConfig,
    AwsGateway,
    AwsNetworkAcl,
    AwsRoute,
    AwsRouteTable,
    AwsSecurityGroup,
    AwsSubnet,
    AwsVpc,
    NaclEntry,
    SgRule,
)
from auditor.facts.base import FactRecord
from auditor.normalize import NormalizeResult
from collectors.normalizers.aws import normalize_describe

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "aws"
HANDMADE = FIXTURES / "handmade" / "cli-describe-stream.json"
BOTOCORE = sorted((FIXTURES / "botocore-ec2-examples").glob("*.json"))
CLI_FILES = FIXTURES / "cli"  # one CLI command per file, some not JSON (tests/offline/test_aws_cli_files.py)
FOLDERS = sorted(
    {p.parent for p in FIXTURES.rglob("*.json") if CLI_FILES not in p.parents}
    - {FIXTURES / "handmade", BOTOCORE[0].parent}
)
SINGLES = sorted(p for p in FIXTURES.rglob("*Test*.json"))
FOLDERS = [f for f in FOLDERS if not any(p.parent == f for p in SINGLES)]
KEY_KINDS = {
    "Vpcs": FactKind.AWS_VPC,
    "Subnets": FactKind.AWS_SUBNET,
    "RouteTables": FactKind.AWS_ROUTE_TABLE,
    "InternetGateways": FactKind.AWS_GATEWAY,
    "NatGateways": FactKind.AWS_GATEWAY,
    "EgressOnlyInternetGateways": FactKind.AWS_GATEWAY,
    "TransitGateways": FactKind.AWS_GATEWAY,
    "VpcPeeringConnections": FactKind.AWS_GATEWAY,
    "VpnGateways": FactKind.AWS_GATEWAY,
    "SecurityGroups": FactKind.AWS_SECURITY_GROUP,
    "NetworkAcls": FactKind.AWS_NETWORK_ACL,
    "FlowLogs": FactKind.AWS_FLOW_LOG_CONFIG,
}


def _normalize(content: bytes | str, origin: str = "describe.json", **meta: str) -> NormalizeResult:
    data = content.encode() if isinstance(content, str) else content
    capture = RawCapture(
        target="aws",
        format="aws.describe",
        source="file",
        origin=origin,
        collected_at=datetime(2025, 1, 1, tzinfo=UTC),
        content=data,
        meta=meta,
    )
    return normalize_describe(capture)


def _folder_meta(folder: Path) -> dict[str, str]:
    """accounts/<id>/<region>/ folders name their account and region; region folders their region."""
    meta: dict[str, str] = {}
    if re.fullmatch(r"[a-z]{2}-[a-z]+-\d", folder.name):
        meta["region"] = folder.name
    if folder.parent.parent.name == "accounts":
        meta["account"] = folder.parent.name
    return meta


def _of(result: NormalizeResult, cls: type[FactRecord]) -> list[Any]:
    return [f for f in result.facts if isinstance(f, cls)]


# --- the independent oracle -----------------------------------------------------------------------

GONE = ("disassociated", "failed")
TARGET_KEYS = (
    "GatewayId",
    "NatGatewayId",
    "TransitGatewayId",
    "VpcPeeringConnectionId",
    "EgressOnlyInternetGatewayId",
    "InstanceId",
    "NetworkInterfaceId",
    "CarrierGatewayId",
    "LocalGatewayId",
    "CoreNetworkArn",
)


def _tags(item: dict[str, Any]) -> dict[str, str]:
    return {t["Key"]: t["Value"] for t in item.get("Tags") or []}


def _check_against_raw(
    result: NormalizeResult, responses: list[dict[str, Any]], meta: dict[str, str]
) -> None:
    raw: dict[str, list[dict[str, Any]]] = {}
    for response in responses:
        for key, items in response.items():
            raw.setdefault(key, []).extend(items if isinstance(items, list) else [])
    owners = {v["VpcId"]: v.get("OwnerId") for v in raw.get("Vpcs", [])}
    region = meta.get("region", "unknown")

    def account(item: dict[str, Any], vpc: str | None = None) -> str:
        return meta.get("account") or item.get("OwnerId") or owners.get(vpc or "") or "unknown"

    assert result.covers == {KEY_KINDS[k] for k in raw if k in KEY_KINDS}
    assert result.problems == []

    # Facts of one kind come in input order (ids may repeat: SecurityGroupTest.json has one thrice).
    for fact, item in zip(_of(result, AwsVpc), raw.get("Vpcs", []), strict=True):
        assert fact.vpc_id == item["VpcId"]
        cidrs = {
            a["CidrBlock"]
            for a in item.get("CidrBlockAssociationSet", [])
            if a["CidrBlockState"]["State"] not in GONE
        }
        assert set(fact.cidrs) == cidrs | {item["CidrBlock"]}
        assert fact.cidrs[0] == item["CidrBlock"]
        v6 = item.get("Ipv6CidrBlockAssociationSet", [])
        assert fact.ipv6_cidrs == [
            a["Ipv6CidrBlock"] for a in v6 if a["Ipv6CidrBlockState"]["State"] not in GONE
        ]
        assert (fact.is_default, fact.tags) == (item.get("IsDefault", False), _tags(item))
        assert (fact.account, fact.region) == (account(item), region)

    for fact, item in zip(_of(result, AwsSubnet), raw.get("Subnets", []), strict=True):
        assert fact.subnet_id == item["SubnetId"]
        assert (fact.vpc_id, fact.cidr, fact.availability_zone) == (
            item["VpcId"],
            item.get("CidrBlock"),
            item.get("AvailabilityZone"),
        )
        assert fact.map_public_ip_on_launch == item.get("MapPublicIpOnLaunch", False)
        v6 = [a["Ipv6CidrBlock"] for a in item.get("Ipv6CidrBlockAssociationSet", [])]
        assert (fact.ipv6_cidrs, fact.tags, fact.account) == (v6, _tags(item), account(item, item["VpcId"]))

    for fact, item in zip(_of(result, AwsRouteTable), raw.get("RouteTables", []), strict=True):
        assert fact.route_table_id == item["RouteTableId"]
        assocs = [
            a for a in item.get("Associations", []) if a.get("AssociationState", {}).get("State") not in GONE
        ]
        assert fact.main == any(a.get("Main") for a in assocs)
        assert fact.subnet_ids == [a["SubnetId"] for a in assocs if "SubnetId" in a]
        assert fact.gateway_ids == [a["GatewayId"] for a in assocs if "GatewayId" in a]
        assert len(fact.routes) == len(item["Routes"])
        for route, want in zip(fact.routes, item["Routes"], strict=True):
            dest = want.get("DestinationCidrBlock") or want.get("DestinationIpv6CidrBlock")
            assert route.destination == (dest or want.get("DestinationPrefixListId"))
            assert route.target_id == next(want[k] for k in TARGET_KEYS if k in want)
            assert (route.state, route.origin) == (want.get("State"), want.get("Origin"))
        assert (fact.vpc_id, fact.tags, fact.account) == (
            item["VpcId"],
            _tags(item),
            account(item, item["VpcId"]),
        )

    gateways = {g.gateway_id: g for g in _of(result, AwsGateway)}
    expected_gateways: dict[str, tuple[str, list[str]]] = {}
    for item in raw.get("InternetGateways", []):
        expected_gateways[item["InternetGatewayId"]] = ("internet", [a["VpcId"] for a in item["Attachments"]])
    for item in raw.get("NatGateways", []):
        expected_gateways[item["NatGatewayId"]] = ("nat", [item["VpcId"]])
    for item in raw.get("TransitGateways", []):
        expected_gateways[item["TransitGatewayId"]] = ("transit", [])
    for item in raw.get("VpnGateways", []):
        expected_gateways[item["VpnGatewayId"]] = ("vpn", [a["VpcId"] for a in item["VpcAttachments"]])
    for item in raw.get("VpcPeeringConnections", []):
        pair = [item["RequesterVpcInfo"]["VpcId"], item["AccepterVpcInfo"]["VpcId"]]
        expected_gateways[item["VpcPeeringConnectionId"]] = ("vpc-peering", pair)
    assert {k: (g.gateway_type, g.vpc_ids) for k, g in gateways.items()} == expected_gateways
    for item in raw.get("NatGateways", []):
        fact = gateways[item["NatGatewayId"]]
        assert (fact.subnet_id, fact.state, fact.public) == (item["SubnetId"], item["State"], True)

    for fact, item in zip(_of(result, AwsSecurityGroup), raw.get("SecurityGroups", []), strict=True):
        assert fact.group_id == item["GroupId"]
        assert (fact.name, fact.vpc_id, fact.description) == (
            item["GroupName"],
            item.get("VpcId"),
            item["Description"],
        )
        for rules, perms in (
            (fact.ingress, item["IpPermissions"]),
            (fact.egress, item.get("IpPermissionsEgress", [])),
        ):
            assert len(rules) == len(perms)
            for rule, perm in zip(rules, perms, strict=True):
                assert (rule.protocol, rule.from_port, rule.to_port) == (
                    perm["IpProtocol"],
                    perm.get("FromPort"),
                    perm.get("ToPort"),
                )
                assert rule.cidrs == [r["CidrIp"] for r in perm.get("IpRanges", [])]
                assert rule.ipv6_cidrs == [r["CidrIpv6"] for r in perm.get("Ipv6Ranges", [])]
                assert rule.prefix_lists == [r["PrefixListId"] for r in perm.get("PrefixListIds", [])]
                assert rule.groups == [r["GroupId"] for r in perm.get("UserIdGroupPairs", [])]

    for fact, item in zip(_of(result, AwsNetworkAcl), raw.get("NetworkAcls", []), strict=True):
        assert fact.network_acl_id == item["NetworkAclId"]
        assert (fact.vpc_id, fact.is_default) == (item["VpcId"], item["IsDefault"])
        assert fact.subnet_ids == [a["SubnetId"] for a in item.get("Associations", [])]
        got = [
            (e.rule_number, e.egress, e.action, e.protocol, e.cidr, e.ipv6_cidr, e.port_from, e.port_to)
            for e in fact.entries
        ]
        want = [
            (
                e["RuleNumber"],
                e["Egress"],
                e["RuleAction"],
                e["Protocol"],
                e.get("CidrBlock"),
                e.get("Ipv6CidrBlock"),
                e.get("PortRange", {}).get("From"),
                e.get("PortRange", {}).get("To"),
            )
            for e in item["Entries"]
        ]
        assert got == want

    wanted = sum(len(raw.get(k, [])) for k in KEY_KINDS)
    assert len(result.facts) == wanted


def _folder_content(folder: Path) -> tuple[bytes, list[dict[str, Any]]]:
    files = sorted(folder.glob("*.json"))
    responses = [json.loads(f.read_text()) for f in files]
    return b"\n".join(f.read_bytes() for f in files), responses


@pytest.mark.parametrize("folder", FOLDERS, ids=lambda p: str(p.relative_to(FIXTURES)))
def test_folder_matches_raw_json(folder: Path) -> None:
    content, responses = _folder_content(folder)
    meta = _folder_meta(folder)
    result = _normalize(content, origin=str(folder), **meta)
    _check_against_raw(result, responses, meta)


@pytest.mark.parametrize("path", SINGLES, ids=lambda p: p.name)
def test_single_response_matches_raw_json(path: Path) -> None:
    result = _normalize(path.read_bytes(), origin=path.name)
    _check_against_raw(result, [json.loads(path.read_text())], {})


@pytest.mark.parametrize("path", BOTOCORE, ids=lambda p: p.name)
def test_botocore_example_outputs(path: Path) -> None:
    """Each AWS-authored example holds an input and an output; the output is the response."""
    outputs = [example["output"] for example in json.loads(path.read_text())]
    content = "\n".join(json.dumps(o, indent=4) for o in outputs)
    result = _normalize(content, origin=path.name, account="123456789012", region="us-east-1")
    _check_against_raw(result, outputs, {"account": "123456789012", "region": "us-east-1"})


def test_fixture_inventory() -> None:
    assert len(FOLDERS) == 28
    assert len(SINGLES) == 15
    assert len(BOTOCORE) == 7


# --- hand-checked exact expectations -------------------------------------------------------------

HYBRID = FIXTURES / "batfish/networks/hybrid-cloud-aws/aws_configs/us-west-2"


def test_hybrid_cloud_security_groups_hand_checked() -> None:
    result = _normalize(_folder_content(HYBRID)[0], region="us-west-2")
    groups = {g.group_id: g for g in _of(result, AwsSecurityGroup)}
    demo = groups["sg-331ad04e"]
    assert demo.name == "Arista Demo"
    assert [(r.protocol, r.from_port, r.to_port) for r in demo.ingress] == [
        ("-1", None, None),
        ("tcp", 22, 22),
        ("icmp", -1, -1),
    ]
    assert demo.ingress[0].cidrs == ["192.168.0.0/16"]
    assert demo.ingress[1].cidrs == [
        "38.140.26.4/32",
        "38.140.26.5/32",
        "38.140.26.6/32",
        "38.140.26.7/32",
        "0.0.0.0/0",
    ]
    mixed = groups["sg-55510831"].ingress
    assert len(mixed) == 1
    assert mixed[0].groups == ["sg-cf3f86b3"]
    assert len(mixed[0].cidrs) == 5
    assert groups["sg-eed02393"].ingress[0].groups == ["sg-eed02393"]  # the default SG's self reference
    assert len(groups) == 11


def test_hybrid_cloud_routes_hand_checked() -> None:
    result = _normalize(_folder_content(HYBRID)[0], region="us-west-2")
    tables = {t.route_table_id: t for t in _of(result, AwsRouteTable)}
    nat = tables["rtb-f28e418b"]
    assert nat.main
    assert nat.subnet_ids == []
    assert nat.routes == [
        AwsRoute(
            destination="10.0.0.0/16",
            target_type="local",
            target_id="local",
            state="active",
            origin="CreateRouteTable",
        ),
        AwsRoute(
            destination="0.0.0.0/0",
            target_type="nat-gateway",
            target_id="nat-055c00735cace0ec4",
            state="blackhole",
            origin="CreateRoute",
        ),
    ]
    demo = tables["rtb-9fa476e6"]
    assert demo.main
    assert demo.subnet_ids == [
        "subnet-073b8061",
        "subnet-7044ff16",
        "subnet-30398256",
        "subnet-1641fa70",
        "subnet-f73a8191",
    ]
    assert [(r.destination, r.target_type) for r in demo.routes] == [
        ("192.168.0.0/16", "local"),
        ("0.0.0.0/0", "internet-gateway"),
    ]
    vgw = tables["rtb-296bf350"]
    assert [r.target_type for r in vgw.routes] == ["local"] + ["vpn-gateway"] * 5
    gateways = {g.gateway_id: g for g in _of(result, AwsGateway)}
    assert gateways["vgw-81fd279f"] == AwsGateway(
        account="111234",  # VPN gateways carry no OwnerId: the owner of vpc-815775e7 in Vpcs.json
        region="us-west-2",
        gateway_id="vgw-81fd279f",
        gateway_type="vpn",
        vpc_ids=["vpc-815775e7"],
        state="available",
        tags={"Name": "lhr-aws-01"},
    )


def test_batfish_single_files_hand_checked() -> None:
    single = FIXTURES / "batfish/aws-representation-test-resources/aws"
    (deser,) = _normalize((single / "SecurityGroupTestDeser.json").read_bytes()).facts
    assert isinstance(deser, AwsSecurityGroup)
    assert deser.account == "118292266645"
    assert deser.region == "unknown"
    assert deser.tags == {"testKey": "testValue"}
    assert deser.ingress == [
        SgRule(
            protocol="tcp", from_port=22, to_port=22, cidrs=["1.2.3.4/32"], description="Allowing single port"
        )
    ]
    assert deser.egress == [
        SgRule(protocol="-1", cidrs=["0.0.0.0/0"]),
        SgRule(protocol="-1", prefix_lists=["pl-7ba54012"]),
    ]
    (acl,) = _normalize((single / "NetworkAclIcmpTest.json").read_bytes()).facts
    assert acl == AwsNetworkAcl(
        account="unknown",
        region="unknown",
        network_acl_id="acl-4db39c28",
        vpc_id="vpc-f8fad69d",
        is_default=True,
        subnet_ids=["subnet-1f315846"],
        entries=[
            NaclEntry(
                rule_number=100,
                egress=True,
                action="allow",
                protocol="1",
                cidr="0.0.0.0/0",
                icmp_type=-1,
                icmp_code=-1,
            ),
            NaclEntry(
                rule_number=200,
                egress=True,
                action="allow",
                protocol="1",
                cidr="0.0.0.0/0",
                icmp_type=0,
                icmp_code=1,
            ),
        ],
    )
    (peering,) = _normalize(
        (single / "VpcPeeringConnectionsTest.json").read_bytes(), region="us-east-2"
    ).facts
    assert peering == AwsGateway(
        account="118292266645",
        region="us-east-2",
        gateway_id="pcx-f754069e",
        gateway_type="vpc-peering",
        vpc_ids=["vpc-07acbc61", "vpc-f6c5c790"],
        state="active",
        tags={"Name": "peering-test"},
    )
    (table,) = _normalize((single / "RouteV6TableTest.json").read_bytes()).facts
    assert isinstance(table, AwsRouteTable)
    assert table.routes[0].destination == "2600:1f16:751:7800::/56"
    assert table.routes[0].target_type == "local"
    deleted, available = _normalize((single / "NatGatewayTest.json").read_bytes()).facts
    assert isinstance(deleted, AwsGateway)
    assert isinstance(available, AwsGateway)
    assert (deleted.state, deleted.subnet_id, deleted.public) == ("deleted", "subnet-04132027d3844a90a", True)
    assert (available.gateway_id, available.vpc_ids) == ("nat-05dba92075d71c408", ["vpc-1a2b3c4d"])


def test_multi_account_folders_take_account_from_meta() -> None:
    base = FIXTURES / "batfish/aws-representation-test-resources/aws/test-multi-account/aws_configs/accounts"
    for account, region in (("111", "us-west-1"), ("222", "us-west-2")):
        folder = base / account / region
        result = _normalize(_folder_content(folder)[0], **_folder_meta(folder))
        assert result.facts
        assert {(f.account, f.region) for f in result.facts} == {(account, region)}  # type: ignore[attr-defined]


def test_handmade_stream_exact() -> None:
    """Every expectation below was worked out by hand from cli-describe-stream.json."""
    result = _normalize(HANDMADE.read_bytes(), origin="stream.json", region="us-east-1")
    assert result.problems == []
    assert result.covers == {
        FactKind.AWS_VPC,
        FactKind.AWS_ROUTE_TABLE,
        FactKind.AWS_GATEWAY,
        FactKind.AWS_FLOW_LOG_CONFIG,
    }
    (vpc,) = _of(result, AwsVpc)
    assert vpc == AwsVpc(
        account="210987654321",
        region="us-east-1",
        vpc_id="vpc-0f00000000000aaa1",
        cidrs=["10.20.0.0/16", "100.64.0.0/16"],  # 10.99.0.0/16 is disassociated
        ipv6_cidrs=["2600:1f18:aaaa:bb00::/56"],
        tags={"Name": "gpu-frontend", "tier": "frontend"},
    )
    (table,) = _of(result, AwsRouteTable)
    assert table.subnet_ids == ["subnet-0f000000000000s01"]  # s02 is disassociated
    assert table.gateway_ids == ["igw-0f00000000000000i"]  # edge association
    assert not table.main
    assert [(r.destination, r.target_type, r.target_id, r.state) for r in table.routes] == [
        ("10.20.0.0/16", "local", "local", "active"),
        ("::/0", "egress-only-internet-gateway", "eigw-0f0000000000000e", "active"),
        ("0.0.0.0/0", "nat-gateway", "nat-0f000000000000n01", "active"),
        ("10.250.0.0/16", "instance", "i-0f00000000000000a", "active"),
        ("10.251.0.0/16", "network-interface", "eni-0f00000000000000b", "blackhole"),
        ("pl-63a5400a", "vpc-endpoint", "vpce-0f000000000000v01", "active"),
        (
            "172.16.0.0/12",
            "core-network",
            "arn:aws:networkmanager::210987654321:core-network/core-network-0f000000000000c01",
            "active",
        ),
        ("192.0.2.0/24", "carrier-gateway", "cagw-0f000000000000c01", "active"),
    ]
    nat, eigw, peering = _of(result, AwsGateway)
    assert nat == AwsGateway(
        account="210987654321",  # no OwnerId on NAT gateways: the owner of its VPC
        region="us-east-1",
        gateway_id="nat-0f000000000000n02",
        gateway_type="nat",
        vpc_ids=["vpc-0f00000000000aaa1"],
        subnet_id="subnet-0f000000000000s01",
        state="available",
        public=False,  # ConnectivityType private
    )
    assert (eigw.gateway_type, eigw.vpc_ids, eigw.state) == (
        "egress-only",
        ["vpc-0f00000000000aaa1"],
        "attached",
    )
    assert (peering.gateway_type, peering.vpc_ids, peering.state, peering.account) == (
        "vpc-peering",
        ["vpc-0f00000000000aaa1", "vpc-0f00000000000bbb2"],
        "pending-acceptance",
        "210987654321",
    )
    cloudwatch, s3 = _of(result, AwsFlowLogConfig)
    assert cloudwatch == AwsFlowLogConfig(
        account="210987654321",
        region="us-east-1",
        flow_log_id="fl-0f00000000000f001",
        resource_id="vpc-0f00000000000aaa1",
        traffic_type="ALL",
        destination_type="cloud-watch-logs",
        log_group="gpu-frontend-flows",
        log_format=(
            "${version} ${account-id} ${interface-id} ${srcaddr} ${dstaddr} ${srcport} ${dstport} "
            "${protocol} ${packets} ${bytes} ${start} ${end} ${action} ${log-status}"
        ),
        status="ACTIVE",
        delivery="SUCCESS",
    )
    assert (s3.resource_id, s3.traffic_type, s3.destination_type, s3.destination, s3.log_group) == (
        "subnet-0f000000000000s01",
        "REJECT",
        "s3",
        "arn:aws:s3:::audit-flow-logs/gpu",
        None,
    )
    assert s3.account == "unknown"  # a subnet resource: no VPC owner to fall back on


def test_flow_log_delivery_failure_is_read() -> None:
    """DeliverLogsStatus FAILED with its message (a bucket policy refusing the log delivery service)."""
    body = {
        "FlowLogs": [
            {
                "CreationTime": "2026-05-14T16:02:44.381000+00:00",
                "DeliverLogsErrorMessage": "Access error",
                "DeliverLogsStatus": "FAILED",
                "FlowLogId": "fl-0c7e9a1b3d5f46802",
                "FlowLogStatus": "ACTIVE",
                "ResourceId": "vpc-0e52b8f1a4c6d9370",
                "TrafficType": "ALL",
                "LogDestinationType": "s3",
                "LogDestination": "arn:aws:s3:::pw2-egress-flow-logs",
                "MaxAggregationInterval": 600,
            }
        ]
    }
    result = _normalize(json.dumps(body).encode(), origin="describe-flow-logs.json", region="us-west-2")
    (config,) = _of(result, AwsFlowLogConfig)
    assert (config.status, config.delivery, config.delivery_error) == ("ACTIVE", "FAILED", "Access error")


def test_nacl_icmp_type_and_code_are_read() -> None:
    """An ICMP entry's IcmpTypeCode (path MTU discovery: type 3, code 4), as describe-network-acls prints it."""
    body = {
        "NetworkAcls": [
            {
                "Associations": [],
                "Entries": [
                    {
                        "CidrBlock": "0.0.0.0/0",
                        "Egress": False,
                        "IcmpTypeCode": {"Code": 4, "Type": 3},
                        "Protocol": "1",
                        "RuleAction": "allow",
                        "RuleNumber": 105,
                    },
                    {
                        "CidrBlock": "0.0.0.0/0",
                        "Egress": False,
                        "Protocol": "-1",
                        "RuleAction": "deny",
                        "RuleNumber": 32767,
                    },
                ],
                "IsDefault": False,
                "NetworkAclId": "acl-0b4c6d8e0f2a35791",
                "VpcId": "vpc-0f3a9c1d7e5b20481",
                "OwnerId": "444455556666",
            }
        ]
    }
    result = _normalize(json.dumps(body).encode(), origin="describe-network-acls.json", region="us-west-2")
    (acl,) = _of(result, AwsNetworkAcl)
    icmp, deny = acl.entries
    assert (icmp.protocol, icmp.icmp_type, icmp.icmp_code, icmp.port_from) == ("1", 3, 4, None)
    assert (deny.icmp_type, deny.icmp_code) == (None, None)


def test_meta_account_wins_and_list_of_responses() -> None:
    responses = [json.loads(p.read_text()) for p in sorted(HYBRID.glob("*.json"))]
    result = _normalize(json.dumps(responses), account="999988887777", region="us-west-2")
    assert result.problems == []
    assert {f.account for f in result.facts} == {"999988887777"}  # type: ignore[attr-defined]
    assert len(_of(result, AwsVpc)) == 4


# --- broken input ---------------------------------------------------------------------------------


def test_invalid_json_names_line_and_keeps_earlier_responses() -> None:
    good = json.dumps({"Vpcs": [{"VpcId": "vpc-1", "CidrBlock": "10.0.0.0/16"}]}, indent=2)
    result = _normalize(good + '\n{\n  "Subnets": [\n    {"SubnetId": "subnet-1",,}\n', origin="broken.json")
    assert [v.vpc_id for v in _of(result, AwsVpc)] == ["vpc-1"]
    assert result.covers == {FactKind.AWS_VPC}
    (problem,) = result.problems
    assert (problem.origin, problem.line) == ("broken.json", 11)
    assert problem.message.startswith("invalid JSON")


def test_missing_ids_and_wrong_shapes_keep_the_others() -> None:
    doc = {
        "Vpcs": [{"VpcId": "vpc-1"}, {"CidrBlock": "10.9.0.0/16"}, {"VpcId": "vpc-3"}],
        "SecurityGroups": [
            {"GroupId": "sg-1", "GroupName": "a", "IpPermissions": "all"},
            {"GroupId": "sg-2", "GroupName": "b", "IpPermissions": [{"IpProtocol": "tcp", "FromPort": "22"}]},
            {"GroupId": "sg-3", "GroupName": "c"},
        ],
        "NetworkAcls": [
            {
                "NetworkAclId": "acl-1",
                "VpcId": "vpc-1",
                "Entries": [{"RuleNumber": 1, "Egress": False, "RuleAction": "maybe", "Protocol": "-1"}],
            }
        ],
        "RouteTables": [{"RouteTableId": "rtb-1", "VpcId": "vpc-1", "Routes": [{"GatewayId": "local"}]}],
        "Subnets": "none",
        "ResponseMetadata": {"RequestId": "x"},
        "NextToken": "abc",
    }
    result = _normalize(json.dumps(doc))
    assert [v.vpc_id for v in _of(result, AwsVpc)] == ["vpc-1", "vpc-3"]
    assert [g.group_id for g in _of(result, AwsSecurityGroup)] == ["sg-3"]
    assert [p.message for p in result.problems] == [
        "Vpcs[1]: missing VpcId",
        "Subnets is not a list",
        "RouteTables[0] (rtb-1): Routes[0] has no destination",
        "SecurityGroups[0] (sg-1): IpPermissions must be a list",
        "SecurityGroups[1] (sg-2): FromPort must be an integer",
        "NetworkAcls[0] (acl-1): entry 1: RuleAction must be allow or deny, not 'maybe'",
    ]
    assert all(p.origin == "describe.json" for p in result.problems)


@pytest.mark.parametrize("content", [b"", b"   \n", b"not json", b"[1, 2]", b"\xff\xfe", b'"Vpcs"', b"{}"])
def test_garbage_never_raises(content: bytes) -> None:
    result = _normalize(content)
    assert result.facts == []
    assert result.covers == set()
    if content.strip() not in (b"{}",):
        assert result.problems
