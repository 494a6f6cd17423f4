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
# One text column past the last field, for the one-pass scan (`checked_sql`): it holds the first surplus
# field of an over-wide line, whatever it is ('-' included: that scan has no NULL string), and is NULL
# (padding) on a line of the right width; surplus fields past it are dropped, so a crafted line of
# 60,000 fields costs one row, not one rejected row per field.
SURPLUS = "fl_surplus"
NO_NULL = "\x01auditor-no-null\x01"  # a NULL string no field ever is
_NULLABLE = frozenset(("srcaddr", "dstaddr", "interface-id"))  # text fields the typed scan reads '-' as NULL


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

    def text_columns_sql(self) -> str:
        """Every field as text, and the surplus column: what the one-pass scan reads."""
        items = [f"'{f.replace('-', '_')}': 'VARCHAR'" for f in (*self.fields, SURPLUS)]
        return "{" + ", ".join(items) + "}"

    def expr(self, field: str, default: str) -> str:
        return column(field) if field in self.fields else default


def checked_sql(layout: Layout, source: str) -> str:
    """The one-pass scan: the text columns of `source` (read with `text_columns_sql`, no NULL string,
    null_padding) typed as `columns_sql` types them ('-' is NULL), with log-status NULL on a line of the
    wrong width: a surplus field, or a missing one (padding leaves the last field NULL, which no field
    read as text is); `conversation_sql` puts those in rows of their own. A value of the wrong type (a
    port of 70000, an unknown action or status) fails the whole query, as DuckDB's casts do: the caller
    then finds the file by running each file alone. An OK record without action or address ('-') keeps
    its NULL, as the typed scan gives it, for the caller to judge."""
    status = column("log-status") if "log-status" in layout.fields else "'OK'"
    wrong_width = f"{column(SURPLUS)} IS NOT NULL OR {column(layout.fields[-1])} IS NULL"
    typed = []
    for field in layout.fields:
        if field == "log-status":
            continue
        name, kind = column(field), _TYPES.get(field)
        value = f"nullif({name}, '-')" if field in _NULLABLE or kind else name
        typed.append(f"{f'CAST({value} AS {kind})' if kind else value} AS {name}")
    return (
        f"SELECT filename, CASE WHEN {wrong_width} THEN NULL ELSE CAST({status} AS fl_status) END "
        f"AS {column('log-status')}, {', '.join(typed)} FROM {source}"
    )


def conversation_sql(layout: Layout, source: str, *, checked: bool = False) -> str:
    """One row per conversation of OK records, and one per file for NODATA and SKIPDATA records.

    Columns: status, file, src, dst, dst port, protocol, action, records, packets, bytes, first start,
    last end, lowest and highest interface id (equal: one interface). A NULL status, or an OK record
    without action or address, lands in a row of its own, so the caller can tell them apart. A
    `checked` source (`checked_sql`) always has a log-status column (NULL on a line to reject).
    """
    status = column("log-status") if checked else layout.expr("log-status", "'OK'::fl_status")
    ok = f"{status} = 'OK'"

    def when_ok(expr: str) -> str:
        return f"CASE WHEN {ok} THEN {expr} END"

    def value(field: str, default: str = "NULL") -> str:
        return layout.expr(field, default)

    return (
        f"SELECT {status} AS st, CASE WHEN {status} IS DISTINCT FROM 'OK' THEN filename END AS f, "
        f"{when_ok(value('srcaddr'))} AS s, {when_ok(value('dstaddr'))} AS d, "
        f"{when_ok(value('dstport', 'NULL::USMALLINT'))} AS p, "
        f"{when_ok(value('protocol', 'NULL::UTINYINT'))} AS pr, "
        f"{when_ok(value('action'))}::VARCHAR AS a, count(*) AS n, "
        f"sum({value('packets', 'NULL::UBIGINT')}) AS pk, sum({value('bytes', 'NULL::UBIGINT')}) AS b, "
        f"min({value('start', 'NULL::UBIGINT')}) AS t0, max({value('end', 'NULL::UBIGINT')}) AS t1, "
        f"min({value('interface-id', 'NULL::VARCHAR')}) AS i0, "
        f"max({value('interface-id', 'NULL::VARCHAR')}) AS i1 "
        f"FROM {source} GROUP BY ALL"
    )
