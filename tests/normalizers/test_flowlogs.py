"""Tests of the `aws.flowlog` normalizer on flow-log files built from the documented record format.

No public bulk flow-log files exist, so the inputs are: hand-written case folders with hand-worked
expectations (one parameter per folder), and files generated here with known records (plain and gzip,
with NODATA/SKIPDATA lines, garbled lines and a truncated gzip) whose aggregates are computed by a
separate, deliberately naive oracle.
"""

from __future__ import annotations

import gzip
import json
import random
import zlib
from collections import defaultdict
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from auditor.capture import RawCapture
from auditor.enums import FactKind
from auditor.facts.flows import FlowConversation, FlowLogStats
from auditor.normalize import NormalizeResult
from collectors.normalizers.flowlogs import normalize_flow_log, read_flow_log

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "flowlogs"
CASES = sorted(p for p in FIXTURES.iterdir() if p.is_dir())
HEADER = (
    "version account-id interface-id srcaddr dstaddr srcport dstport "
    + "protocol packets bytes start end action log-status"
)


def _normalize(content: bytes, origin: str = "flows.log", **meta: str) -> NormalizeResult:
    capture = RawCapture(
        target="vpc-flow-logs",
        format="aws.flowlog",
        source="s3://audit-flow-logs/AWSLogs/",
        origin=origin,
        collected_at=datetime(2025, 1, 1, tzinfo=UTC),
        content=content,
        meta=meta,
    )
    return normalize_flow_log(capture)


def _flows(result: NormalizeResult) -> list[FlowConversation]:
    return [f for f in result.facts if isinstance(f, FlowConversation)]


def _stats(result: NormalizeResult) -> FlowLogStats:
    (stats,) = [f for f in result.facts if isinstance(f, FlowLogStats)]
    return stats


def _key(row: dict[str, Any]) -> tuple[Any, ...]:
    return (row["src_addr"], row["dst_addr"], row["dst_port"], row["protocol"], row["action"])


def _conversations(result: NormalizeResult) -> list[dict[str, Any]]:
    """Conversations in the engine's deterministic order: sorted by their key."""
    rows = []
    for fact in _flows(result):
        row = fact.to_json()
        row.pop("source")
        rows.append(row)
    return sorted(rows, key=_key)


@pytest.mark.parametrize("case", CASES, ids=lambda p: p.name)
def test_case_folder(case: Path) -> None:
    """Hand-worked expectations in expected.json; the same file gzipped must give the same facts."""
    expected = json.loads((case / "expected.json").read_text())
    content = (case / "flows.log").read_bytes()
    for data in (content, gzip.compress(content)):
        result = _normalize(data, origin=case.name)
        assert result.covers == {FactKind.FLOW_CONVERSATION, FactKind.FLOW_LOG_STATS}
        assert _conversations(result) == sorted(expected["conversations"], key=_key)
        stats = _stats(result)
        assert (stats.records, stats.nodata, stats.skipdata, stats.malformed, stats.files) == (
            expected["records"],
            expected["nodata"],
            expected["skipdata"],
            expected["garbled"],
            1,
        )
        assert stats.accepted + stats.rejected == stats.records
        assert [p.line for p in result.problems] == expected["problem_lines"]
        assert all(p.origin == case.name for p in result.problems)
        read = read_flow_log(data, case.name)
        counts = (read.records, read.nodata, read.skipdata, read.garbled)
        assert counts == (expected["records"], expected["nodata"], expected["skipdata"], expected["garbled"])


def test_default_case_problem_messages() -> None:
    result = _normalize((FIXTURES / "default-v2-no-header" / "flows.log").read_bytes())
    messages = [p.message for p in result.problems]
    assert messages == [
        "not a flow record: 10 fields, expected 14",
        "not a flow record: dstport 'http' is not a number",
        "not a flow record: bad address '10.20.1.500'",
        "not a flow record: unknown action 'ALLOW'",
        "1 SKIPDATA records: AWS dropped flow records in those capture windows",
    ]


