"""Turning API responses into raw captures: one capture per response page, as JSON, naming the call."""

from __future__ import annotations

import json
from datetime import UTC, date, datetime
from typing import Any

from auditor.capture import RawCapture

FORMAT = "aws.describe"


def _default(value: Any) -> Any:
    if isinstance(value, datetime):
        return value.astimezone(UTC).isoformat() if value.tzinfo else value.isoformat()
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    raise TypeError(f"cannot store {type(value).__name__} in a capture")


def page_json(page: dict[str, Any]) -> bytes:
    """The response as JSON, without the transport metadata (request id, HTTP headers)."""
    body = {k: v for k, v in page.items() if k != "ResponseMetadata"}
    return json.dumps(body, default=_default, indent=1).encode()


def call_text(service: str, operation: str, params: dict[str, Any], page: int | None = None) -> str:
    """`ec2:DescribeVpcs(MaxResults=1000) page 2`: the call exactly as made, for the evidence."""
    args = ", ".join(f"{k}={json.dumps(v, default=_default)}" for k, v in sorted(params.items()))
    text = f"{service}:{operation}({args})"
    return f"{text} page {page}" if page is not None else text


def page_capture(
    *,
    target: str,
    account: str,
    region: str,
    service: str,
    operation: str,
    params: dict[str, Any],
    page_number: int,
    body: dict[str, Any],
    origin: str,
    fmt: str = FORMAT,
) -> RawCapture:
    return RawCapture(
        target=target,
        format=fmt,
        source=call_text(service, operation, params, page_number),
        origin=origin,
        collected_at=datetime.now(UTC),
        content=page_json(body),
        meta={
            "account": account,
            "region": region,
            "service": service,
            "operation": operation,
            "page": str(page_number),
        },
    )
