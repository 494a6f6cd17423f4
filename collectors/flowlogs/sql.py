"""The SQL the engine runs: typed columns for a field layout, and the one-pass conversation query."""

from __future__ import annotations

from dataclasses import dataclass

# Types make DuckDB reject what the reference reader calls garbled: a port that is not 0-65535, a
# protocol that is not 0-255, a count that is not a non-negative integer, an unknown action or status.
_TYPES = {
    "dstport": "USMALLINT",
    "protocol": "UTINYINT",
    "packets": "UBIGINT",
    "bytes": "UBIGINT",
    "start": "UBIGINT",
    "end": "UBIGINT",
    "action": "fl_action",
    "log-status": "fl_status",
}


def column(field: str) -> str:
    """The quoted DuckDB column name of a flow-log field."""
    return '"' + field.replace("-", "_") + '"'


@dataclass(frozen=True)
class Layout:
    """A field order, whether the files start with a header line naming it, and whether they are gzip
    (told by their magic bytes, not their names: DuckDB would go by the name)."""

    fields: tuple[str, ...]
    has_header: bool
    gzip: bool = False

    def columns_sql(self) -> str:
        items = ", ".join(f"'{f.replace('-', '_')}': '{_TYPES.get(f, 'VARCHAR')}'" for f in self.fields)
        return "{" + items + "}"

    def expr(self, field: str, default: str) -> str:
        return column(field) if field in self.fields else default


def conversation_sql(layout: Layout, source: str) -> str:
    """One row per conversation of OK records, and one per file for NODATA and SKIPDATA records.

    Columns: status, file, src, dst, dst port, protocol, action, records, packets, bytes, first start,
    last end, lowest and highest interface id (equal: one interface). A NULL status, or an OK record
    without action or address, lands in a row of its own, so the caller can tell them apart.
    """
    status = layout.expr("log-status", "'OK'::fl_status")
    ok = f"{status} = 'OK'"

    def when_ok(expr: str) -> str:
        return f"CASE WHEN {ok} THEN {expr} END"

    def value(field: str) -> str:
        return layout.expr(field, "NULL")

    return (
        f"SELECT {status}::VARCHAR AS st, CASE WHEN {status} IS DISTINCT FROM 'OK' THEN filename END AS f, "
        f"{when_ok(value('srcaddr'))} AS s, {when_ok(value('dstaddr'))} AS d, "
        f"{when_ok(value('dstport'))}::INTEGER AS p, {when_ok(value('protocol'))}::INTEGER AS pr, "
        f"{when_ok(value('action'))}::VARCHAR AS a, count(*) AS n, "
        f"sum({value('packets')})::HUGEINT AS pk, sum({value('bytes')})::HUGEINT AS b, "
        f"min({value('start')})::BIGINT AS t0, max({value('end')})::BIGINT AS t1, "
        f"min({value('interface-id')})::VARCHAR AS i0, max({value('interface-id')})::VARCHAR AS i1 "
        f"FROM {source} GROUP BY ALL"
    )
