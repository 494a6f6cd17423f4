"""Flow-log destinations and whether they keep records immutably: S3 Object Lock and versioning of the
bucket, or the CloudWatch log group's retention. One capture per destination, in the joined shape the
`aws.describe` normalizer reads as `FlowLogDestinations` (see normalizers/aws_transit)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from botocore.exceptions import ClientError

from auditor.capture import RawCapture
from auditor.normalize import Problem
from collectors.aws.calls import ApiCall
from collectors.aws.errors import error_code
from collectors.aws.reader import CallFailed, Denied, Reader

CALLS: tuple[ApiCall, ...] = (
    ApiCall("s3", "GetObjectLockConfiguration"),
    ApiCall("s3", "GetBucketVersioning"),
    ApiCall("logs", "DescribeLogGroups"),
)
NO_LOCK = "ObjectLockConfigurationNotFoundError"


def bucket_of(arn: str) -> tuple[str, str]:
    """(bucket, key prefix) of an S3 destination ARN `arn:aws:s3:::bucket/optional/prefix`."""
    path = arn.split(":::", 1)[-1]
    bucket, _, prefix = path.partition("/")
    return bucket, prefix.strip("/")


def destinations(flow_logs: list[dict[str, Any]]) -> list[tuple[str, str]]:
    """Unique (type, destination) pairs: the bucket ARN or the log group name."""
    found: list[tuple[str, str]] = []
    for flow_log in flow_logs:
        kind = flow_log.get("LogDestinationType") or "cloud-watch-logs"
        if kind == "s3" and flow_log.get("LogDestination"):
            bucket, _ = bucket_of(str(flow_log["LogDestination"]))
            pair = ("s3", f"arn:aws:s3:::{bucket}")
        elif kind == "cloud-watch-logs" and flow_log.get("LogGroupName"):
            pair = ("cloud-watch-logs", str(flow_log["LogGroupName"]))
        elif flow_log.get("LogDestination"):
            pair = (kind, str(flow_log["LogDestination"]))
        else:
            continue
        if pair not in found:
            found.append(pair)
    return found


def collect_destinations(reader: Reader, flow_logs: list[dict[str, Any]]) -> Iterator[RawCapture | Problem]:
    for kind, destination in destinations(flow_logs):
        what = f"immutability of flow-log destination {destination}"
        try:
            if kind == "s3":
                item, params = _s3(reader, destination), {"Bucket": bucket_of(destination)[0]}
                operation = "GetObjectLockConfiguration+GetBucketVersioning"
            elif kind == "cloud-watch-logs":
                item, params = _log_group(reader, destination), {"logGroupNamePrefix": destination}
                operation = "DescribeLogGroups"
            else:  # Kinesis Data Firehose: what happens downstream is outside what the auditor can read
                item, params = {"DestinationType": kind, "Destination": destination}, {}
                operation = "DescribeFlowLogs"
        except Denied as exc:
            yield reader.denied_problem(exc, what)
            continue
        except CallFailed as exc:
            yield reader.failed_problem(exc, what)
            continue
        service = {"s3": "s3", "cloud-watch-logs": "logs"}.get(kind, "ec2")
        yield reader.capture(service, operation, params, 1, {"FlowLogDestinations": [item]})


def _s3(reader: Reader, arn: str) -> dict[str, Any]:
    bucket, _ = bucket_of(arn)
    try:
        lock: dict[str, Any] | None = reader.call("s3", "GetObjectLockConfiguration", Bucket=bucket).get(
            "ObjectLockConfiguration"
        )
    except CallFailed as exc:
        cause = exc.__cause__
        if not (isinstance(cause, ClientError) and error_code(cause) == NO_LOCK):
            raise
        lock = None  # the bucket has no Object Lock configuration: an answer, not an error
    versioning = reader.call("s3", "GetBucketVersioning", Bucket=bucket)
    return {
        "DestinationType": "s3",
        "Destination": arn,
        "Bucket": bucket,
        "ObjectLockConfiguration": lock,
        "Versioning": {k: v for k, v in versioning.items() if k != "ResponseMetadata"},
    }


def _log_group(reader: Reader, name: str) -> dict[str, Any]:
    group = None
    for page in reader.pages("logs", "DescribeLogGroups", logGroupNamePrefix=name):
        for item in page.get("logGroups") or []:
            if item.get("logGroupName") == name:
                group = item
    return {"DestinationType": "cloud-watch-logs", "Destination": name, "LogGroup": group}
