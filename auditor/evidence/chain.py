"""Hashing and chaining of captures.

Each capture's link hash covers its metadata, its content hash and the previous link, so changing,
removing, inserting or reordering any capture breaks every later link and the sealed head."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

CHAIN_VERSION = "auditor-chain-v1"


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def canonical_json(obj: Any) -> bytes:
    """Deterministic JSON: sorted keys, no whitespace, UTF-8. The same value always hashes the same."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def utc_stamp(moment: datetime) -> str:
    """One textual form for timestamps, whatever the database hands back (naive SQLite or aware PG)."""
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def genesis_hash(run_id: int, started_at: datetime) -> str:
    """The chain's anchor, bound to the run so a capture cannot be replayed into another run."""
    return sha256_hex(
        canonical_json({"chain": CHAIN_VERSION, "run": run_id, "started_at": utc_stamp(started_at)})
    )


@dataclass(frozen=True)
class LinkInput:
    """Everything a link hash covers."""

    run_id: int
    seq: int
    target: str
    format: str
    source: str
    origin: str
    collected_at: datetime
    meta: Mapping[str, str]
    size: int
    content_sha256: str
    redactions: int

    def header(self) -> dict[str, Any]:
        return {
            "run": self.run_id,
            "seq": self.seq,
            "target": self.target,
            "format": self.format,
            "source": self.source,
            "origin": self.origin,
            "collected_at": utc_stamp(self.collected_at),
            "meta": dict(self.meta),
            "size": self.size,
            "content_sha256": self.content_sha256,
            "redactions": self.redactions,
        }


def link_hash(prev_hash: str, link: LinkInput) -> str:
    return sha256_hex(canonical_json({"chain": CHAIN_VERSION, "prev": prev_hash, **link.header()}))


def digest_rows(rows: Iterable[Any]) -> str:
    """A digest over an ordered sequence of JSON-able rows (facts or findings of a run)."""
    h = hashlib.sha256()
    for row in rows:
        h.update(canonical_json(row))
        h.update(b"\n")
    return h.hexdigest()
