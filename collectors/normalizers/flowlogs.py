"""Normalize a VPC flow-log file (`aws.flowlog`) into conversation facts.

Reads the text format AWS delivers to S3 or exports from CloudWatch: space-separated records in the
default version-2 field order, plain or gzip (detected by its magic bytes). A header line, when present,
maps the columns, so custom formats with v3-v5 fields read too. Records are streamed and aggregated per
(source, destination, destination port, protocol, action); NODATA and SKIPDATA records are counted,
not facts. A garbled line or a truncated gzip becomes a Problem and the rest is kept. Never raises.
"""

from __future__ import annotations

import io
import ipaddress
import zlib
from collections.abc import Iterator
from dataclasses import dataclass, field

from auditor.capture import RawCapture
from auditor.enums import FactKind
from auditor.facts.flows import FlowConversation
from auditor.normalize import NormalizeResult, Problem

DEFAULT_FIELDS = (
    "version",
    "account-id",
    "interface-id",
    "srcaddr",
    "dstaddr",
    "srcport",
    "dstport",
    "protocol",
    "packets",
    "bytes",
    "start",
    "end",
    "action",
    "log-status",
)
# Every field of formats v2-v5 and later (ECS in v7, reject-reason in v8), as S3 headers spell them.
KNOWN_FIELDS = frozenset(
    (
        *DEFAULT_FIELDS,
        *("vpc-id", "subnet-id", "instance-id", "tcp-flags", "type", "pkt-srcaddr", "pkt-dstaddr"),
        *("region", "az-id", "sublocation-type", "sublocation-id", "pkt-src-aws-service"),
        *("pkt-dst-aws-service", "flow-direction", "traffic-path", "ecs-cluster-arn", "ecs-cluster-name"),
        *("ecs-container-instance-arn", "ecs-container-instance-id", "ecs-container-id"),
        *("ecs-second-container-id", "ecs-service-name", "ecs-task-definition-arn", "ecs-task-arn"),
        *("ecs-task-id", "reject-reason"),
    )
)
MAX_REPORTED_LINES = 20
_CHUNK = 1 << 20
_GZIP_MAGIC = b"\x1f\x8b"
_MIXED = "\x00mixed"  # interface marker: the conversation spans several interfaces
_Key = tuple[str, str, int | None, int | None, str]


class _Truncated(ValueError):
    """The gzip stream cannot be read past this point."""


class _Garbled(ValueError):
    """One line that is not a flow record; the message says what is wrong with it."""


@dataclass(frozen=True)
class _Columns:
    """Where each field sits in a record line."""

    count: int
    src: int
    dst: int
    action: int
    dport: int | None
    protocol: int | None
    packets: int | None
    bytes: int | None
    start: int | None
    end: int | None
    status: int | None
    interface: int | None

    @classmethod
    def from_names(cls, names: list[str]) -> _Columns:
        index = {name: i for i, name in enumerate(names)}
        return cls(
            count=len(names),
            src=index["srcaddr"],
            dst=index["dstaddr"],
            action=index["action"],
            dport=index.get("dstport"),
            protocol=index.get("protocol"),
            packets=index.get("packets"),
            bytes=index.get("bytes"),
            start=index.get("start"),
            end=index.get("end"),
            status=index.get("log-status"),
            interface=index.get("interface-id"),
        )


_DEFAULT_COLUMNS = _Columns.from_names(list(DEFAULT_FIELDS))


@dataclass(slots=True)
class Aggregate:
    """Running totals of one conversation."""

    packets: int
    bytes: int
    records: int
    first_seen: int | None
    last_seen: int | None
    interface: str | None


@dataclass
class FlowLogRead:
    """What one file held: the conversations and the counts a report or a check may want."""

    conversations: dict[_Key, Aggregate] = field(default_factory=dict)
    lines: int = 0
    records: int = 0  # ACCEPT/REJECT records aggregated
    nodata: int = 0
    skipdata: int = 0
    garbled: int = 0
    problems: list[Problem] = field(default_factory=list)


def normalize_flow_log(capture: RawCapture) -> NormalizeResult:
    """FlowConversation facts for one flow-log file; SKIPDATA and unreadable lines become problems."""
    result = NormalizeResult(covers={FactKind.FLOW_CONVERSATION})
    source = capture.meta.get("source") or capture.origin
    try:
        read = read_flow_log(capture.content, capture.origin)
    except Exception as exc:  # last resort: a normalizer never takes the run down
        result.problems.append(Problem(capture.origin, f"could not read the flow log: {exc!r}"))
        return result
    result.problems.extend(read.problems)
    for (src, dst, port, protocol, action), agg in read.conversations.items():
        result.add(
            FlowConversation(
                source=source,
                src_addr=src,
                dst_addr=dst,
                dst_port=port,
                protocol=protocol,
                action=action,
                packets=agg.packets,
                bytes=agg.bytes,
                records=agg.records,
                first_seen=agg.first_seen,
                last_seen=agg.last_seen,
                interface_id=None if agg.interface == _MIXED else agg.interface,
            )
        )
    return result


