"""The reference line reader: one flow-log text stream, line by line, in Python.

It defines what a valid record is. The DuckDB engine (engine.py) reads the same files many times faster
and hands this reader only what it cannot decide alone: lines DuckDB rejected, and whole files it cannot
read (a truncated gzip, a header that changes mid-file, an address that is not one). Tests hold the two
to the same results.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterator
from typing import BinaryIO

from auditor.normalize import Problem
from collectors.flowlogs.fields import DEFAULT_COLUMNS, Columns, LayoutError, header_fields
from collectors.flowlogs.totals import AddressCache, Aggregate, FlowTotals

_CHUNK = 1 << 20
GZIP_MAGIC = b"\x1f\x8b"


class Truncated(ValueError):
    """The gzip stream cannot be read past this point."""


class Garbled(ValueError):
    """One line that is not a flow record; the message says what is wrong with it."""


def parse_record(
    parts: list[bytes], col: Columns, addresses: AddressCache
) -> tuple[str, tuple[str, str, int | None, int | None, str] | None, Aggregate]:
    """(log-status, conversation key or None for NODATA/SKIPDATA, the record as an aggregate of one)."""
    if len(parts) != col.count:
        raise Garbled(f"{len(parts)} fields, expected {col.count}")
    status = parts[col.status] if col.status is not None else b"OK"
    if status in (b"NODATA", b"SKIPDATA"):  # only the capture window is read from these
        start, end = _lenient(parts, col.start), _lenient(parts, col.end)
        return status.decode(), None, Aggregate(0, 0, 1, start, end, None)
    if status != b"OK":
        raise Garbled(f"unknown log-status {status.decode('ascii', 'replace')!r}")
    action = parts[col.action]
    if action not in (b"ACCEPT", b"REJECT"):
        raise Garbled(f"unknown action {action.decode('ascii', 'replace')!r}")
    src = _address(parts[col.src], addresses)
    dst = _address(parts[col.dst], addresses)
    port = _number(parts, col.dport, "dstport", 65535)
    protocol = _number(parts, col.protocol, "protocol", 255)
    packets = _number(parts, col.packets, "packets") or 0
    nbytes = _number(parts, col.bytes, "bytes") or 0
    start = _number(parts, col.start, "start")
    end = _number(parts, col.end, "end")
    raw_interface = parts[col.interface] if col.interface is not None else b"-"
    interface = None if raw_interface == b"-" else raw_interface.decode("ascii", "replace")
    key = (src, dst, port, protocol, action.decode("ascii"))
    return "OK", key, Aggregate(packets, nbytes, 1, start, end, interface)


def _lenient(parts: list[bytes], index: int | None) -> int | None:
    if index is None or not parts[index].isdigit() or not parts[index].isascii():
        return None
    return int(parts[index])


def add_line(
    parts: list[bytes], col: Columns, addresses: AddressCache, totals: FlowTotals, origin: str, line: int
) -> None:
    """Parse one split line into the totals; a garbled one is counted and named."""
    try:
        status, key, agg = parse_record(parts, col, addresses)
    except Garbled as exc:
        totals.bad_line(origin, line, str(exc))
        return
    totals.seen(agg.first_seen, agg.last_seen)
    if key is None:
        totals.status(origin, status, 1)
    else:
        totals.add(key, agg)


def _address(raw: bytes, cache: AddressCache) -> str:
    text = cache.canonical(raw.decode("ascii", "replace"))
    if text is None:
        raise Garbled(f"bad address {raw.decode('ascii', 'replace')!r}")
    return text


def _number(parts: list[bytes], index: int | None, name: str, upper: int | None = None) -> int | None:
    """A non-negative integer field; `-` (no value, e.g. ports of ICMP in some formats) is None."""
    if index is None:
        return None
    raw = parts[index]
    if raw == b"-":
        return None
    if not raw.isdigit() or not raw.isascii():
        raise Garbled(f"{name} {raw.decode('ascii', 'replace')!r} is not a number")
    value = int(raw)
    if upper is not None and value > upper:
        raise Garbled(f"{name} {value} is out of range")
    return value


def read_stream(
    stream: BinaryIO, origin: str, totals: FlowTotals, columns: Columns = DEFAULT_COLUMNS
) -> None:
    """Read one plain or gzip text stream into `totals`; a header line (re)sets the columns."""
    addresses = AddressCache()
    for number, raw in _lines(stream, origin, totals):
        parts = raw.split()
        if not parts:
            continue
        header = header_fields(parts)
        if header is not None:
            try:
                columns = Columns.from_names(header)
            except LayoutError as exc:
                totals.problems.append(Problem(origin, f"header {exc}", number))
                return
            continue
        add_line(parts, columns, addresses, totals, origin, number)


def _gzip_chunks(stream: BinaryIO, first: bytes) -> Iterator[bytes]:
    """Inflate gzip members one after another (`cat a.gz b.gz` is valid gzip), streaming.

    Raises Truncated after the last readable byte, so the caller keeps everything before it.
    """
    buffer = first
    while True:
        inflater = zlib.decompressobj(wbits=31)
        while not inflater.eof:
            if not buffer:
                buffer = stream.read(_CHUNK)
                if not buffer:
                    raise Truncated("the compressed stream ends before its end marker")
            try:
                data = inflater.decompress(buffer)
            except zlib.error as exc:
                raise Truncated(str(exc)) from None
            buffer = b""
            if data:
                yield data
        buffer = inflater.unused_data
        while len(buffer) < 2:
            more = stream.read(_CHUNK)
            if not more:
                break
            buffer += more
        if not buffer:
            return
        if not buffer.startswith(GZIP_MAGIC):
            if (buffer + stream.read()).strip(b"\x00"):  # zero padding after the last member is harmless
                raise Truncated("bytes after the last gzip member are not gzip")
            return


def _lines(stream: BinaryIO, origin: str, totals: FlowTotals) -> Iterator[tuple[int, bytes]]:
    """Numbered lines of plain or gzip content (a seekable stream); a truncated or corrupt gzip ends
    with one problem and keeps every line before it."""
    first = stream.read(2)
    if not first.startswith(GZIP_MAGIC):
        stream.seek(0)
        yield from enumerate(stream, start=1)
        return
    number = 0
    pending = b""
    try:
        for chunk in _gzip_chunks(stream, first):
            lines = (pending + chunk).split(b"\n")
            pending = lines.pop()
            for line in lines:
                number += 1
                yield number, line
    except Truncated as exc:
        where = f"after line {number}" if number else "before the first line"
        dropped = "; the partial line after it was dropped" if pending else ""
        message = f"gzip stream is truncated or corrupt {where} ({exc}){dropped}"
        totals.problems.append(Problem(origin, message, number + 1))
        return
    if pending:
        yield number + 1, pending
