"""The DuckDB engine: many flow-log objects aggregated into conversations in one streaming pass.

DuckDB reads the gzip text (or Parquet) files itself, in parallel across files, and keeps only one row
per conversation, so memory follows the number of conversations, not of records (it spills to a temp
directory past `memory_limit`). What it cannot decide alone goes to the reference reader
(reference.py): lines it rejected (wrong field count, a number that is not one, an unknown action or
status) are re-read one by one, so they are reported with their file and line exactly as the reference
reports them; files it cannot read at all (a truncated gzip, a header that changes mid-file, an address
that is not an address) are read whole by the reference reader. Results are the same either way.
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
from collectors.flowlogs.sql import Layout, column, conversation_sql
from collectors.flowlogs.totals import AddressCache, ConversationBlock, FlowTotals

log = logging.getLogger(__name__)
_FETCH = 50_000
MAX_LINE_BYTES = 65_536  # a flow-log record is a few hundred bytes, whatever its fields
_NEVER_NULL = "\x01auditor-no-null\x01"  # surplus fields are never NULL, whatever they hold


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
        wide = self._overwide(layout, members)
        fallback: list[tuple[FlowObject, Columns]] = [(o, columns) for o in members if o.origin in wide]
        files = [o for o in members if o.origin not in wide]
        while files:
            try:
                rejects = self._run_text(layout, files)
            except duckdb.Error as exc:
                log.info("DuckDB cannot read a file of this group (%s); probing each", exc)
                bad = [o for o in files if not self._readable(layout, o)] or files
                fallback += [(o, columns) for o in bad]
                files = [o for o in files if o not in bad]
                continue
            # DuckDB's line numbers for rejected rows are not reliable (off by one after some rejects),
            # so a file with any rejected line is read whole by the reference reader, which names each
            # line exactly; malformed lines are rare in delivered flow logs, so this path is too.
            rejected = set(rejects)
            canonical = self._addresses()
            bad_addresses = sorted(a for a, c in canonical.items() if c is None)
            anomalous = set()
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

    def _overwide(self, layout: Layout, files: list[FlowObject]) -> set[str]:
        """Origins of the files holding a line with more fields than the layout, or a line longer than any
        record. DuckDB's reject store writes one row per surplus field, each holding the whole line, so a
        crafted line of 60,000 spaces cost it 14 s and gigabytes; such files go to the reference reader
        (linear) instead. This scan is linear: surplus fields are dropped into one sentinel column. A file
        DuckDB cannot read at all (a truncated gzip) is left to the probing of `_text_group`."""
        try:
            return self._overwide_scan(layout, files)
        except duckdb.Error:
            if len(files) == 1:
                return set()
            return {origin for o in files for origin in self._overwide(layout, [o])}

    def _overwide_scan(self, layout: Layout, files: list[FlowObject]) -> set[str]:
        paths = ", ".join(_quote(str(o.path)) for o in files)
        width = len(layout.fields) + 1
        columns = "{" + ", ".join(f"'c{i}': 'VARCHAR'" for i in range(width)) + "}"
        self._scan += 1
        name = f"wide{self._scan}"
        try:
            found = self.con.execute(
                f"SELECT DISTINCT filename FROM read_csv([{paths}], delim=' ', quote='', escape='', "
                f"header={str(layout.has_header).lower()}, auto_detect=false, "
                f"nullstr=[{_quote(_NEVER_NULL)}], columns={columns}, strict_mode=false, null_padding=true, "
                f"max_line_size={MAX_LINE_BYTES}, ignore_errors=true, store_rejects=true, "
                f"rejects_table='{name}_errors', rejects_scan='{name}_scans', filename=true, "
                f"compression='{'gzip' if layout.gzip else 'none'}') WHERE c{width - 1} IS NOT NULL"
            ).fetchall()
            found += self.con.execute(
                f"SELECT DISTINCT file_path FROM {name}_scans JOIN {name}_errors USING (scan_id, file_id)"
            ).fetchall()
        finally:
            self.con.execute(f"DROP TABLE IF EXISTS {name}_errors; DROP TABLE IF EXISTS {name}_scans")
        by_path = {str(o.path): o.origin for o in files}
        return {by_path.get(p, p) for (p,) in found}

    def _read_csv(self, layout: Layout, files: list[FlowObject], *, rejects: str | None) -> str:
        paths = ", ".join(_quote(str(o.path)) for o in files)
        options = [
            "delim=' '",
            "quote=''",
            "escape=''",
            f"header={str(layout.has_header).lower()}",
            "auto_detect=false",
            "nullstr='-'",
            f"columns={layout.columns_sql()}",
            "filename=true",
            f"compression='{'gzip' if layout.gzip else 'none'}'",
        ]
        if rejects is not None:
            options += ["ignore_errors=true", "store_rejects=true"]
            options += [f"rejects_table='{rejects}_errors'", f"rejects_scan='{rejects}_scans'"]
        else:
            options.append("ignore_errors=true")
        return f"read_csv([{paths}], {', '.join(options)})"

    def _run_text(self, layout: Layout, files: list[FlowObject]) -> dict[str, list[tuple[int, list[bytes]]]]:
        """Aggregate the files into the table fl_conv (one row per conversation, and per file for
        NODATA/SKIPDATA); returns the lines DuckDB rejected, by origin."""
        self._scan += 1
        name = f"rej{self._scan}"
        source = self._read_csv(layout, files, rejects=name)
        self.con.execute(f"CREATE OR REPLACE TEMP TABLE fl_conv AS {conversation_sql(layout, source)}")
        by_path = {str(o.path): o.origin for o in files}
        rejects: dict[str, list[tuple[int, list[bytes]]]] = {}
        cursor = self.con.execute(
            f"SELECT s.file_path, e.line, any_value(e.csv_line) FROM {name}_errors e "
            f"JOIN {name}_scans s ON e.scan_id = s.scan_id AND e.file_id = s.file_id "
            "GROUP BY ALL ORDER BY 1, 2"
        )
        while batch := cursor.fetchmany(_FETCH):
            for path, line, text in batch:
                rejects.setdefault(by_path.get(path, path), []).append(
                    (int(line), str(text).encode("utf-8", "replace").split())
                )
        self.con.execute(f"DROP TABLE IF EXISTS {name}_errors; DROP TABLE IF EXISTS {name}_scans")
        return rejects

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
        if obj.path.read_bytes()[:2] == GZIP_MAGIC and not _gzip_whole(obj.path):
            return False
        try:
            self.con.execute(f"SELECT count(*) FROM {self._read_csv(layout, [obj], rejects=None)}").fetchall()
        except duckdb.Error:
            return False
        return True

    def _anomalous(self, layout: Layout, files: list[FlowObject], bad: list[str]) -> set[str]:
        """Origins of the files holding records the reference reader must judge (bad address, '-')."""
        source = self._read_csv(layout, files, rejects=None)
        status = layout.expr("log-status", "'OK'")
        src, dst = column("srcaddr"), column("dstaddr")
        predicate = (
            f"{status} IS NULL OR ({status} = 'OK' AND ({column('action')} IS NULL "
            f"OR {src} IN (SELECT unnest($bad)) OR {dst} IN (SELECT unnest($bad))))"
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
        for status, file, count in self.con.execute(
            "SELECT st, f, sum(n)::BIGINT FROM fl_conv WHERE st <> 'OK' GROUP BY ALL ORDER BY 2, 1"
        ).fetchall():
            totals.status(origins.get(file, file), status, int(count))
        first, last = self.con.execute("SELECT min(t0), max(t1) FROM fl_conv").fetchall()[0]
        totals.seen(first, last)
        renamed = [(raw, c) for raw, c in canonical.items() if c is not None and c != raw]
        self.con.execute("CREATE OR REPLACE TEMP TABLE fl_canon (raw VARCHAR, c VARCHAR)")
        if renamed:
            self.con.executemany("INSERT INTO fl_canon VALUES (?, ?)", renamed)
        row = self.con.execute(BLOCK_SQL).fetchone()
        self.con.execute("DROP TABLE IF EXISTS fl_canon")
        assert row is not None  # an aggregate without GROUP BY always gives one row
        count, accepted, rejected, text, mixed = row
        block = ConversationBlock("[" + (text or "") + "]", int(count), frozenset(mixed or ()))
        totals.add_block(block, int(accepted or 0), int(rejected or 0))


# The OK conversations of fl_conv keyed by canonical address (several spellings of one address merge),
# in the order of FlowTotals.sorted_conversations, as one JSON array of FlowConversation fields. An
# interface_id is kept when all records name the same one; `mixed` lists the positions (0-based) of the
# conversations seen on several.
BLOCK_SQL = """
WITH keyed AS (
    SELECT coalesce(cs.c, s) AS s, coalesce(cd.c, d) AS d, p, pr, a, sum(n) AS n,
           coalesce(sum(pk), 0) AS pk, coalesce(sum(b), 0) AS b, min(t0) AS t0, max(t1) AS t1,
           min(i0) AS i0, max(i1) AS i1
    FROM fl_conv LEFT JOIN fl_canon cs ON fl_conv.s = cs.raw LEFT JOIN fl_canon cd ON fl_conv.d = cd.raw
    WHERE st = 'OK' GROUP BY ALL
), ordered AS (
    SELECT *, row_number() OVER (ORDER BY s, d, coalesce(p, -1), coalesce(pr, -1), a) - 1 AS pos
    FROM keyed
)
SELECT count(*), sum(n) FILTER (WHERE a = 'ACCEPT'), sum(n) FILTER (WHERE a = 'REJECT'),
       string_agg(json_object('src_addr', s, 'dst_addr', d, 'dst_port', p, 'protocol', pr, 'action', a,
                              'packets', pk, 'bytes', b, 'records', n, 'first_seen', t0, 'last_seen', t1,
                              'interface_id', CASE WHEN i0 = i1 THEN i0 END)::VARCHAR, ',' ORDER BY pos),
       list(pos) FILTER (WHERE i0 <> i1)
FROM ordered
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