def read_flow_log(content: bytes, origin: str) -> FlowLogRead:
    """Stream the records of one file (plain or gzip) into per-conversation aggregates."""
    read = FlowLogRead()
    columns = _DEFAULT_COLUMNS
    addresses: dict[bytes, str] = {}
    for number, raw in _lines(content, origin, read):
        read.lines = number
        parts = raw.split()
        if not parts:
            continue
        header = _header(parts)
        if header is not None:
            try:
                columns = _Columns.from_names(header)
            except KeyError as exc:
                read.problems.append(Problem(origin, f"header has no {exc.args[0]} field", number))
                return read
            continue
        try:
            _add_record(parts, columns, addresses, read)
        except _Garbled as exc:
            read.garbled += 1
            if read.garbled <= MAX_REPORTED_LINES:
                read.problems.append(Problem(origin, f"not a flow record: {exc}", number))
    if read.garbled > MAX_REPORTED_LINES:
        shown = MAX_REPORTED_LINES
        message = f"{read.garbled} lines in total are not flow records; only the first {shown} are listed"
        read.problems.append(Problem(origin, message))
    if read.skipdata:
        message = f"{read.skipdata} SKIPDATA records: AWS dropped flow records in those capture windows"
        read.problems.append(
            Problem(origin, message, hint="the flow evidence is incomplete for those windows")
        )
    return read


def _header(parts: list[bytes]) -> list[str] | None:
    """The field names when this line is a header (S3 files start with one), else None."""
    first = parts[0].decode("ascii", "replace").replace("_", "-")
    if first not in KNOWN_FIELDS:
        return None
    names = [p.decode("ascii", "replace").replace("_", "-") for p in parts]
    return names if all(name in KNOWN_FIELDS for name in names) else None


def _add_record(parts: list[bytes], col: _Columns, addresses: dict[bytes, str], read: FlowLogRead) -> None:
    if len(parts) != col.count:
        raise _Garbled(f"{len(parts)} fields, expected {col.count}")
    status = parts[col.status] if col.status is not None else b"OK"
    if status == b"NODATA":
        read.nodata += 1
        return
    if status == b"SKIPDATA":
        read.skipdata += 1
        return
    if status != b"OK":
        raise _Garbled(f"unknown log-status {status.decode('ascii', 'replace')!r}")
    action = parts[col.action]
    if action not in (b"ACCEPT", b"REJECT"):
        raise _Garbled(f"unknown action {action.decode('ascii', 'replace')!r}")
    src = _address(parts[col.src], addresses)
    dst = _address(parts[col.dst], addresses)
    port = _number(parts, col.dport, "dstport", 65535)
    protocol = _number(parts, col.protocol, "protocol", 255)
    packets = _number(parts, col.packets, "packets") or 0
    nbytes = _number(parts, col.bytes, "bytes") or 0
    start = _number(parts, col.start, "start")
    end = _number(parts, col.end, "end")
    interface = parts[col.interface].decode("ascii", "replace") if col.interface is not None else None
    key = (src, dst, port, protocol, action.decode("ascii"))
    agg = read.conversations.get(key)
    if agg is None:
        read.conversations[key] = Aggregate(packets, nbytes, 1, start, end, interface)
    else:
        agg.packets += packets
        agg.bytes += nbytes
        agg.records += 1
        if start is not None and (agg.first_seen is None or start < agg.first_seen):
            agg.first_seen = start
        if end is not None and (agg.last_seen is None or end > agg.last_seen):
            agg.last_seen = end
        if agg.interface != interface:
            agg.interface = _MIXED
    read.records += 1


def _address(raw: bytes, cache: dict[bytes, str]) -> str:
    text = cache.get(raw)
    if text is not None:
        return text
    try:
        text = str(ipaddress.ip_address(raw.decode("ascii")))
    except (UnicodeDecodeError, ValueError):
        raise _Garbled(f"bad address {raw.decode('ascii', 'replace')!r}") from None
    cache[raw] = text
    return text


def _number(parts: list[bytes], index: int | None, name: str, upper: int | None = None) -> int | None:
    """A non-negative integer field; `-` (no value, e.g. ports of ICMP in some formats) is None."""
    if index is None:
        return None
    raw = parts[index]
    if raw == b"-":
        return None
    if not raw.isdigit():
        raise _Garbled(f"{name} {raw.decode('ascii', 'replace')!r} is not a number")
    value = int(raw)
    if upper is not None and value > upper:
        raise _Garbled(f"{name} {value} is out of range")
    return value


def _gzip_chunks(content: bytes) -> Iterator[bytes]:
    """Inflate gzip members one after another (`cat a.gz b.gz` is valid gzip), streaming.

    Raises _Truncated after the last readable byte, so the caller keeps everything before it.
    """
    pos = 0
    while pos < len(content):
        inflater = zlib.decompressobj(wbits=31)
        while not inflater.eof:
            if pos >= len(content):
                raise _Truncated("the compressed stream ends before its end marker")
            block = content[pos : pos + _CHUNK]
            pos += len(block)
            try:
                data = inflater.decompress(block)
            except zlib.error as exc:
                raise _Truncated(str(exc)) from None
            if data:
                yield data
        pos -= len(inflater.unused_data)
        if pos < len(content) and not content.startswith(_GZIP_MAGIC, pos):
            if content[pos:].strip(b"\x00"):  # zero padding after the last member is harmless
                raise _Truncated("bytes after the last gzip member are not gzip")
            return


def _lines(content: bytes, origin: str, read: FlowLogRead) -> Iterator[tuple[int, bytes]]:
    """Numbered lines of plain or gzip content; a truncated or corrupt gzip ends with one problem."""
    if not content.startswith(_GZIP_MAGIC):
        for number, line in enumerate(io.BytesIO(content), start=1):
            yield number, line
        return
    number = 0
    pending = b""
    try:
        for chunk in _gzip_chunks(content):
            lines = (pending + chunk).split(b"\n")
            pending = lines.pop()
            for line in lines:
                number += 1
                yield number, line
    except _Truncated as exc:
        where = f"after line {number}" if number else "before the first line"
        dropped = "; the partial line after it was dropped" if pending else ""
        message = f"gzip stream is truncated or corrupt {where} ({exc}){dropped}"
        read.problems.append(Problem(origin, message, number + 1))
        return
    if pending:
        yield number + 1, pending
