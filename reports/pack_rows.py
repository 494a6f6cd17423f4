"""Store rows as the evidence pack holds them, and back: one generic JSON form per table column.

Generic over the models' columns, so a column added by a migration travels in the pack without a change
here. Timestamps are `chain.utc_stamp` text (the form the chain and the seal hash), binary columns are
left out (capture bytes are files of their own), everything else is the JSON value as stored."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import DateTime, FromClause, LargeBinary

from auditor.evidence.chain import utc_stamp

STAMP_FORMAT = "%Y-%m-%dT%H:%M:%S.%fZ"


def row_json(table: FromClause, row: Any, *, skip: tuple[str, ...] = ()) -> dict[str, Any]:
    """One stored row as JSON values, every column of the table except binary ones and `skip`."""
    out: dict[str, Any] = {}
    for col in table.c:
        if col.name in skip or isinstance(col.type, LargeBinary):
            continue
        value = getattr(row, col.name)
        out[col.name] = utc_stamp(value) if isinstance(value, datetime) else value
    return out


def parse_stamp(text: str) -> datetime:
    """The inverse of utc_stamp, as the naive UTC value SQLite hands back (utc_stamp reads it as UTC)."""
    return datetime.strptime(text, STAMP_FORMAT).replace(tzinfo=UTC).replace(tzinfo=None)


def row_values(table: FromClause, data: dict[str, Any]) -> dict[str, Any]:
    """A packed row as insert values for `table`: known columns only, timestamps parsed back."""
    out: dict[str, Any] = {}
    for col in table.c:
        if col.name not in data:
            continue
        value = data[col.name]
        if isinstance(col.type, DateTime) and isinstance(value, str):
            value = parse_stamp(value)
        out[col.name] = value
    return out
