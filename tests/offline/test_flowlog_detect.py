"""Offline detection of VPC flow-log objects: S3 writes a header line naming the fields in the order of the
flow log's LogFormat, so a custom format (AWS's documented example starts `version vpc-id subnet-id`) is
as much a flow log as the default one; a text whose first line only looks similar is not."""

from __future__ import annotations

from pathlib import Path

import pytest

from collectors.offline.classify import classify

NAME = "444455556666_vpcflowlogs_us-west-2_fl-0a5c7e9b1d3f24680_20261202T1405Z_7c1e9a3f.log"
# The custom format of AWS's documentation ("Example: custom flow log record"), as its S3 header.
AWS_CUSTOM = (
    "version vpc-id subnet-id instance-id interface-id account-id type srcaddr dstaddr srcport dstport "
    "pkt-srcaddr pkt-dstaddr protocol bytes packets start end action tcp-flags log-status\n"
    "3 vpc-0f3a9c1d7e5b20481 subnet-0b5f8d3a0c2e47169 - eni-0a8b2c4d6e8f01357 444455556666 IPv4 "
    "10.80.20.10 172.17.1.20 43388 22 10.80.20.10 172.17.1.20 6 15734 41 1796220331 1796220389 ACCEPT 19 OK\n"
)
DEFAULT = (
    "version account-id interface-id srcaddr dstaddr srcport dstport protocol packets bytes start end "
    "action log-status\n2 444455556666 eni-02c6d9e1f3a5b80ce 172.16.200.10 172.17.1.20 60214 22 6 212 "
    "40188 1796220303 1796220360 ACCEPT OK\n"
)
FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "flowlogs"


def _format(text: str, name: str = NAME) -> str | None:
    found = classify(Path(name), text.encode())
    return found.format if found else None


@pytest.mark.parametrize(
    "text",
    [
        AWS_CUSTOM,
        DEFAULT,
        "\ufeff" + AWS_CUSTOM,
        AWS_CUSTOM.replace("-", "_", 20).split("\n", 1)[0] + "\n",  # Athena/Parquet-style names
        (FIXTURES / "custom-v5-header" / "flows.log").read_text(),
        (FIXTURES / "default-v2-no-header" / "flows.log").read_text(),
    ],
    ids=["aws-custom", "default-header", "bom", "underscores", "custom-v5-fixture", "v2-no-header"],
)
def test_flow_log_objects_in_any_documented_field_order_are_flow_logs(text: str) -> None:
    assert _format(text) == "aws.flowlog"


@pytest.mark.parametrize(
    "text",
    [
        "version 15.2\nservice timestamps debug datetime msec\nhostname r1\n",  # IOS config head
        "version account-id interface-id\n2 444455556666 eni-0a\n",  # no srcaddr/dstaddr/action
        "version srcaddr dstaddr action colour\n2 10.0.0.1 10.0.0.2 ACCEPT red\n",  # an unknown field
        "# notes on the flow logs: version srcaddr dstaddr action\n",
    ],
    ids=["ios-version", "missing-required", "unknown-field", "prose"],
)
def test_texts_that_only_resemble_a_header_are_not_flow_logs(text: str) -> None:
    assert _format(text, "notes.log") != "aws.flowlog"
