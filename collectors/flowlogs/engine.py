"""The DuckDB engine: many flow-log objects aggregated into conversations in one streaming pass.

DuckDB reads the gzip text (or Parquet) files itself, in parallel across files, and keeps only one row
per conversation, so memory follows the number of conversations, not of records (it spills to a temp
directory past `memory_limit`). What it cannot decide alone goes to the reference reader
(reference.py): a file with a line DuckDB rejected (wrong field count, a line longer than any record, a
number that is not one, an unknown action or status) is read whole by the reference reader, which
reports each line exactly; so are files it cannot read at all (a truncated gzip, a header that changes
mid-file, an address that is not an address). Results are the same either way.

That scan reads every field as text and types it in SQL (sql.checked_sql), so the lines of the wrong
width (sql.SURPLUS) and of the wrong types are found in the same pass that aggregates, with no second
scan: only the files holding such a line are read again, by the reference reader.
"""

from __future__ import annotations

import gzip
import logging
import tempfile
import zlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import duckdb

from auditor.normalize import Problem
from collectors.flowlogs.fields import DEFAULT_FIELDS, Columns, LayoutError, header_fields
from collectors.flowlogs.parquet import aggregate_parquet
from collectors.flowlogs.reference import GZIP_MAGIC, read_stream
from collectors.flowlogs.sql import NO_NULL, Layout, checked_sql, column, conversation_sql
from collectors.flowlogs.totals import AddressCache, ConversationBlock, FlowTotals

log = logging.getLogger(__name__)
_FETCH = 50_000
MAX_LINE_BYTES = 65_536  # a flow-log record is a few hundred bytes, whatever its fields


@dataclass(frozen=True)
class FlowObject:
    """One flow-log object on local disk: `origin` is what problems name (an S3 URI, a file path)."""

    path: Path
    origin: str
    fields: tuple[str, ...] | None = None  # the flow log's LogFormat order when the text has no header
    parquet: bool = False


