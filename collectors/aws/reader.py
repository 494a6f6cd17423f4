"""Paginated, error-classified API reads for one target (one account and region)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from botocore.exceptions import (
    BotoCoreError,
    ClientError,
    ConnectTimeoutError,
    EndpointConnectionError,
    NoCredentialsError,
    ReadTimeoutError,
)
from botocore.parsers import ResponseParserError

from auditor.capture import RawCapture
from auditor.errors import CollectionError
from auditor.normalize import Problem
from collectors.aws.calls import iam_action
from collectors.aws.capture import page_capture
from collectors.aws.errors import is_credential_failure, is_denied, message_of
from collectors.aws.session import Clients


class Denied(Exception):
    """A call was refused for lack of an IAM permission; `action` names it."""

    def __init__(self, action: str, message: str) -> None:
        super().__init__(f"{action}: {message}")
        self.action = action


class CallFailed(Exception):
    """A call failed for another reason than permissions or credentials (the rest goes on)."""


@dataclass
class Reader:
    target: str
    account: str
    region: str
    clients: Clients
    origin: str

    def call(self, service: str, operation: str, **params: Any) -> dict[str, Any]:
        """One call; raises Denied, CallFailed, or CollectionError when the credentials stopped working."""
        client = self.clients(service)
        method = getattr(client, _snake(client, operation))
        try:
            response: dict[str, Any] = method(**params)
        except ClientError as exc:
            raise self._classify(exc, service, operation) from exc
        except NoCredentialsError as exc:
            raise CollectionError(
                "no AWS credentials found", target=self.target, hint="set a profile, role_arn or AWS_* env"
            ) from exc
        except (BotoCoreError, ResponseParserError) as exc:
            raise CallFailed(_failure(service, operation, exc)) from exc
        return response

    def pages(self, service: str, operation: str, **params: Any) -> Iterator[dict[str, Any]]:
        """Every page of a paginated operation (one page when it does not paginate)."""
        client = self.clients(service)
        name = _snake(client, operation)
        if not client.can_paginate(name):
            yield self.call(service, operation, **params)
            return
        try:
            yield from client.get_paginator(name).paginate(**params)
        except ClientError as exc:
            raise self._classify(exc, service, operation) from exc
        except NoCredentialsError as exc:
            raise CollectionError(
                "no AWS credentials found", target=self.target, hint="set a profile, role_arn or AWS_* env"
            ) from exc
        except (BotoCoreError, ResponseParserError) as exc:
            raise CallFailed(_failure(service, operation, exc)) from exc

    def _classify(self, exc: ClientError, service: str, operation: str) -> Exception:
        action = iam_action(service, operation)
        if is_denied(exc):
            return Denied(action, message_of(exc))
        if is_credential_failure(exc):
            return CollectionError(
                f"the AWS credentials were rejected on {action} ({message_of(exc)})",
                target=self.target,
                hint="they are expired or invalid: refresh them (aws sso login, a new token) and re-run",
            )
        return CallFailed(f"{action} failed: {message_of(exc)}")

    def denied_problem(self, exc: Denied, what: str) -> Problem:
        return Problem(
            f"{self.target}: {exc.action}",
            f"missing IAM permission {exc.action}: {what} not assessed",
            hint=f"grant {exc.action} (see `auditor permissions aws`)",
        )

    def failed_problem(self, exc: CallFailed, what: str) -> Problem:
        return Problem(
            self.target, f"{exc}: {what} not assessed", hint="re-run; if it persists, check the API"
        )

    def capture_pages(
        self, service: str, operation: str, params: dict[str, Any], what: str
    ) -> Iterator[RawCapture | Problem]:
        """One capture per page, once every page is in; a refused or failed call becomes one Problem
        (what it hides is not covered, so its checks say NOT_ASSESSED)."""
        try:  # all pages or none: a listing cut short must not look complete
            pages = list(self.pages(service, operation, **params))
        except Denied as exc:
            yield self.denied_problem(exc, what)
            return
        except CallFailed as exc:
            yield self.failed_problem(exc, what)
            return
        for number, page in enumerate(pages, start=1):
            yield self.capture(service, operation, params, number, page)

    def capture(
        self, service: str, operation: str, params: dict[str, Any], number: int, body: dict[str, Any]
    ) -> RawCapture:
        return page_capture(
            target=self.target,
            account=self.account,
            region=self.region,
            service=service,
            operation=operation,
            params=params,
            page_number=number,
            body=body,
            origin=self.origin,
        )


def _failure(service: str, operation: str, exc: Exception) -> str:
    """One call's failure with its real cause first: timed out, unreachable, or something else. Each is
    that call's failure only (its Problem); the target's other calls go on."""
    action = iam_action(service, operation)
    if isinstance(exc, ReadTimeoutError):
        return f"{action} timed out (no answer within collection.command_timeout after retries: {exc})"
    if isinstance(exc, EndpointConnectionError | ConnectTimeoutError):
        return f"{action} could not reach the endpoint ({exc})"
    return f"{action}: {exc}"


def _snake(client: Any, operation: str) -> str:
    """The client method of an operation name (DescribeVpcs -> describe_vpcs), from the client's own map."""
    names: dict[str, str] = {v: k for k, v in client.meta.method_to_api_mapping.items()}
    return names[operation]
