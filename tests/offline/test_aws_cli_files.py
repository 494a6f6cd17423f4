"""Offline AWS evidence as the AWS CLI writes it: one file per command, read and merged into the facts
the checks use (a TGW route table from four files, a bucket's immutability from two)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import botocore.session
import pytest

from auditor.capture import RawCapture
from auditor.config.loader import parse_config
from auditor.facts import AwsFlowLogDestination, AwsGateway, AwsTgwRouteTable, AwsVpc, FactRecord
from auditor.normalize import Problem
from auditor.store.reader import StoredFact
from checks.base import FactView
from collectors.normalizers.aws import normalize_describe
from collectors.offline.collector import OfflineFilesCollector

CLI = Path(__file__).parents[1] / "fixtures" / "aws" / "cli" / "us-east-1"
# file -> (service, operation) whose output shape it is
OPERATIONS = {
    "describe-transit-gateway-route-tables.json": ("ec2", "DescribeTransitGatewayRouteTables"),
    "describe-transit-gateway-attachments.json": ("ec2", "DescribeTransitGatewayAttachments"),
    "describe-vpn-connections.json": ("ec2", "DescribeVpnConnections"),
    "describe-vpc-peering-connections.json": ("ec2", "DescribeVpcPeeringConnections"),
    "describe-network-interfaces.json": ("ec2", "DescribeNetworkInterfaces"),
    "describe-log-groups.json": ("logs", "DescribeLogGroups"),
    ".routes.json": ("ec2", "SearchTransitGatewayRoutes"),
    ".associations.json": ("ec2", "GetTransitGatewayRouteTableAssociations"),
    ".propagations.json": ("ec2", "GetTransitGatewayRouteTablePropagations"),
    ".object-lock.json": ("s3", "GetObjectLockConfiguration"),
    ".versioning.json": ("s3", "GetBucketVersioning"),
}


def _operation(name: str) -> tuple[str, str]:
    return next(op for suffix, op in OPERATIONS.items() if name.endswith(suffix))


def _unknown_keys(value: Any, shape: Any, where: str) -> list[str]:
    """Keys of `value` that the botocore shape does not have (recursively)."""
    out: list[str] = []
    if shape.type_name == "structure" and isinstance(value, dict):
        for key, item in value.items():
            if key not in shape.members:
                out.append(f"{where}.{key}")
            else:
                out += _unknown_keys(item, shape.members[key], f"{where}.{key}")
    elif shape.type_name == "list" and isinstance(value, list):
        for i, item in enumerate(value):
            out += _unknown_keys(item, shape.member, f"{where}[{i}]")
    return out


@pytest.mark.parametrize("path", sorted(CLI.iterdir()), ids=lambda p: p.name)
def test_every_fixture_is_the_response_shape_of_its_cli_command(path: Path) -> None:
    service, operation = _operation(path.name)
    text = path.read_text().strip()
    if not text.startswith("{"):
        return  # what the CLI prints for an empty answer or an error (read as such by the normalizer)
    model = botocore.session.get_session().get_service_model(service)
    shape = model.operation_model(operation).output_shape
    assert _unknown_keys(json.loads(text), shape, operation) == []


def _facts(tmp_path: Path, evidence: Path) -> tuple[FactView, list[Problem], list[RawCapture]]:
    config = parse_config(
        f"sources:\n  files:\n    - {{path: {evidence}, account: '111122223333'}}\n", base_dir=tmp_path
    )
    collector = OfflineFilesCollector()
    plan = collector.plan(config)
    problems = list(plan.problems)
    stored: list[StoredFact[FactRecord]] = []
    captures: list[RawCapture] = []
    for target in plan.targets:
        for seq, got in enumerate(collector.collect(target), start=1):
            if isinstance(got, Problem):
                problems.append(got)
                continue
            captures.append(got)
            result = normalize_describe(got)
            problems += result.problems
            for record in result.facts:
                stored.append(
                    StoredFact(
                        len(stored) + 1, record.kind, target.name, seq, f"{seq:064x}", record, got.format
                    )
                )
    return FactView(stored), problems, captures


def test_cli_files_merge_into_route_tables_destinations_and_vpn(tmp_path: Path) -> None:
    view, problems, captures = _facts(tmp_path, CLI)
    assert problems == []
    (table,) = view.of(AwsTgwRouteTable)
    rec = table.record
    assert rec.route_table_id == "tgw-rtb-0a1b2c3d4e5f60001"
    assert rec.transit_gateway_id == "tgw-0a1b2c3d4e5f60001"
    assert rec.routes is not None and [r.destination for r in rec.routes] == [
        "10.20.0.0/16",
        "10.250.0.0/16",
        "0.0.0.0/0",
    ]
    assert rec.routes[2].state == "blackhole"
    assert (rec.associations, rec.propagations) == (
        ["tgw-attach-0fe00000000000001"],
        ["tgw-attach-0fe00000000000001"],
    )
    assert len(table.also_from) == 3  # the routes, associations and propagations files
    dests = {d.record.destination: d.record for d in view.of(AwsFlowLogDestination)}
    locked = dests["arn:aws:s3:::flowlogs-locked"]
    assert (
        locked.object_lock_enabled,
        locked.object_lock_mode,
        locked.object_lock_days,
        locked.versioning,
    ) == (
        True,
        "COMPLIANCE",
        730,
        "Enabled",
    )
    plain = dests["arn:aws:s3:::flowlogs-plain"]  # the CLI's error reply, and its empty output
    assert (plain.object_lock_enabled, plain.versioning) == (False, "Disabled")
    assert dests["/vpc/flow-logs/oob"].retention_days == 400
    (vpn,) = [g.record for g in view.of(AwsGateway) if g.record.gateway_type == "vpn-connection"]
    assert (vpn.gateway_id, vpn.via, vpn.destinations) == (
        "vpn-0oob000000000001",
        "tgw-0a1b2c3d4e5f60001",
        ["10.250.0.0/16"],
    )
    sources = {c.origin.rsplit("/", 1)[-1]: c.source for c in captures}
    assert sources["flowlogs-locked.object-lock.json"].startswith(
        "aws s3api get-object-lock-configuration --bucket flowlogs-locked"
    )


def test_a_partial_route_table_stays_unknown_where_its_files_are_missing(tmp_path: Path) -> None:
    evidence = tmp_path / "us-east-1"
    evidence.mkdir()
    for name in ("describe-transit-gateway-route-tables.json", "tgw-rtb-0a1b2c3d4e5f60001.routes.json"):
        (evidence / name).write_bytes((CLI / name).read_bytes())
    view, problems, _ = _facts(tmp_path, evidence)
    assert problems == []
    (table,) = view.of(AwsTgwRouteTable)
    assert table.record.routes is not None and len(table.record.routes) == 3
    assert table.record.associations is None and table.record.propagations is None


@pytest.mark.parametrize(
    ("name", "content", "words"),
    [
        (
            "lock.json",
            (CLI / "flowlogs-locked.object-lock.json").read_text(),
            "save it as BUCKET.object-lock.json",
        ),
        ("r.json", (CLI / "tgw-rtb-0a1b2c3d4e5f60001.routes.json").read_text(), "TGW-RTB-ID.routes.json"),
        ("Bad_Bucket.object-lock.json", '{"ObjectLockConfiguration": {}}', "is not an S3 bucket name"),
        ("rtb-1.routes.json", '{"Routes": []}', "is not a transit gateway route table id"),
    ],
)
def test_a_cli_file_that_cannot_name_its_resource_is_a_problem(
    tmp_path: Path, name: str, content: str, words: str
) -> None:
    evidence = tmp_path / "us-east-1"
    evidence.mkdir()
    (evidence / name).write_text(content)
    _, problems, captures = _facts(tmp_path, evidence)
    assert captures == []
    assert any(words in p.message and p.origin.endswith(name) for p in problems), problems


@pytest.mark.parametrize(
    ("name", "content", "words"),
    [
        ("bkt.object-lock.json", "", "printed nothing"),
        (
            "bkt.object-lock.json",
            "\nAn error occurred (AccessDenied) when calling the X operation: no\n",
            "AccessDenied",
        ),
        ("bkt.versioning.json", '{"Vpcs": []}', "found keys Vpcs"),
        ("tgw-rtb-01.routes.json", '{"Routes": [], "AdditionalRoutesAvailable": true}', "more routes"),
        ("tgw-rtb-01.associations.json", '{"Routes": []}', "no Associations"),
    ],
)
def test_a_failed_or_wrong_cli_output_is_a_problem_not_a_fact(
    tmp_path: Path, name: str, content: str, words: str
) -> None:
    evidence = tmp_path / "us-east-1"
    evidence.mkdir()
    (evidence / name).write_text(content)
    view, problems, captures = _facts(tmp_path, evidence)
    assert len(captures) == 1
    assert any(words in p.message for p in problems), problems
    assert view.of(AwsFlowLogDestination) == [] and view.of(AwsTgwRouteTable) == []


def test_a_kubernetes_route_named_like_a_cli_file_is_not_taken_for_one(tmp_path: Path) -> None:
    """An OpenShift Route list saved as `app.routes.json` is a manifest, not search-transit-gateway-routes."""
    from collectors.offline.aws_files import detect

    route = {"apiVersion": "route.openshift.io/v1", "kind": "Route", "metadata": {"name": "app"}}
    path = tmp_path / "app.routes.json"
    path.write_text(json.dumps(route))
    assert detect(path, path.read_bytes(), "app.routes.json") is None


def test_cli_outputs_next_to_the_read_ones_are_kept_without_facts_or_problems(tmp_path: Path) -> None:
    """A complete `aws ec2 describe-*` dump holds more than the checks read (instances, customer gateways,
    endpoints): those files are recognised as AWS evidence and kept, with no fact and no problem; a JSON
    with keys of no known response stays a problem."""
    evidence = tmp_path / "us-east-1"
    evidence.mkdir()
    instances = {
        "Reservations": [{"Instances": [{"InstanceId": "i-0a4c6e8f0b2d13579"}], "ReservationId": "r-01"}]
    }
    gateways = {
        "CustomerGateways": [{"CustomerGatewayId": "cgw-0f6a8c0e2b4d7915f", "IpAddress": "198.51.100.7"}]
    }
    (evidence / "describe-instances.json").write_text(json.dumps(instances, indent=4))
    (evidence / "describe-customer-gateways.json").write_text(json.dumps(gateways, indent=4))
    (evidence / "describe-vpcs.json").write_text(
        json.dumps({"Vpcs": [{"VpcId": "vpc-01", "CidrBlock": "10.0.0.0/16"}]})
    )
    view, problems, captures = _facts(tmp_path, evidence)
    assert problems == []
    assert sorted(Path(c.origin).name for c in captures) == [
        "describe-customer-gateways.json",
        "describe-instances.json",
        "describe-vpcs.json",
    ]
    assert [f.record.subject() for f in view.of(AwsVpc)] == ["111122223333/us-east-1/vpc-01"]
    assert sum(len(v) for v in view._by_kind.values()) == 1  # the VPC only
    (evidence / "notes.json").write_text(json.dumps({"Reservation": "not an AWS response"}))
    _, problems, captures = _facts(tmp_path, evidence)
    assert len(captures) == 3 and [Path(p.origin).name for p in problems] == ["notes.json"]


POD_AWS = Path(__file__).parents[2] / "examples" / "ai-pod" / "evidence" / "aws" / "us-west-2"
POD_OPERATIONS = {
    "describe-vpcs.json": ("ec2", "DescribeVpcs"),
    "describe-subnets.json": ("ec2", "DescribeSubnets"),
    "describe-route-tables.json": ("ec2", "DescribeRouteTables"),
    "describe-internet-gateways.json": ("ec2", "DescribeInternetGateways"),
    "describe-nat-gateways.json": ("ec2", "DescribeNatGateways"),
    "describe-egress-only-internet-gateways.json": ("ec2", "DescribeEgressOnlyInternetGateways"),
    "describe-vpn-gateways.json": ("ec2", "DescribeVpnGateways"),
    "describe-transit-gateways.json": ("ec2", "DescribeTransitGateways"),
    "describe-security-groups.json": ("ec2", "DescribeSecurityGroups"),
    "describe-network-acls.json": ("ec2", "DescribeNetworkAcls"),
    "describe-flow-logs.json": ("ec2", "DescribeFlowLogs"),
    "describe-customer-gateways.json": ("ec2", "DescribeCustomerGateways"),
    "describe-vpc-endpoints.json": ("ec2", "DescribeVpcEndpoints"),
    **OPERATIONS,
}


@pytest.mark.parametrize(
    "path", sorted(p for p in POD_AWS.iterdir() if not p.name.startswith(".")), ids=lambda p: p.name
)
def test_the_ai_pods_aws_files_are_the_response_shapes_of_their_commands(path: Path) -> None:
    """examples/ai-pod is meant to be what the CLI writes: every key of every file is in its operation's
    botocore output shape (an error reply or an empty answer is what the CLI prints for those)."""
    service, operation = next(op for suffix, op in POD_OPERATIONS.items() if path.name.endswith(suffix))
    text = path.read_text().strip()
    if not text.startswith("{"):
        assert text == "" or "An error occurred (" in text
        return
    shape = botocore.session.get_session().get_service_model(service).operation_model(operation).output_shape
    assert _unknown_keys(json.loads(text), shape, operation) == []