class FlowLogEngine:
    """Aggregates flow-log objects. One engine per aggregation; it owns a private DuckDB connection."""

    def __init__(
        self, *, memory_limit: str = "1GB", threads: int | None = None, temp_dir: Path | None = None
    ) -> None:
        self._tmp = tempfile.TemporaryDirectory(prefix="auditor-duckdb-", dir=temp_dir)
        config: dict[str, Any] = {
            "memory_limit": memory_limit,
            "temp_directory": self._tmp.name,
            "preserve_insertion_order": False,
        }
        if threads is not None:
            config["threads"] = threads
        self.con = duckdb.connect(":memory:", config=config)
        self.con.execute("CREATE TYPE fl_action AS ENUM ('ACCEPT', 'REJECT')")
        self.con.execute("CREATE TYPE fl_status AS ENUM ('OK', 'NODATA', 'SKIPDATA')")
        self._scan = 0

    def close(self) -> None:
        self.con.close()
        self._tmp.cleanup()

    def __enter__(self) -> FlowLogEngine:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def aggregate(self, objects: Sequence[FlowObject]) -> FlowTotals:
        """Every conversation, count and problem of these objects, as if read one after another."""
        totals = FlowTotals(files=len(objects))
        groups: dict[Layout, list[FlowObject]] = {}
        fallback: list[tuple[FlowObject, Columns]] = []
        parquet = [o for o in objects if o.parquet]
        for obj in (o for o in objects if not o.parquet):
            layout = self._layout(obj, totals)
            if layout is not None:
                groups.setdefault(layout, []).append(obj)
        for layout, members in groups.items():
            fallback += self._text_group(layout, members, totals)
        for obj, columns in fallback:
            log.info("reading %s with the reference reader", obj.origin)
            with obj.path.open("rb") as stream:
                read_stream(stream, obj.origin, totals, columns)
        if parquet:
            aggregate_parquet(self.con, parquet, totals)
        _order_problems(totals)
        totals.finish()
        return totals

    def _layout(self, obj: FlowObject, totals: FlowTotals) -> Layout | None:
        """The field order of a text object: its header when line 1 is one, else the declared fields."""
        try:
            fields = obj.fields or DEFAULT_FIELDS
            Columns.from_names(fields)
        except LayoutError as exc:
            totals.problems.append(
                Problem(obj.origin, f"the flow log's format {exc}", hint="check the flow log's LogFormat")
            )
            return None
        with obj.path.open("rb") as raw:
            compressed = raw.read(2) == GZIP_MAGIC
        first = _first_line(obj.path).split()
        header = header_fields(first) if first else None
        if header is not None:
            return Layout(header, has_header=True, gzip=compressed)
        return Layout(fields, has_header=False, gzip=compressed)

    def _text_group(
        self, layout: Layout, members: list[FlowObject], totals: FlowTotals
    ) -> list[tuple[FlowObject, Columns]]:
        """Aggregate one group of same-layout text files; returns those the reference reader must read."""
        try:
            columns = Columns.from_names(layout.fields)
        except LayoutError:  # a header without srcaddr/dstaddr/action: the reference reader reports it
            return [(o, Columns.from_names(DEFAULT_FIELDS)) for o in members]
        fallback: list[tuple[FlowObject, Columns]] = []
        files = list(members)
        while files:
            try:
                rejected = self._run_text(layout, files)
            except duckdb.Error as exc:
                log.info("DuckDB cannot read a file of this group (%s); reading each alone", exc)
                bad = [o for o in files if not self._readable(layout, o)] or files
                fallback += [(o, columns) for o in bad]
                files = [o for o in files if o not in bad]
                continue
            # DuckDB's line numbers for rejected rows are not reliable (off by one after some rejects),
            # so a file with any rejected line is read whole by the reference reader, which names each
            # line exactly; malformed lines are rare in delivered flow logs, so this path is too.
            anomalous: set[str] = set()
            canonical: dict[str, str | None] = {}
            if not rejected:
                canonical = self._addresses()
                bad_addresses = sorted(a for a, c in canonical.items() if c is None)
                if bad_addresses or self._has_anomaly():  # the scan only runs when there is something to find
                    anomalous = self._anomalous(layout, files, bad_addresses)
            if rejected or anomalous:
                fallback += [(o, columns) for o in files if o.origin in (rejected | anomalous)]
                files = [o for o in files if o.origin not in (rejected | anomalous)]
                continue
            self._apply_table({str(o.path): o.origin for o in files}, canonical, totals)
            break
        self.con.execute("DROP TABLE IF EXISTS fl_conv")
        return fallback

    def _read_csv(
        self, layout: Layout, files: list[FlowObject], *, rejects: str | None, checked: bool = False
    ) -> str:
        """read_csv of the files. `checked` (the one-pass scan): every field as text with no NULL string,
        the surplus column (sql.SURPLUS) after them and surplus fields beyond it dropped, short lines
        padded, so sql.checked_sql finds each line of the wrong width in the same pass; a line longer
        than any record is rejected whole. (With strict mode instead, DuckDB's reject store writes one
        row per surplus field, each holding the whole line: a crafted line of 60,000 spaces cost 14 s.)
        Otherwise typed columns, '-' as NULL, and rows that do not fit skipped: for probing files that
        the one-pass scan has already judged."""
        paths = ", ".join(_quote(str(o.path)) for o in files)
        options = [
            "delim=' '",
            "quote=''",
            "escape=''",
            f"header={str(layout.has_header).lower()}",
            "auto_detect=false",
            "filename=true",
            f"compression='{'gzip' if layout.gzip else 'none'}'",
        ]
        if checked:
            options += [f"nullstr={_quote(NO_NULL)}", f"columns={layout.text_columns_sql()}"]
            options += ["strict_mode=false", "null_padding=true", f"max_line_size={MAX_LINE_BYTES}"]
        else:
            options += ["nullstr='-'", f"columns={layout.columns_sql()}"]
        options.append("ignore_errors=true")
        if rejects is not None:
            options += ["store_rejects=true", f"rejects_table='{rejects}_errors'"]
            options.append(f"rejects_scan='{rejects}_scans'")
        return f"read_csv([{paths}], {', '.join(options)})"

    def _run_text(self, layout: Layout, files: list[FlowObject]) -> set[str]:
        """Aggregate the files into the table fl_conv (one row per conversation, and per file for
        NODATA/SKIPDATA) in one scan; returns the origins of the files holding a line DuckDB rejected
        or sql.checked_sql flagged."""
        self._scan += 1
        name = f"rej{self._scan}"
        source = checked_sql(layout, self._read_csv(layout, files, rejects=name, checked=True))
        query = conversation_sql(layout, f"({source})", checked=True)
        try:
            self.con.execute(f"CREATE OR REPLACE TEMP TABLE fl_conv AS {query}")
            found = self.con.execute(
                f"SELECT DISTINCT s.file_path FROM {name}_errors e "
                f"JOIN {name}_scans s ON e.scan_id = s.scan_id AND e.file_id = s.file_id "
                "UNION SELECT DISTINCT f FROM fl_conv WHERE st IS NULL"
            ).fetchall()
        finally:
            self.con.execute(f"DROP TABLE IF EXISTS {name}_errors; DROP TABLE IF EXISTS {name}_scans")
        by_path = {str(o.path): o.origin for o in files}
        return {by_path.get(path, path) for (path,) in found}

    def _addresses(self) -> dict[str, str | None]:
        """Each distinct address of the OK conversations, with its canonical text (None: not an address)."""
        cursor = self.con.execute(
            "SELECT DISTINCT x FROM (SELECT s AS x FROM fl_conv WHERE st = 'OK' "
            "UNION ALL SELECT d FROM fl_conv WHERE st = 'OK') WHERE x IS NOT NULL"
        )
        addresses = AddressCache()
        found: dict[str, str | None] = {}
        while batch := cursor.fetchmany(_FETCH):
            for (raw,) in batch:
                found[raw] = addresses.canonical(raw)
        return found

    def _has_anomaly(self) -> bool:
        """A row the reference reader must judge: no status, or an OK record without action or address."""
        row = self.con.execute(
            "SELECT count(*) FROM fl_conv WHERE st IS NULL "
            "OR (st = 'OK' AND (a IS NULL OR s IS NULL OR d IS NULL))"
        ).fetchone()
        return bool(row and row[0])

    def _readable(self, layout: Layout, obj: FlowObject) -> bool:
        """Whether the one-pass scan reads this file alone without an error (a value of the wrong type,
        a truncated gzip)."""
        if obj.path.read_bytes()[:2] == GZIP_MAGIC and not _gzip_whole(obj.path):
            return False
        source = checked_sql(layout, self._read_csv(layout, [obj], rejects=None, checked=True))
        try:  # materialised, so that every column is cast
            query = conversation_sql(layout, f"({source})", checked=True)
            self.con.execute(f"CREATE OR REPLACE TEMP TABLE fl_probe AS {query}")
        except duckdb.Error:
            return False
        finally:
            self.con.execute("DROP TABLE IF EXISTS fl_probe")
        return True

    def _anomalous(self, layout: Layout, files: list[FlowObject], bad: list[str]) -> set[str]:
        """Origins of the files holding records the reference reader must judge (bad address, '-')."""
        source = self._read_csv(layout, files, rejects=None)
        status = layout.expr("log-status", "'OK'")
        src, dst = column("srcaddr"), column("dstaddr")
        predicate = (
            f"{status} IS NULL OR ({status} = 'OK' AND ({column('action')} IS NULL OR {src} IS NULL "
            f"OR {dst} IS NULL OR {src} IN (SELECT unnest($bad)) OR {dst} IN (SELECT unnest($bad))))"
        )
        found = self.con.execute(
            f"SELECT DISTINCT filename FROM {source} WHERE {predicate}", {"bad": bad}
        ).fetchall()
        by_path = {str(o.path): o.origin for o in files}
        return {by_path.get(p, p) for (p,) in found}

    def _apply_table(
        self, origins: dict[str, str], canonical: dict[str, str | None], totals: FlowTotals
    ) -> None:
        """Move fl_conv into the totals: counts per file and status, the time covered, and the
        conversations as one block, re-keyed by canonical address and sorted by DuckDB."""
        counts = self.con.execute(
            "SELECT grouping(st, f) > 0, st::VARCHAR, f, sum(n)::BIGINT, min(t0)::BIGINT, max(t1)::BIGINT "
            "FROM fl_conv GROUP BY GROUPING SETS ((st, f), ()) ORDER BY 3, 2"
        ).fetchall()
        for total, status, file, count, first, last in counts:
            if total:  # every record: the time covered
                totals.seen(first, last)
            elif status != "OK":
                totals.status(origins.get(file, file), status, int(count))
        renamed = [(raw, c) for raw, c in canonical.items() if c is not None and c != raw]
        keyed = "(SELECT * FROM fl_conv WHERE st = 'OK')"  # keys are distinct already
        if renamed:  # several spellings of one address: merge their conversations under the canonical one
            self.con.execute("CREATE OR REPLACE TEMP TABLE fl_canon (raw VARCHAR, c VARCHAR)")
            self.con.executemany("INSERT INTO fl_canon VALUES (?, ?)", renamed)
            keyed = f"({KEYED_SQL})"
        rows = self.con.execute(BLOCK_SQL.format(keyed=keyed)).fetchall()
        self.con.execute("DROP TABLE IF EXISTS fl_canon")
        mixed = frozenset(i for i, (_, several) in enumerate(rows) if several)
        block = ConversationBlock("[" + ",".join(text for text, _ in rows) + "]", len(rows), mixed)
        accepted, rejected = self.con.execute(  # re-keying merges conversations, not records
            "SELECT sum(n) FILTER (WHERE a = 'ACCEPT'), sum(n) FILTER (WHERE a = 'REJECT') FROM fl_conv "
            "WHERE st = 'OK'"
        ).fetchall()[0]
        totals.add_block(block, int(accepted or 0), int(rejected or 0))


