"""The values of a Parquet object, as text the scanner can read.

Parquet pages are usually compressed, so a secret in a column is not in the raw bytes; DuckDB (already
the flow-log engine) reads the columns back. Only the scanner's token patterns look at the result: a
Parquet object cannot be edited in place, so a hit means the object is refused, never stored.
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from pathlib import Path

import duckdb

__all__ = ["parquet_text"]

_BATCH = 10_000


def parquet_text(content: bytes) -> Iterator[str]:
    """Batches of the object's values joined as text; nothing when DuckDB cannot read it."""
    with tempfile.TemporaryDirectory(prefix="auditor-redact-") as tmp:
        path = Path(tmp) / "object.parquet"
        path.write_bytes(content)
        con = duckdb.connect()
        try:
            cursor = con.execute("SELECT * FROM read_parquet(?)", [str(path)])
            while rows := cursor.fetchmany(_BATCH):
                yield "\n".join(" ".join("" if v is None else str(v) for v in row) for row in rows)
        except duckdb.Error:
            return
        finally:
            con.close()
