"""`auditor permissions aws` is exactly what the collector calls, and every call is read-only."""

from __future__ import annotations

import json

import boto3
import pytest
from typer.testing import CliRunner

from auditor.cli.app import app, load_commands
from auditor.config.models import AwsSource
from auditor.errors import ReadOnlyViolation
from collectors.aws.calls import READ_ONLY_VERBS
from collectors.aws.collector import AwsCollector
from collectors.aws.permissions import required_actions
from collectors.aws.session import open_session
from tests.aws_live.helpers import collect
from tests.aws_live.scenario import REGION, Estate


def _cli_policy() -> dict[str, object]:
    load_commands()
    result = CliRunner().invoke(app, ["permissions", "aws"])
    assert result.exit_code == 0, result.output
    return dict(json.loads(result.output))


def test_policy_covers_exactly_the_calls_made(estate: Estate, moto_endpoint: str) -> None:
    got = collect(moto_endpoint)
    assert not got.problems, got.problems
    policy = _cli_policy()
    (statement,) = policy["Statement"]  # type: ignore[misc]
    assert statement["Effect"] == "Allow"
    assert set(statement["Action"]) == set(got.calls)  # nothing missing, nothing extra
    assert sorted(statement["Action"]) == required_actions() == sorted(AwsCollector.permissions["iam"])
    operations = {a.split(":", 1)[1] for a in got.calls}
    assert all(op.startswith(READ_ONLY_VERBS) for op in operations - {"ListBucket"})


def test_actions_only_output() -> None:
    load_commands()
    result = CliRunner().invoke(app, ["permissions", "aws", "--actions"])
    assert result.output.split() == required_actions()


def test_guard_refuses_a_write_before_it_is_sent(estate: Estate, moto_endpoint: str) -> None:
    session = open_session(AwsSource(regions=[REGION], endpoint_url=moto_endpoint))
    ec2 = session.client("ec2", region_name=REGION, endpoint_url=moto_endpoint)
    before = len(ec2.describe_vpcs()["Vpcs"])
    with pytest.raises(ReadOnlyViolation, match="refused ec2:CreateVpc"):
        ec2.create_vpc(CidrBlock="10.99.0.0/16")
    s3 = session.client("s3", region_name=REGION, endpoint_url=moto_endpoint)
    with pytest.raises(ReadOnlyViolation, match="refused s3:DeleteObject"):
        s3.delete_object(Bucket="audit-flow-logs", Key="x")
    plain = boto3.client("ec2", region_name=REGION, endpoint_url=moto_endpoint)
    assert len(plain.describe_vpcs()["Vpcs"]) == before  # nothing reached the server
