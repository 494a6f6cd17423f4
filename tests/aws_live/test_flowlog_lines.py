"""Lines of the wrong width, found in the one scan that aggregates (engine.py, sql.SURPLUS): each one is
still reported with its file and line exactly as the reference reader reports it, the other files keep
the fast path, and a crafted line of tens of thousands of fields stays linear."""

from __future__ import annotations

import gzip
import random
import time
from pathlib import Path

import pytest

from collectors.flowlogs.engine import FlowLogEngine, FlowObject
from collectors.flowlogs.fields import DEFAULT_FIELDS
from collectors.flowlogs.reference import read_stream
from collectors.flowlogs.totals import FlowTotals
from tests.aws_live.test_flowlog_engine import _reference

HEADER = " ".join(DEFAULT_FIELDS)


def _good(seed: int, count: int) -> list[str]:
    rng = random.Random(seed)
    lines = []
    for i in range(count):
        t = 1_700_000_000 + i
        if i % 50 == 7:
            lines.append(f"2 123456789012 eni-{i % 4} - - - - - - - {t} {t + 60} - NODATA")
            continue
        src = rng.choice(["10.20.1.7", "10.20.1.8", "203.0.113.9", "2001:db8::5"])
        port = rng.choice(["443", "53", "-"])
        lines.append(
            f"2 123456789012 eni-{rng.randrange(3)} {src} 10.30.0.9 {rng.randrange(1024, 65535)} {port} "
            f"{rng.choice((6, 17))} {rng.randrange(1, 90)} {rng.randrange(40, 9000)} {t} {t + 30} "
            f"{rng.choice(('ACCEPT', 'REJECT'))} OK"
        )
    return lines


def _write(path: Path, lines: list[str], *, header: bool = True, compress: bool = True) -> FlowObject:
    body = ("\n".join([HEADER, *lines] if header else lines) + "\n").encode()
    path.write_bytes(gzip.compress(body) if compress else body)
    return FlowObject(path, f"s3://b/{path.name}", None if header else DEFAULT_FIELDS)


def _same(a: FlowTotals, b: FlowTotals) -> None:
    assert dict(a.sorted_conversations()) == dict(b.sorted_conversations())
    counts = ("files", "accepted", "rejected", "nodata", "skipdata", "malformed", "first_seen", "last_seen")
    assert [getattr(a, c) for c in counts] == [getattr(b, c) for c in counts]
    assert [(p.origin, p.line, p.message) for p in a.problems] == [
        (p.origin, p.line, p.message) for p in b.problems
    ]


GOOD = "2 123456789012 eni-1 10.20.1.7 10.30.0.9 50000 443 6 3 300 1700000100 1700000130 ACCEPT OK"
NODATA = "2 123456789012 eni-1 - - - - - - - 1700000100 1700000160 - NODATA"
CRAFTED = {
    "surplus-dash": GOOD + " -",  # '-' is NULL to DuckDB: the surplus column must still see it
    "surplus-zero": GOOD + " 0",
    "surplus-date": GOOD + " 1970-01-01",
    "surplus-word": GOOD + " extra",
    "surplus-many": GOOD + " - - - -",
    "trailing-space": GOOD + " ",
    "leading-space": " " + GOOD,
    "double-space": GOOD.replace(" 443 ", "  443 "),
    "nodata-surplus-dash": NODATA + " -",
    "short": GOOD.rsplit(" ", 1)[0],
    "short-nodata": NODATA.rsplit(" ", 1)[0],
    "short-one-field": "2",
    "status-dash": GOOD.replace(" OK", " -"),
    "status-unknown": GOOD.replace(" OK", " FINE"),
    "only-spaces": "     ",
    "carriage-return": GOOD + "\r",
    "over-long": GOOD.replace("eni-1", "eni-" + "a" * 70_000),
    # values of the wrong type: DuckDB's cast fails the scan, each file is then read alone
    "port-out-of-range": GOOD.replace(" 443 ", " 70000 "),
    "packets-not-a-number": GOOD.replace(" 3 300 ", " three 300 "),
    "action-unknown": GOOD.replace("ACCEPT", "ALLOW"),
    "action-dash": GOOD.replace("ACCEPT", "-"),
    "address-dash": GOOD.replace("10.20.1.7", "-"),
    "address-bad": GOOD.replace("10.20.1.7", "10.20.1.700"),
}


@pytest.mark.parametrize("compress", [True, False], ids=["gzip", "plain"])
@pytest.mark.parametrize("header", [True, False], ids=["header", "no-header"])
@pytest.mark.parametrize("name", sorted(CRAFTED))
def test_a_crafted_line_among_good_files_is_reported_at_its_line(
    tmp_path: Path, name: str, header: bool, compress: bool
) -> None:
    lines = _good(1, 400)
    lines.insert(123, CRAFTED[name])
    objects = [
        _write(tmp_path / f"f{i}.log", _good(10 + i, 300), header=header, compress=compress) for i in range(3)
    ]
    objects.insert(1, _write(tmp_path / "crafted.log", lines, header=header, compress=compress))
    with FlowLogEngine() as engine:
        got = engine.aggregate(objects)
    want = _reference(objects)
    _same(got, want)
    if got.malformed:  # the line is named by the file and line the reference reader gives it
        line = 123 + (2 if header else 1)
        assert [(p.origin, p.line) for p in got.problems if p.line] == [("s3://b/crafted.log", line)]


@pytest.mark.parametrize(
    "crafted", [" " * 60_000, "x " * 60_000, GOOD + " -" * 30_000], ids=["spaces", "fields", "dashes"]
)
def test_a_line_of_60000_fields_stays_linear(tmp_path: Path, crafted: str) -> None:
    lines = _good(3, 2000)
    lines.insert(1000, crafted)
    objects = [_write(tmp_path / "crafted.log.gz", lines), _write(tmp_path / "ok.log.gz", _good(4, 2000))]
    start = time.perf_counter()
    with FlowLogEngine() as engine:
        got = engine.aggregate(objects)
    assert time.perf_counter() - start < 5.0  # quadratic: 14 s for 60,000 spaces; linear: well under 1 s
    _same(got, _reference(objects))
    named = [("s3://b/crafted.log.gz", 1002)] if crafted.strip() else []  # blank lines are skipped
    assert [(p.origin, p.line) for p in got.problems if p.line] == named


@pytest.mark.parametrize(
    "name", ["surplus-dash", "short", "port-out-of-range", "action-unknown", "address-bad"]
)
def test_good_files_stay_on_the_fast_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    """Only the file with the crafted line goes to the reference reader; the others are aggregated by
    DuckDB (one block), whatever their order."""
    read: list[str] = []
    import collectors.flowlogs.engine as engine_module

    def spy(stream, origin, totals, columns):  # type: ignore[no-untyped-def]
        read.append(origin)
        return read_stream(stream, origin, totals, columns)

    monkeypatch.setattr(engine_module, "read_stream", spy)
    lines = _good(5, 500)
    lines.insert(200, CRAFTED[name])
    objects = [_write(tmp_path / f"f{i}.log.gz", _good(20 + i, 500)) for i in range(4)]
    objects.insert(2, _write(tmp_path / "crafted.log.gz", lines))
    with FlowLogEngine() as engine:
        got = engine.aggregate(objects)
    assert read == ["s3://b/crafted.log.gz"]
    assert len(got.blocks) == 1
    _same(got, _reference(objects))
