"""A refused call hides only what it reads: named as a problem, its kind not covered (NOT_ASSESSED),
everything else still collected. Credentials that do not work fail the target with a clear reason."""

from __future__ import annotations

import json

import pytest

from auditor.enums import FactKind
from auditor.errors import CollectionError
from collectors.aws.permissions import iam_policy
from tests.aws_live.conftest import moto_api
from tests.aws_live.helpers import collect
from tests.aws_live.scenario import Estate, client

# moto's signature check fails on S3 query values holding "/" (ListObjectsV2 Prefix) once auth is on,
# so the S3 flow log is removed before auth is turned on (its records are tested without auth).
WITHHELD = ("ec2:DescribeNetworkAcls", "logs:FilterLogEvents", "logs:DescribeLogGroups")


def _restricted_user(endpoint: str, withheld: tuple[str, ...]) -> tuple[str, str]:
    iam = client(endpoint, "iam")
    iam.create_user(UserName="auditor")
    policy = iam_policy()
    policy["Statement"][0]["Action"] = [a for a in policy["Statement"][0]["Action"] if a not in withheld]
    iam.put_user_policy(UserName="auditor", PolicyName="audit", PolicyDocument=json.dumps(policy))
    key = iam.create_access_key(UserName="auditor")["AccessKey"]
    return key["AccessKeyId"], key["SecretAccessKey"]


def test_missing_permission_is_named_and_not_assessed(
    estate: Estate, moto_endpoint: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    key, secret = _restricted_user(moto_endpoint, WITHHELD)
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", key)
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", secret)
    client(moto_endpoint, "ec2").delete_flow_logs(FlowLogIds=[estate.s3_flow_log])
    moto_api(moto_endpoint, "reset-auth", b"0")  # from now on moto enforces IAM
    got = collect(moto_endpoint)
    messages = [f"{p.origin} {p.message} {p.hint}" for p in got.problems]
    acl = [m for m in messages if "ec2:DescribeNetworkAcls" in m]
    assert (
        len(acl) == 1 and "network ACLs not assessed" in acl[0] and "grant ec2:DescribeNetworkAcls" in acl[0]
    )
    records = [m for m in messages if "logs:FilterLogEvents" in m]
    assert len(records) == 1 and f"flow-log records of {estate.cw_flow_log} not assessed" in records[0]
    groups = [m for m in messages if "logs:DescribeLogGroups" in m]
    assert len(groups) == 1 and "immutability of flow-log destination /vpc/backend-flow-logs" in groups[0]
    assert FactKind.AWS_NETWORK_ACL not in got.covers
    assert got.facts(FactKind.AWS_NETWORK_ACL) == []
    # everything the permissions allow is still there
    for kind in (
        FactKind.AWS_VPC,
        FactKind.AWS_SECURITY_GROUP,
        FactKind.AWS_TGW_ROUTE_TABLE,
        FactKind.AWS_FLOW_LOG_CONFIG,
        FactKind.AWS_NETWORK_INTERFACE,
    ):
        assert kind in got.covers
    for kind in (FactKind.AWS_FLOW_LOG_DESTINATION, FactKind.FLOW_CONVERSATION, FactKind.FLOW_LOG_STATS):
        assert kind not in got.covers


def test_rejected_credentials_fail_the_target(
    estate: Estate, moto_endpoint: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "AKIAEXPIREDEXPIRED00")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "not-a-secret")
    moto_api(moto_endpoint, "reset-auth", b"0")
    with pytest.raises(CollectionError) as info:
        collect(moto_endpoint)
    text = str(info.value)
    assert text.startswith("default/us-east-1: the AWS credentials were rejected (expired or invalid)")
    assert "refresh the credentials" in text
    assert "not-a-secret" not in text
