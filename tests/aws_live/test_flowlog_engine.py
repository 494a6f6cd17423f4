"""The DuckDB engine against the reference reader: the same conversations, counts and problems, over
many objects at once (text with and without header, custom field orders, gzip, Parquet, broken lines,
a truncated gzip, a header that changes mid-file, an address that is not one)."""

from __future__ import annotations

import gzip
import random
from datetime import UTC, datetime
from pathlib import Path

import duckdb

from collectors.flowlogs.engine import FlowLogEngine, FlowObject
from collectors.flowlogs.fields import DEFAULT_FIELDS, Columns
from collectors.flowlogs.reference import read_stream
from collectors.flowlogs.totals import FlowTotals
from tests.aws_live.scenario import V5_FIELDS, Estate, records

NOW = datetime(2025, 6, 1, 12, 0, tzinfo=UTC)


def _rows(seed: int, count: int) -> list[dict[str, str]]:
    estate = Estate("123456789012", ids={"vpc_fe": "vpc-1", "subnet_fe": "subnet-1"})
    return records(random.Random(seed), count, estate, NOW)


def _text(rows: list[dict[str, str]], fields: list[str] | tuple[str, ...], header: bool) -> bytes:
    lines = [" ".join(fields)] if header else []
    lines += [" ".join(r[f] for f in fields) for r in rows]
    return ("\n".join(lines) + "\n").encode()


def _reference(objects: list[FlowObject]) -> FlowTotals:
    totals = FlowTotals(files=len(objects))
    for obj in objects:
        with obj.path.open("rb") as stream:
            read_stream(stream, obj.origin, totals, Columns.from_names(obj.fields or DEFAULT_FIELDS))
    totals.finish()
    return totals


def _same(a: FlowTotals, b: FlowTotals) -> None:
    assert dict(a.sorted_conversations()) == dict(b.sorted_conversations())
    counts = ("files", "accepted", "rejected", "nodata", "skipdata", "malformed", "first_seen", "last_seen")
    assert [getattr(a, c) for c in counts] == [getattr(b, c) for c in counts]
    assert sorted((p.origin, p.line or 0, p.message) for p in a.problems) == sorted(
        (p.origin, p.line or 0, p.message) for p in b.problems
    )


def test_many_objects_match_the_reference(tmp_path: Path) -> None:
    objects = []
    v2 = list(DEFAULT_FIELDS)
    cases = [
        ("a.log.gz", v2, True, True),
        ("b.log.gz", V5_FIELDS, True, True),
        ("c.log", v2, False, False),  # CloudWatch export: no header, the flow log's order
        ("d.log.gz", list(reversed(V5_FIELDS)), True, True),
    ]
    for index, (name, fields, header, compress) in enumerate(cases):
        body = _text(_rows(index, 3000), fields, header)
        lines = body.split(b"\n")
        lines.insert(50, b"2 only five fields here")
        lines.insert(70, lines[60].replace(b"ACCEPT", b"ALLOW").replace(b"REJECT", b"DENY"))
        lines.insert(90, b"")
        body = b"\n".join(lines)
        path = tmp_path / name
        path.write_bytes(gzip.compress(body) if compress else body)
        objects.append(FlowObject(path, f"s3://b/{name}", None if header else tuple(fields)))
    with FlowLogEngine() as engine:
        got = engine.aggregate(objects)
    want = _reference(objects)
    _same(got, want)
    assert got.malformed >= 4 and got.nodata and got.skipdata and len(got.conversations) > 50


def test_files_the_engine_hands_to_the_reference(tmp_path: Path) -> None:
    rows = _rows(9, 2000)
    good = _text(rows, DEFAULT_FIELDS, True)
    cut = gzip.compress(good)[:-4000]
    mixed = good + _text(rows[:100], V5_FIELDS, True)  # a second header with another order
    bad_address = good.replace(b"10.20.1.5 ", b"10.20.1.500 ", 3)
    objects = []
    for name, body in (
        ("cut.gz", cut),
        ("mixed.log", mixed),
        ("addr.log", bad_address),
        ("ok.gz", gzip.compress(good)),
    ):
        (tmp_path / name).write_bytes(body)
        objects.append(FlowObject(tmp_path / name, name))
    with FlowLogEngine() as engine:
        got = engine.aggregate(objects)
    _same(got, _reference(objects))
    messages = [p.message for p in got.problems]
    assert any(m.startswith("gzip stream is truncated or corrupt") for m in messages)
    assert any("bad address '10.20.1.500'" in m for m in messages)


def test_parquet_objects(tmp_path: Path) -> None:
    rows = _rows(5, 1500)
    ok = [i for i, r in enumerate(rows) if r["log-status"] == "OK"][10:13]
    rows[ok[0]]["action"] = "ALLOW"
    rows[ok[1]]["srcaddr"] = "not-an-address"
    rows[ok[2]]["dstport"] = "70000"
    ints = {"version", "srcport", "dstport", "protocol", "packets", "bytes", "start", "end"}
    con = duckdb.connect()
    cols = ", ".join(
        f'"{n.replace("-", "_")}" {"BIGINT" if n in ints else "VARCHAR"}' for n in DEFAULT_FIELDS
    )
    con.execute(f"CREATE TABLE t ({cols})")
    con.executemany(
        f"INSERT INTO t VALUES ({', '.join('?' for _ in DEFAULT_FIELDS)})",
        [[None if r[n] == "-" else (int(r[n]) if n in ints else r[n]) for n in DEFAULT_FIELDS] for r in rows],
    )
    con.execute(f"COPY t TO '{tmp_path / 'f.parquet'}' (FORMAT parquet)")
    (tmp_path / "f.log").write_bytes(_text(rows, DEFAULT_FIELDS, True))
    with FlowLogEngine() as engine:
        parquet = engine.aggregate([FlowObject(tmp_path / "f.parquet", "f", parquet=True)])
    text = _reference([FlowObject(tmp_path / "f.log", "f")])
    assert dict(parquet.sorted_conversations()) == dict(text.sorted_conversations())
    assert (
        (parquet.malformed, parquet.nodata, parquet.skipdata)
        == (text.malformed, text.nodata, text.skipdata)
        == (3, text.nodata, text.skipdata)
    )
    # a Parquet row is named by its row number (1-based), as a text line is by its line (header = 1)
    assert sorted(p.line for p in parquet.problems if p.line) == [i + 1 for i in ok]
    assert sorted(p.line for p in text.problems if p.line) == [i + 2 for i in ok]