# The OK conversations of fl_conv keyed by canonical address (several spellings of one address merge).
KEYED_SQL = """
SELECT coalesce(cs.c, s) AS s, coalesce(cd.c, d) AS d, p, pr, a, sum(n) AS n, sum(pk) AS pk, sum(b) AS b,
       min(t0) AS t0, max(t1) AS t1, min(i0) AS i0, max(i1) AS i1
FROM fl_conv LEFT JOIN fl_canon cs ON fl_conv.s = cs.raw LEFT JOIN fl_canon cd ON fl_conv.d = cd.raw
WHERE st = 'OK' GROUP BY ALL
"""
# Each conversation as a JSON object of FlowConversation fields, in the order of
# FlowTotals.sorted_conversations, and whether it was seen on several interfaces (interface_id is kept
# when all records name the same one).
BLOCK_SQL = """
SELECT json_object('src_addr', s, 'dst_addr', d, 'dst_port', p, 'protocol', pr, 'action', a::VARCHAR,
                   'packets', coalesce(pk, 0), 'bytes', coalesce(b, 0), 'records', n, 'first_seen', t0,
                   'last_seen', t1, 'interface_id', CASE WHEN i0 = i1 THEN i0 END)::VARCHAR,
       coalesce(i0 <> i1, false)
FROM {keyed} ORDER BY s, d, coalesce(p, -1), coalesce(pr, -1), a
"""


