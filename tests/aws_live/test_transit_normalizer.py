"""The joined shapes of normalizers/aws_transit, on items shaped as the AWS API reference documents them."""

from __future__ import annotations

import json
from datetime import UTC, datetime

from auditor.capture import RawCapture
from auditor.enums import FactKind
from auditor.normalize import NormalizeResult
from collectors.normalizers.aws import normalize_describe

TABLE = {
    "TransitGatewayRouteTableId": "tgw-rtb-0a1b2c3d4e5f60001",
    "TransitGatewayId": "tgw-0a1b2c3d4e5f60001",
    "State": "available",
    "Routes": [
        {
            "DestinationCidrBlock": "10.30.0.0/16",
            "Type": "propagated",
            "State": "active",
            "TransitGatewayAttachments": [
                {"ResourceId": "vpc-1", "TransitGatewayAttachmentId": "tgw-attach-be", "ResourceType": "vpc"}
            ],
        },
        {"DestinationCidrBlock": "0.0.0.0/0", "Type": "static", "State": "blackhole"},
        {
            "PrefixListId": "pl-0123",
            "Type": "static",
            "State": "active",
            "TransitGatewayAttachments": [{"TransitGatewayAttachmentId": "tgw-attach-fw"}],
        },
    ],
    "AdditionalRoutesAvailable": False,
    "Associations": [
        {"TransitGatewayAttachmentId": "tgw-attach-fe", "State": "associated"},
        {"TransitGatewayAttachmentId": "tgw-attach-old", "State": "disassociated"},
    ],
    "Propagations": [{"TransitGatewayAttachmentId": "tgw-attach-be", "State": "enabled"}],
}


def _run(body: object, **meta: str) -> NormalizeResult:
    capture = RawCapture(
        "t",
        "aws.describe",
        "test",
        "x.json",
        datetime(2025, 1, 1, tzinfo=UTC),
        json.dumps(body).encode(),
        meta,
    )
    return normalize_describe(capture)


def test_route_table_joined_with_routes_associations_propagations() -> None:
    result = _run({"TransitGatewayRouteTables": [TABLE]}, account="111122223333", region="eu-west-1")
    assert result.problems == [] and result.covers == {FactKind.AWS_TGW_ROUTE_TABLE}
    (table,) = result.facts
    assert table.to_json() == {
        "account": "111122223333",
        "region": "eu-west-1",
        "route_table_id": "tgw-rtb-0a1b2c3d4e5f60001",
        "transit_gateway_id": "tgw-0a1b2c3d4e5f60001",
        "routes": [
            {
                "destination": "10.30.0.0/16",
                "attachment_ids": ["tgw-attach-be"],
                "type": "propagated",
                "state": "active",
            },
            {"destination": "0.0.0.0/0", "attachment_ids": [], "type": "static", "state": "blackhole"},
            {
                "destination": "pl-0123",
                "attachment_ids": ["tgw-attach-fw"],
                "type": "static",
                "state": "active",
            },
        ],
        "associations": ["tgw-attach-fe"],
        "propagations": ["tgw-attach-be"],
    }


def test_route_table_without_routes_or_truncated_is_not_covered() -> None:
    bare = {k: v for k, v in TABLE.items() if k != "Routes"}
    more = {**TABLE, "AdditionalRoutesAvailable": True}
    for item, words in (
        (bare, "has no Routes (add the SearchTransitGatewayRoutes output"),
        (more, "AdditionalRoutesAvailable"),
    ):
        result = _run({"TransitGatewayRouteTables": [item]})
        assert FactKind.AWS_TGW_ROUTE_TABLE not in result.covers
        assert any(words in p.message for p in result.problems)


def test_attachments_enis_and_destinations() -> None:
    body = {
        "TransitGatewayAttachments": [
            {
                "TransitGatewayAttachmentId": "tgw-attach-fe",
                "TransitGatewayId": "tgw-1",
                "TransitGatewayOwnerId": "111122223333",
                "ResourceOwnerId": "444455556666",
                "ResourceType": "vpc",
                "ResourceId": "vpc-fe",
                "State": "available",
                "Association": {"TransitGatewayRouteTableId": "tgw-rtb-1", "State": "associated"},
            }
        ],
        "NetworkInterfaces": [
            {
                "NetworkInterfaceId": "eni-1",
                "VpcId": "vpc-fe",
                "SubnetId": "subnet-1",
                "OwnerId": "111122223333",
                "PrivateIpAddress": "10.20.1.5",
                "PrivateIpAddresses": [
                    {"PrivateIpAddress": "10.20.1.5", "Primary": True},
                    {"PrivateIpAddress": "10.20.1.6", "Primary": False},
                ],
                "Ipv6Addresses": [{"Ipv6Address": "2001:db8::5"}],
                "Association": {"PublicIp": "198.51.100.9"},
                "Groups": [{"GroupId": "sg-1", "GroupName": "serving"}],
                "InterfaceType": "interface",
                "Description": "inference",
                "Attachment": {"InstanceId": "i-1", "DeviceIndex": 0},
            }
        ],
        "FlowLogDestinations": [
            {
                "DestinationType": "s3",
                "Destination": "arn:aws:s3:::b",
                "Bucket": "b",
                "ObjectLockConfiguration": None,
                "Versioning": {},
            },
            {
                "DestinationType": "s3",
                "Destination": "arn:aws:s3:::c",
                "Bucket": "c",
                "ObjectLockConfiguration": {
                    "ObjectLockEnabled": "Enabled",
                    "Rule": {"DefaultRetention": {"Mode": "GOVERNANCE", "Years": 2}},
                },
                "Versioning": {"Status": "Enabled"},
            },
            {
                "DestinationType": "cloud-watch-logs",
                "Destination": "/vpc/x",
                "LogGroup": {"logGroupName": "/vpc/x"},
            },
            {"DestinationType": "cloud-watch-logs", "Destination": "/vpc/gone", "LogGroup": None},
        ],
    }
    result = _run(body)
    facts = {f.kind: [] for f in result.facts}
    for f in result.facts:
        facts[f.kind].append(f.to_json())
    (att,) = facts[FactKind.AWS_TGW_ATTACHMENT]
    assert (att["account"], att["resource_owner"], att["route_table_id"]) == (
        "111122223333",
        "444455556666",
        "tgw-rtb-1",
    )
    (eni,) = facts[FactKind.AWS_NETWORK_INTERFACE]
    assert eni["private_ips"] == ["10.20.1.5", "10.20.1.6"] and eni["public_ip"] == "198.51.100.9"
    assert (eni["security_groups"], eni["attachment"], eni["ipv6_addresses"]) == (
        ["sg-1"],
        "i-1",
        ["2001:db8::5"],
    )
    dests = {d["destination"]: d for d in facts[FactKind.AWS_FLOW_LOG_DESTINATION]}
    assert (dests["arn:aws:s3:::b"]["object_lock_enabled"], dests["arn:aws:s3:::b"]["versioning"]) == (
        False,
        "Disabled",
    )
    assert (dests["arn:aws:s3:::c"]["object_lock_mode"], dests["arn:aws:s3:::c"]["object_lock_days"]) == (
        "GOVERNANCE",
        730,
    )
    assert dests["/vpc/x"]["retention_days"] is None  # never expires
    assert "/vpc/gone" not in dests
    assert [p.message for p in result.problems] == [
        "FlowLogDestinations[3] (/vpc/gone): log group /vpc/gone does not exist (DescribeLogGroups found none)"
    ]
