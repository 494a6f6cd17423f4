"""The IAM actions the AWS collector calls, gathered from what each collector module declares.

Every module that makes calls lists them in a `CALLS` tuple; a test records every call made against a
local AWS (moto) and holds it to exactly this list, so the policy is neither short nor wide. The same
list is what the read-only guard admits (collectors/aws/guard.py): one source for both.
"""

from __future__ import annotations

import importlib
from typing import Any

from collectors.aws.calls import ApiCall

CALLING_MODULES = (
    "collectors.aws.collector",
    "collectors.aws.describe",
    "collectors.aws.destinations",
    "collectors.aws.records",
)


def declared_calls() -> list[ApiCall]:
    calls: list[ApiCall] = []
    for name in CALLING_MODULES:
        for call in importlib.import_module(name).CALLS:
            if call not in calls:
                calls.append(call)
    return calls


def declared_operations() -> list[str]:
    """Every API operation the AWS collector may call, as `service:Operation`, sorted: exactly what the
    read-only guard (`collectors.aws.guard`) admits."""
    return sorted({f"{call.service}:{call.operation}" for call in declared_calls()})


def required_actions() -> list[str]:
    """Every IAM action the AWS collector may call, sorted."""
    return sorted({call.iam_action for call in declared_calls()})


def iam_policy() -> dict[str, Any]:
    """A least-privilege IAM policy document granting exactly `required_actions()` (all read-only).
    A role_arn source also needs sts:AssumeRole on that role, granted to the caller, not in this policy."""
    return {
        "Version": "2012-10-17",
        "Statement": [
            {
                "Sid": "SegmentationAuditorReadOnly",
                "Effect": "Allow",
                "Action": required_actions(),
                "Resource": "*",
            }
        ],
    }