def test_source_comes_from_meta_or_origin() -> None:
    content = (FIXTURES / "default-v2-no-header" / "flows.log").read_bytes()
    assert {f.source for f in _normalize(content, origin="a.log").facts} == {"a.log"}  # type: ignore[attr-defined]
    tagged = _normalize(content, origin="a.log", source="s3://bucket/prefix/")
    assert {f.source for f in tagged.facts} == {"s3://bucket/prefix/"}  # type: ignore[attr-defined]


# --- generated files and the naive oracle --------------------------------------------------------


def _records(count: int, seed: int) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    rows = []
    for i in range(count):
        status = rng.choices(["OK", "NODATA", "SKIPDATA"], weights=[96, 3, 1])[0]
        rows.append(
            {
                "version": "2",
                "account-id": "210987654321",
                "interface-id": f"eni-{rng.randrange(3):017x}",
                "srcaddr": rng.choice(["10.20.1.5", "10.20.1.6", "203.0.113.7", "2001:db8::5"]),
                "dstaddr": rng.choice(["10.250.0.10", "10.30.0.4", "2001:db8::10"]),
                "srcport": str(rng.randrange(1024, 65536)),
                "dstport": str(rng.choice([22, 443, 623, 4791])),
                "protocol": str(rng.choice([6, 17])),
                "packets": str(rng.randrange(1, 50)),
                "bytes": str(rng.randrange(40, 90000)),
                "start": str(1_700_000_000 + i),
                "end": str(1_700_000_060 + i + rng.randrange(60)),
                "action": rng.choice(["ACCEPT", "REJECT"]),
                "log-status": status,
            }
        )
        if status != "OK":
            for key in ("srcaddr", "dstaddr", "srcport", "dstport", "protocol", "packets", "bytes", "action"):
                rows[-1][key] = "-"
    return rows


def _oracle(rows: list[dict[str, Any]]) -> dict[tuple[Any, ...], dict[str, Any]]:
    totals: dict[tuple[Any, ...], dict[str, Any]] = defaultdict(
        lambda: {"packets": 0, "bytes": 0, "records": 0, "starts": [], "ends": [], "enis": set()}
    )
    for row in rows:
        if row["log-status"] != "OK":
            continue
        key = (row["srcaddr"], row["dstaddr"], int(row["dstport"]), int(row["protocol"]), row["action"])
        total = totals[key]
        total["packets"] += int(row["packets"])
        total["bytes"] += int(row["bytes"])
        total["records"] += 1
        total["starts"].append(int(row["start"]))
        total["ends"].append(int(row["end"]))
        total["enis"].add(row["interface-id"])
    return totals


def _render(rows: list[dict[str, Any]], fields: list[str], header: bool) -> bytes:
    lines = [" ".join(fields)] if header else []
    lines += [" ".join(row[f] for f in fields) for row in rows]
    return ("\n".join(lines) + "\n").encode()


def _assert_matches_oracle(result: NormalizeResult, rows: list[dict[str, Any]]) -> None:
    totals = _oracle(rows)
    facts = {(f.src_addr, f.dst_addr, f.dst_port, f.protocol, f.action): f for f in _flows(result)}
    assert set(facts) == set(totals)
    for key, total in totals.items():
        fact = facts[key]
        assert (fact.packets, fact.bytes, fact.records) == (
            total["packets"],
            total["bytes"],
            total["records"],
        )
        assert (fact.first_seen, fact.last_seen) == (min(total["starts"]), max(total["ends"]))
        assert fact.interface_id == (next(iter(total["enis"])) if len(total["enis"]) == 1 else None)


@pytest.mark.parametrize(("header", "compress"), [(False, False), (True, False), (False, True), (True, True)])
def test_generated_default_format(header: bool, compress: bool) -> None:
    rows = _records(20_000, seed=7)
    content = _render(rows, HEADER.split(), header)
    result = _normalize(gzip.compress(content) if compress else content)
    _assert_matches_oracle(result, rows)
    skipped = sum(1 for r in rows if r["log-status"] == "SKIPDATA")
    assert [p.message for p in result.problems] == [
        f"{skipped} SKIPDATA records: AWS dropped flow records in those capture windows"
    ]
    read = read_flow_log(content, "x")
    assert read.nodata == sum(1 for r in rows if r["log-status"] == "NODATA")
    assert read.records == sum(1 for r in rows if r["log-status"] == "OK")