def _quote(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def _first_line(path: Path) -> bytes:
    """Line 1 of a plain or gzip file (empty when unreadable: the reference reader will say why)."""
    try:
        with path.open("rb") as raw:
            head = raw.read(2)
            raw.seek(0)
            stream = gzip.GzipFile(fileobj=raw) if head == GZIP_MAGIC else raw
            return stream.readline(65536)
    except (OSError, EOFError, zlib.error):
        return b""


def _gzip_whole(path: Path) -> bool:
    """Whether every gzip member of the file inflates to its end marker."""
    try:
        with gzip.open(path, "rb") as stream:
            while stream.read(1 << 20):
                pass
    except (OSError, EOFError, zlib.error):
        return False
    return True


def _order_problems(totals: FlowTotals) -> None:
    """Problems of each file in line order, files in the order they were first named."""
    rank: dict[str, int] = {}
    for p in totals.problems:
        rank.setdefault(p.origin, len(rank))
    totals.problems.sort(key=lambda p: (rank[p.origin], p.line if p.line is not None else 1 << 62))


def iter_objects(paths: Sequence[Path]) -> Iterator[FlowObject]:
    """Local files as flow-log objects (Parquet by suffix), origin = the path as given."""
    for path in paths:
        yield FlowObject(path=path, origin=str(path), parquet=path.suffix == ".parquet")
