"""The one read-only guard for AWS: a botocore event hook on the session admits exactly the operations the
collector modules declare (their `CALLS`, the list `auditor permissions aws` prints) and refuses every
other one before its parameters are even validated, let alone signed or sent.

A verb rule ("anything that starts with Describe/List/Get") is not a guard: it admits thousands of
operations, among them ones that mint credentials (sts:GetSessionToken, GetFederationToken,
cognito-identity:GetCredentialsForIdentity, ecr:GetAuthorizationToken) or create state. So the rule is an
exact (service, operation) list, single-sourced from `collectors.aws.permissions.declared_calls()`.

The hook is registered for `provide-client-params` (the first event of every API call, before
validation) and again for `before-call` (right before the request is built and sent), on the session's
event system before any client exists, so every client the session makes, paginators and waiters
included, inherits it.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from auditor.errors import ReadOnlyViolation
from collectors.aws.calls import iam_action

EVENTS = ("provide-client-params", "before-call")
UNIQUE_ID = "auditor-declared-operations-only"


def allowed_operations(extra: Iterable[tuple[str, str]] = ()) -> frozenset[tuple[str, str]]:
    """(botocore service name, operation name) of every declared call, plus `extra`."""
    from collectors.aws.permissions import declared_calls  # noqa: PLC0415 (permissions imports the collectors)

    return frozenset({(c.service, c.operation) for c in declared_calls()} | set(extra))


class OperationGuard:
    """The event handler: raise ReadOnlyViolation for any operation not in `allowed`."""

    def __init__(self, allowed: frozenset[tuple[str, str]]) -> None:
        self.allowed = allowed

    def admits(self, service: str, operation: str) -> bool:
        return (service, operation) in self.allowed

    def __call__(self, model: Any, **_: Any) -> None:
        service = str(model.service_model.service_name)
        if not self.admits(service, str(model.name)):
            action = iam_action(model.service_model.endpoint_prefix, model.name)
            raise ReadOnlyViolation(
                f"refused {action}: not one of the operations the AWS collector declares "
                "(`auditor permissions aws`); nothing was sent"
            )


def install_guard(events: Any, *, also_allow: Iterable[tuple[str, str]] = ()) -> OperationGuard:
    """Register the guard on a boto3/botocore event system (a session's, before any client is made, or a
    client's). `also_allow` names extra (service, operation) pairs, e.g. ("sts", "AssumeRole") on the role
    bootstrap client only. Registering again replaces the handler (same unique id)."""
    guard = OperationGuard(allowed_operations(also_allow))
    for event in EVENTS:
        events.register(event, guard, unique_id=f"{UNIQUE_ID}-{event}")
    return guard
