"""What an AWS error means for the audit: a missing permission (NOT_ASSESSED for what it hides), a
credential that no longer works (the target fails), or something else about one call."""

from __future__ import annotations

from typing import Any

from botocore.exceptions import ClientError

DENIED = frozenset(
    {
        "AccessDenied",
        "AccessDeniedException",
        "UnauthorizedOperation",
        "UnauthorizedAccess",
        "AuthorizationError",
        "AuthorizationErrorException",
        "403",
    }
)
CREDENTIALS = frozenset(
    {
        "ExpiredToken",
        "ExpiredTokenException",
        "RequestExpired",
        "InvalidClientTokenId",
        "UnrecognizedClientException",
        "AuthFailure",
        "InvalidAccessKeyId",
        "SignatureDoesNotMatch",
        "InvalidToken",
    }
)


def error_code(exc: ClientError) -> str:
    error: dict[str, Any] = exc.response.get("Error") or {}
    return str(error.get("Code") or exc.response.get("ResponseMetadata", {}).get("HTTPStatusCode") or "")


def is_denied(exc: ClientError) -> bool:
    return error_code(exc) in DENIED


def is_credential_failure(exc: ClientError) -> bool:
    return error_code(exc) in CREDENTIALS


def message_of(exc: ClientError) -> str:
    error: dict[str, Any] = exc.response.get("Error") or {}
    return str(error.get("Message") or error_code(exc))
