"""The one read-only guard for AWS: a botocore `before-call` handler on the session refuses any operation
that is not Describe/List/Get/Search/Head/Filter before the request is signed or sent."""

from __future__ import annotations

from typing import Any

from auditor.errors import ReadOnlyViolation
from collectors.aws.calls import iam_action, is_read_only


def refuse_writes(model: Any, **_: Any) -> None:
    """`before-call` handler: raise for any operation that could change state."""
    if not is_read_only(model.name):
        action = iam_action(model.service_model.endpoint_prefix, model.name)
        raise ReadOnlyViolation(f"refused {action}: the AWS collector only reads")


def install_guard(events: Any, *, also_allow: frozenset[str] = frozenset()) -> None:
    """Register the guard on a boto3/botocore event system (a session's, before any client is made, or a
    client's). `also_allow` names extra operations, e.g. sts AssumeRole on the bootstrap client only."""

    def guard(model: Any, **kwargs: Any) -> None:
        if model.name not in also_allow:
            refuse_writes(model, **kwargs)

    events.register("before-call", guard, unique_id="auditor-read-only-guard")
