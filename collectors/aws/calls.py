"""Declared API calls: each collector module lists what it calls, and the IAM action each needs."""

from __future__ import annotations

from dataclasses import dataclass

# A sanity net for declarations: a declared call must at least be named like a read. The guard itself
# (guard.py) admits only the exact declared operations, never a verb prefix.
READ_ONLY_VERBS = ("Describe", "List", "Get", "Search", "Head", "Filter")

# Where the IAM action is not `<service>:<operation>` (S3 names its actions after resources).
_IAM_EXCEPTIONS = {
    ("s3", "ListObjectsV2"): "s3:ListBucket",
    ("s3", "ListObjects"): "s3:ListBucket",
    ("s3", "HeadBucket"): "s3:ListBucket",
    ("s3", "HeadObject"): "s3:GetObject",
    ("s3", "ListObjectVersions"): "s3:ListBucketVersions",
    ("s3", "GetObjectLockConfiguration"): "s3:GetBucketObjectLockConfiguration",
}


def iam_action(service: str, operation: str) -> str:
    """The IAM action an API operation is authorized by, e.g. ('ec2', 'DescribeVpcs') -> ec2:DescribeVpcs."""
    return _IAM_EXCEPTIONS.get((service, operation), f"{service}:{operation}")


def is_read_only(operation: str) -> bool:
    return operation.startswith(READ_ONLY_VERBS)


@dataclass(frozen=True)
class ApiCall:
    """One operation a collector module may call: `service` is botocore's service name (ec2, s3, logs,
    sts: for these also the IAM prefix), `operation` botocore's operation name (DescribeVpcs)."""

    service: str
    operation: str

    @property
    def iam_action(self) -> str:
        return iam_action(self.service, self.operation)

    def __post_init__(self) -> None:
        if not is_read_only(self.operation):
            raise ValueError(f"{self.service}:{self.operation} is not a read-only operation")
