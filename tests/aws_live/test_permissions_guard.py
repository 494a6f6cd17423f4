"""The AWS guard admits exactly the declared operations: every operation botocore knows, for every service,
is put through the real event hook on a guarded session, and a refused call made against moto never
leaves the process."""

from __future__ import annotations

from typing import Any

import boto3
import botocore.session
import pytest
from typer.testing import CliRunner

from auditor.cli.app import app, load_commands
from auditor.config.models import AwsSource, CollectionSettings
from auditor.errors import ReadOnlyViolation
from collectors.aws.guard import allowed_operations
from collectors.aws.permissions import declared_calls, declared_operations, required_actions
from collectors.aws.session import Clients, client_config, open_session
from tests.aws_live.scenario import REGION


def _every_operation() -> list[tuple[str, Any]]:
    """(service name, OperationModel) of every operation of every service botocore's loader knows."""
    loader = botocore.session.get_session()
    found = []
    for service in loader.get_available_services():
        model = loader.get_service_model(service)
        found += [(service, model.operation_model(op)) for op in model.operation_names]
    return found


def _admitted(events: Any, service_id: str, model: Any) -> bool:
    """Emit the events botocore emits at the start of an API call, through the session's real dispatcher."""
    try:
        for event in ("provide-client-params", "before-call"):
            events.emit(f"{event}.{service_id}.{model.name}", params={}, model=model, context={})
    except ReadOnlyViolation:
        return False
    return True


def test_guard_admits_exactly_the_declared_operations(aws_env: None) -> None:
    session = open_session(AwsSource(regions=[REGION]))
    declared = {(c.service, c.operation) for c in declared_calls()}
    operations = _every_operation()
    assert len(operations) > 10_000  # botocore's whole catalogue, not a sample
    admitted = {
        (service, model.name)
        for service, model in operations
        if _admitted(session.events, model.service_model.service_id.hyphenize(), model)
    }
    assert admitted == declared
    assert declared == set(allowed_operations())
    # credential-minting reads a verb rule would let through are refused
    for refused in [
        ("sts", "GetSessionToken"),
        ("sts", "GetFederationToken"),
        ("ecr", "GetAuthorizationToken"),
        ("cognito-identity", "GetCredentialsForIdentity"),
        ("ec2", "DescribeInstances"),
    ]:
        assert refused not in admitted


def test_every_declared_operation_exists_in_botocore() -> None:
    loader = botocore.session.get_session()
    for call in declared_calls():
        assert call.operation in loader.get_service_model(call.service).operation_names, call


def test_operations_and_actions_come_from_one_list() -> None:
    assert declared_operations() == sorted(f"{c.service}:{c.operation}" for c in declared_calls())
    assert required_actions() == sorted({c.iam_action for c in declared_calls()})
    load_commands()
    printed = CliRunner().invoke(app, ["permissions", "aws", "--operations"]).output.split()
    assert printed == declared_operations()
    assert {tuple(o.split(":", 1)) for o in printed} == set(allowed_operations())


@pytest.mark.parametrize(
    ("service", "method", "params"),
    [
        ("sts", "get_session_token", {}),  # mints credentials; a Get*
        ("sts", "get_federation_token", {"Name": "x"}),
        ("ec2", "describe_instances", {}),  # read-only, but not a declared call
        ("ec2", "create_vpc", {"CidrBlock": "10.99.0.0/16"}),
        ("iam", "create_user", {"UserName": "intruder"}),
        ("iam", "create_access_key", {"UserName": "auditor"}),
        ("s3", "delete_object", {"Bucket": "audit-flow-logs", "Key": "x"}),
        ("s3", "get_bucket_policy", {"Bucket": "audit-flow-logs"}),
    ],
)
def test_refused_call_never_reaches_moto(
    aws_env: None, moto_endpoint: str, service: str, method: str, params: dict[str, Any]
) -> None:
    session = open_session(AwsSource(regions=[REGION], endpoint_url=moto_endpoint))
    sent: list[str] = []
    # `before-send` is botocore's last hook before the HTTP request goes out: it records what left.
    session.events.register("before-send", lambda request, **_: sent.append(request.url))
    client = session.client(service, region_name=REGION, endpoint_url=moto_endpoint)
    with pytest.raises(ReadOnlyViolation, match="refused"):
        getattr(client, method)(**params)
    assert sent == []
    plain_iam = boto3.client("iam", region_name=REGION, endpoint_url=moto_endpoint)
    assert "intruder" not in {u["UserName"] for u in plain_iam.list_users()["Users"]}
    plain_ec2 = boto3.client("ec2", region_name=REGION, endpoint_url=moto_endpoint)
    assert not any(v["CidrBlock"] == "10.99.0.0/16" for v in plain_ec2.describe_vpcs()["Vpcs"])
    # and a declared call on the same session does go out
    session.client("ec2", region_name=REGION, endpoint_url=moto_endpoint).describe_vpcs()
    assert len(sent) == 1


def test_assume_role_is_admitted_on_the_bootstrap_client_only(aws_env: None, moto_endpoint: str) -> None:
    session = open_session(AwsSource(regions=[REGION], endpoint_url=moto_endpoint))
    sts = session.client("sts", region_name=REGION, endpoint_url=moto_endpoint)
    with pytest.raises(ReadOnlyViolation, match="sts:AssumeRole"):
        sts.assume_role(RoleArn="arn:aws:iam::123456789012:role/x", RoleSessionName="s")


def test_clients_guard_a_session_made_elsewhere(aws_env: None, moto_endpoint: str) -> None:
    """A session handed in by a factory (tests, an embedding program) is guarded as soon as the collector
    makes clients from it."""
    clients = Clients(boto3.Session(), REGION, moto_endpoint, client_config(CollectionSettings()))
    with pytest.raises(ReadOnlyViolation, match="refused ec2:CreateVpc"):
        clients("ec2").create_vpc(CidrBlock="10.98.0.0/16")
    plain = boto3.client("ec2", region_name=REGION, endpoint_url=moto_endpoint)
    assert not any(v["CidrBlock"] == "10.98.0.0/16" for v in plain.describe_vpcs()["Vpcs"])
