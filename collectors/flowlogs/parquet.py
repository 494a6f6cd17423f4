"""Parquet flow-log objects (S3 delivery with FileFormat=parquet): typed columns, so DuckDB reads them
directly; the rows the reference reader would call garbled are reported with their row number."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import duckdb

from auditor.normalize import Problem
from collectors.flowlogs.fields import KNOWN_FIELDS, Columns, LayoutError
from collectors.flowlogs.reference import add_line
from collectors.flowlogs.sql import Layout, column, conversation_sql
from collectors.flowlogs.totals import MIXED, AddressCache, Aggregate, FlowTotals

if TYPE_CHECKING:
    from collectors.flowlogs.engine import FlowObject

_FETCH = 50_000


def aggregate_parquet(
    con: duckdb.DuckDBPyConnection, objects: Sequence[FlowObject], totals: FlowTotals
) -> None:
    """Add the records of Parquet objects to `totals`; a file DuckDB cannot read is one problem."""
    readable = []
    for obj in objects:
        try:
            con.execute(f"SELECT count(*) FROM read_parquet({_quote(str(obj.path))})").fetchall()
            readable.append(obj)
        except duckdb.Error as exc:
            totals.problems.append(Problem(obj.origin, f"not a readable Parquet file: {exc}"))
    if not readable:
        return
    paths = "[" + ", ".join(_quote(str(o.path)) for o in readable) + "]"
    origins = {str(o.path): o.origin for o in readable}
    scan = f"read_parquet({paths}, union_by_name=true, filename=true, file_row_number=true)"
    names = [r[0] for r in con.execute(f"DESCRIBE SELECT * FROM {scan}").fetchall()]
    fields = tuple(n.replace("_", "-") for n in names if n.replace("_", "-") in KNOWN_FIELDS)
    try:
        columns = Columns.from_names(fields)
    except LayoutError as exc:
        for obj in readable:
            totals.problems.append(Problem(obj.origin, f"the Parquet schema {exc}"))
        return
    layout = Layout(fields, has_header=False)
    bad = _bad_predicate(layout)
    source = f"(SELECT * FROM {scan} WHERE NOT coalesce({bad}, false))"
    cursor = con.execute(conversation_sql(layout, source))
    addresses = AddressCache()
    bad_addresses: set[str] = set()
    while batch := cursor.fetchmany(_FETCH):
        for row in batch:
            status, file, src, dst, port, protocol, action, count, packets, nbytes, first, last, lo, hi = row
            if status == "OK":
                s, d = addresses.canonical(src), addresses.canonical(dst)
                if s is None or d is None:  # wholly malformed rows: reported below with their row numbers
                    bad_addresses.update(a for a, c in ((src, s), (dst, d)) if c is None)
                    continue
                totals.seen(first, last)
                interface = lo if lo == hi else MIXED
                totals.add(
                    (s, d, port, protocol, action),
                    Aggregate(packets or 0, nbytes or 0, count, first, last, interface),
                )
            else:
                totals.seen(first, last)
                totals.status(origins.get(file, file), status, count)
    select = ", ".join(f"{column(f)}::VARCHAR" for f in fields)
    src, dst = column("srcaddr"), column("dstaddr")
    locate = (
        f"SELECT filename, file_row_number, {select} FROM {scan} WHERE coalesce({bad}, false) "
        f"OR {src}::VARCHAR IN (SELECT unnest($bad)) OR {dst}::VARCHAR IN (SELECT unnest($bad)) "
        "ORDER BY filename, file_row_number"
    )
    cursor = con.execute(locate, {"bad": sorted(bad_addresses)})
    while batch := cursor.fetchmany(_FETCH):
        for file, row_number, *values in batch:
            parts = [_part(v) for v in values]
            add_line(parts, columns, addresses, totals, origins.get(file, file), int(row_number) + 1)


def _bad_predicate(layout: Layout) -> str:
    """Rows the reference reader calls garbled, in SQL (addresses are checked in Python afterwards)."""
    status = layout.expr("log-status", "'OK'")
    checks = [f"{column('action')}::VARCHAR NOT IN ('ACCEPT', 'REJECT')", f"{column('srcaddr')} IS NULL"]
    checks.append(f"{column('dstaddr')} IS NULL")
    bounds = {"dstport": 65535, "protocol": 255}
    for field in ("dstport", "protocol", "packets", "bytes", "start", "end"):
        if field in layout.fields:
            checks.append(f"{column(field)} < 0")
            if field in bounds:
                checks.append(f"{column(field)} > {bounds[field]}")
    ok = f"{status}::VARCHAR = 'OK' AND ({' OR '.join(checks)})"
    return f"({status} IS NULL OR {status}::VARCHAR NOT IN ('OK', 'NODATA', 'SKIPDATA') OR ({ok}))"


def _part(value: Any) -> bytes:
    return b"-" if value is None else str(value).encode("utf-8", "replace")


def _quote(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"