def test_custom_field_order_is_read_from_the_header() -> None:
    rows = [r for r in _records(3_000, seed=11) if r["log-status"] == "OK"]
    for row in rows:
        row.update({"vpc-id": "vpc-0f00000000000aaa1", "flow-direction": "ingress", "tcp-flags": "2"})
    fields = ["flow-direction", "bytes", "packets", "dstaddr", "srcaddr", "tcp-flags", "action"]
    fields += ["protocol", "dstport", "end", "start", "interface-id", "vpc-id", "log-status", "version"]
    result = _normalize(_render(rows, fields, header=True))
    assert result.problems == []
    _assert_matches_oracle(result, rows)


def test_truncated_gzip_keeps_the_records_before_it() -> None:
    rows = [r for r in _records(30_000, seed=3) if r["log-status"] == "OK"]
    content = _render(rows, HEADER.split(), header=True)
    compressed = gzip.compress(content)
    cut = compressed[: len(compressed) * 2 // 3]
    # Independently: what a raw inflater gets out of the cut stream, whole lines only.
    inflater = zlib.decompressobj(wbits=31)
    readable = inflater.decompress(cut)
    whole = readable[: readable.rfind(b"\n") + 1].decode().splitlines()
    kept = len(whole) - 1  # minus the header
    assert 0 < kept < len(rows)
    result = _normalize(cut, origin="cut.log.gz")
    _assert_matches_oracle(result, rows[:kept])
    (problem,) = result.problems
    assert problem.origin == "cut.log.gz"
    assert problem.line == kept + 2  # the header is line 1; the partial record would be the next line
    assert problem.message.startswith(f"gzip stream is truncated or corrupt after line {kept + 1}")


def test_corrupt_gzip_and_concatenated_members() -> None:
    one = _render(_records(50, seed=1), HEADER.split(), header=True)
    two = _render(_records(50, seed=2), HEADER.split(), header=True)
    both = _normalize(gzip.compress(one) + gzip.compress(two))
    rows = _records(50, seed=1) + _records(50, seed=2)
    _assert_matches_oracle(both, rows)
    corrupt = bytearray(gzip.compress(one))
    corrupt[20:40] = b"\x00" * 20
    result = _normalize(bytes(corrupt))
    assert any("gzip stream is truncated or corrupt" in p.message for p in result.problems)


def test_more_than_twenty_garbled_lines_are_summarized() -> None:
    good = _render([r for r in _records(10, seed=5) if r["log-status"] == "OK"], HEADER.split(), header=False)
    garbled = b"".join(b"this is not a flow record %d\n" % i for i in range(25))
    content = good + garbled + good
    n_good = good.count(b"\n")
    result = _normalize(content)
    lines = [p.line for p in result.problems]
    assert lines == [*range(n_good + 1, n_good + 21), None]
    assert (
        result.problems[-1].message == "25 lines in total are not flow records; only the first 20 are listed"
    )
    assert sum(f.records for f in _flows(result)) == 2 * n_good
    assert _stats(result).malformed == 25


def test_header_without_addresses_is_a_problem() -> None:
    result = _normalize(b"version interface-id action log-status\n2 eni-1 ACCEPT OK\n")
    assert _flows(result) == []
    (problem,) = result.problems
    assert (problem.line, problem.message) == (1, "header has no srcaddr field")


@pytest.mark.parametrize(
    "content", [b"", b"\n\n", b"\x1f\x8b", b"\x1f\x8bgarbage", b"\xff\xfe\x00\x01 2 3\n"]
)
def test_garbage_never_raises(content: bytes) -> None:
    result = _normalize(content)
    assert _flows(result) == []
    assert result.covers == {FactKind.FLOW_CONVERSATION, FactKind.FLOW_LOG_STATS}
