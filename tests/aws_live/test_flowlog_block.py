"""The engine's fast path (conversations merged, re-keyed and sorted in DuckDB, read into facts as one
JSON block) against the reference reader: the same facts in the same order, also where several spellings
of one address merge into one conversation, where a conversation spans interfaces, and when the block is
merged with conversations the reference reader added (the slow path)."""

from __future__ import annotations

import gzip
import random
from pathlib import Path

from collectors.flowlogs.engine import FlowLogEngine, FlowObject
from collectors.flowlogs.facts import totals_facts
from collectors.flowlogs.fields import DEFAULT_FIELDS
from collectors.flowlogs.reference import read_stream
from collectors.flowlogs.totals import MIXED, FlowTotals

HEADER = " ".join(DEFAULT_FIELDS)
# Spellings of one address that the reference reader writes canonically (and so must the engine).
SPELLINGS = {
    "2001:db8::5": ["2001:db8::5", "2001:DB8::5", "2001:0db8:0000::0005"],
    "10.30.0.9": ["10.30.0.9"],
}


def _lines(seed: int, count: int) -> list[str]:
    rng = random.Random(seed)
    out = []
    for i in range(count):
        t = 1_700_000_000 + i
        if i % 97 == 0:
            out.append(f"2 123456789012 eni-{i % 3} - - - - - - - {t} {t + 60} - NODATA")
            continue
        src = rng.choice([*SPELLINGS["2001:db8::5"], "10.20.1.7", "203.0.113.9"])
        dst = rng.choice(["10.30.0.9", "2001:db8::10", "10.30.0.11"])
        port, proto = rng.choice([("443", "6"), ("53", "17"), ("-", "1")])  # ICMP: no port
        interface = rng.choice(["eni-a", "eni-b", "-"]) if src == "203.0.113.9" else "eni-a"
        action = "ACCEPT" if rng.random() < 0.7 else "REJECT"
        packets = rng.choice(["-", str(rng.randrange(1, 50))])
        out.append(
            f"2 123456789012 {interface} {src} {dst} {rng.randrange(1024, 65535)} {port} {proto} "
            f"{packets} {rng.randrange(40, 9000)} {t} {t + rng.randrange(1, 60)} {action} OK"
        )
    return out


def _write(path: Path, lines: list[str]) -> FlowObject:
    path.write_bytes(gzip.compress(("\n".join([HEADER, *lines]) + "\n").encode()))
    return FlowObject(path, f"s3://b/{path.name}")


def _reference(objects: list[FlowObject]) -> FlowTotals:
    totals = FlowTotals(files=len(objects))
    for obj in objects:
        with obj.path.open("rb") as stream:
            read_stream(stream, obj.origin, totals)
    totals.finish()
    return totals


def test_block_gives_the_reference_facts(tmp_path: Path) -> None:
    objects = [_write(tmp_path / f"{i}.log.gz", _lines(i, 4000)) for i in range(3)]
    with FlowLogEngine() as engine:
        got = engine.aggregate(objects)
    block = got.single_block()
    assert block is not None and block.count > 20 and block.mixed  # the fast path, with mixed interfaces
    want = _reference(objects)
    assert totals_facts(got, "s3://b/") == totals_facts(want, "s3://b/")
    # the three spellings of 2001:db8::5 are one source address, as the reference reader has it
    sources = {k[0] for k, _ in want.sorted_conversations()}
    assert "2001:db8::5" in sources and not any(s.startswith(("2001:DB8", "2001:0db8")) for s in sources)
    # merged into a dict (slow path), the block holds the reference's aggregates, MIXED included
    assert dict(got.sorted_conversations()) == dict(want.sorted_conversations())
    assert any(a.interface == MIXED for _, a in got.sorted_conversations())
    assert (got.accepted, got.rejected, got.nodata) == (want.accepted, want.rejected, want.nodata)


def test_block_merged_with_reference_conversations(tmp_path: Path) -> None:
    good = _write(tmp_path / "good.log.gz", _lines(1, 3000))
    broken = _lines(2, 3000)
    broken.insert(10, "2 only five fields here")  # this file goes to the reference reader
    bad = _write(tmp_path / "bad.log.gz", broken)
    with FlowLogEngine() as engine:
        got = engine.aggregate([good, bad])
    assert got.single_block() is None  # conversations from both readers: merged before facts are made
    want = _reference([good, bad])
    assert totals_facts(got, "src") == totals_facts(want, "src")
