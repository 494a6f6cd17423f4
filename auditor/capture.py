"""The raw capture: what a collector hands over. It fetches; it never interprets."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime


@dataclass(frozen=True)
class RawCapture:
    """Exactly what came back, from where, when, and in answer to what.

    `format` names the normalizer that reads it (e.g. "eos.running-config", "aws.describe").
    `meta` carries what the normalizer needs that is not in the bytes (platform, tier, role,
    account, region, cluster); it is stored and hashed with the capture, so re-normalizing old
    evidence gives the same facts.
    """

    target: str
    format: str
    source: str  # the exact command, API call or file read
    origin: str  # file path, host:port or endpoint
    collected_at: datetime
    content: bytes
    meta: dict[str, str] = field(default_factory=dict)
    # A large object kept where it lives (e.g. a flow-log object under S3 Object Lock): the store keeps
    # only its URI, SHA-256 and size (chained like any capture), and `content` is left empty.
    content_uri: str | None = None
    content_sha256: str | None = None
    content_size: int | None = None
