"""End to end through `auditor audit`: CLI-shaped TGW files and a VPN declared to the OOB tier make the
frontend's default route (to the transit gateway, then to the VPN) a lateral path into OOB; without the
declaration the same evidence has no such path (a default route out of the evidence is not followed)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from tests.e2e.conftest import run_cli

CLI = Path(__file__).parents[1] / "fixtures" / "aws" / "cli" / "us-east-1"
RTB = "tgw-rtb-0a1b2c3d4e5f60001"
OWNER = "111122223333"
DESCRIBES: dict[str, Any] = {
    "describe-vpcs.json": {
        "Vpcs": [
            {
                "VpcId": "vpc-0serving0000000a",
                "CidrBlock": "10.20.0.0/16",
                "State": "available",
                "OwnerId": OWNER,
                "IsDefault": False,
                "Tags": [{"Key": "tier", "Value": "frontend"}],
            }
        ]
    },
    "describe-subnets.json": {
        "Subnets": [
            {
                "SubnetId": "subnet-0serving0a",
                "VpcId": "vpc-0serving0000000a",
                "CidrBlock": "10.20.1.0/24",
                "AvailabilityZone": "us-east-1a",
                "MapPublicIpOnLaunch": False,
                "State": "available",
                "OwnerId": OWNER,
                "Tags": [{"Key": "role", "Value": "model-serving"}],
            }
        ]
    },
    "describe-route-tables.json": {
        "RouteTables": [
            {
                "RouteTableId": "rtb-0serving00000a",
                "VpcId": "vpc-0serving0000000a",
                "OwnerId": OWNER,
                "Associations": [
                    {
                        "Main": True,
                        "RouteTableId": "rtb-0serving00000a",
                        "AssociationState": {"State": "associated"},
                    }
                ],
                "Routes": [
                    {"DestinationCidrBlock": "10.20.0.0/16", "GatewayId": "local", "State": "active"},
                    {
                        "DestinationCidrBlock": "0.0.0.0/0",
                        "TransitGatewayId": "tgw-0a1b2c3d4e5f60001",
                        "State": "active",
                    },
                ],
                "Tags": [],
            }
        ]
    },
    "describe-security-groups.json": {
        "SecurityGroups": [
            {
                "GroupId": "sg-0serving000000a",
                "GroupName": "serving",
                "VpcId": "vpc-0serving0000000a",
                "OwnerId": OWNER,
                "Description": "serving",
                "IpPermissions": [],
                "IpPermissionsEgress": [{"IpProtocol": "-1", "IpRanges": [{"CidrIp": "0.0.0.0/0"}]}],
            }
        ]
    },
    "describe-network-acls.json": {
        "NetworkAcls": [
            {
                "NetworkAclId": "acl-0serving0000000a",
                "VpcId": "vpc-0serving0000000a",
                "IsDefault": True,
                "OwnerId": OWNER,
                "Associations": [{"NetworkAclId": "acl-0serving0000000a", "SubnetId": "subnet-0serving0a"}],
                "Entries": [
                    {
                        "RuleNumber": 100,
                        "Egress": e,
                        "RuleAction": "allow",
                        "Protocol": "-1",
                        "CidrBlock": "0.0.0.0/0",
                    }
                    for e in (False, True)
                ],
            }
        ]
    },
}
TGW_DEFAULT_TO_VPN = {
    "Routes": [
        {
            "DestinationCidrBlock": "0.0.0.0/0",
            "TransitGatewayAttachments": [
                {
                    "ResourceId": "vpn-0oob000000000001",
                    "TransitGatewayAttachmentId": "tgw-attach-0vpn0000000000001",
                    "ResourceType": "vpn",
                }
            ],
            "Type": "static",
            "State": "active",
        }
    ],
    "AdditionalRoutesAvailable": False,
}


def _audit(tmp_path: Path, cloud: str) -> dict[str, Any]:
    region = tmp_path / "evidence" / "us-east-1"
    region.mkdir(parents=True)
    for name in (
        "describe-transit-gateway-attachments.json",
        "describe-transit-gateway-route-tables.json",
        "describe-vpn-connections.json",
        f"{RTB}.associations.json",
        f"{RTB}.propagations.json",
    ):
        shutil.copy(CLI / name, region / name)
    (region / f"{RTB}.routes.json").write_text(json.dumps(TGW_DEFAULT_TO_VPN, indent=2))
    for name, body in DESCRIBES.items():
        (region / name).write_text(json.dumps(body, indent=2))
    (tmp_path / "auditor.yaml").write_text(
        "intent:\n  tiers:\n    oob: {cidrs: [10.250.0.0/16]}\n"
        "    frontend: {cidrs: [10.20.0.0/16], aws: {vpc_tags: {tier: frontend}, subnet_tags: {role: model-serving}}}\n"
        + cloud
        + f"sources:\n  files: [{{path: evidence, account: '{OWNER}'}}]\n"
        "store: sqlite:///.auditor/auditor.db\noutput: out\nreports: [json]\n"
    )
    result = run_cli("audit", "-c", str(tmp_path / "auditor.yaml"), "--quiet")
    assert result.returncode in (1, 3), result.stdout + result.stderr
    report: dict[str, Any] = json.loads((tmp_path / "out" / "run-1.json").read_text())
    assert report["problems"] == []
    return report


def _lateral(report: dict[str, Any]) -> dict[str, str]:
    return {f["subject"]: f["status"] for f in report["findings"] if f["check_id"] == "X-LATERAL-NO-PATH"}


def test_default_route_into_a_vpn_declared_oob_is_a_lateral_path(tmp_path: Path) -> None:
    cloud = "  cloud:\n    attachments: [{id: vpn-0oob000000000001, tier: oob}]\n"
    lateral = _lateral(_audit(tmp_path, cloud))
    subject = f"{OWNER}/us-east-1/subnet-0serving0a -> oob"
    assert lateral.get(subject) == "FAIL", lateral


def test_undeclared_the_same_route_is_no_path(tmp_path: Path) -> None:
    lateral = _lateral(_audit(tmp_path, ""))
    assert "FAIL" not in lateral.values(), lateral
