"""VPC flow-log records over the audit window: S3 objects (text or Parquet) or CloudWatch Logs events.

Each object (or FilterLogEvents page) is streamed to a spool file while its SHA-256 is computed, and
chained as an `aws.flowlog.object` capture holding only its URI, hash and size (the object stays in S3,
under Object Lock when the destination is immutable). The DuckDB engine then aggregates the spooled
objects of one flow log, in parallel, into one `aws.flowlog.aggregate` capture: conversations, counts
and the malformed lines with their object and line. An object that cannot be read leaves the aggregate
incomplete, which keeps its facts (a violation found is still found) but not its coverage.
"""

from __future__ import annotations

import hashlib
import json
import re
import tempfile
from collections.abc import Generator, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from auditor.capture import RawCapture
from auditor.normalize import Problem
from collectors.aws.calls import ApiCall
from collectors.aws.capture import call_text
from collectors.aws.destinations import bucket_of
from collectors.aws.reader import CallFailed, Denied, Reader
from collectors.flowlogs.engine import FlowLogEngine, FlowObject
from collectors.flowlogs.facts import totals_document
from collectors.flowlogs.fields import LayoutError, log_format_fields

CALLS: tuple[ApiCall, ...] = (
    ApiCall("s3", "ListObjectsV2"),
    ApiCall("s3", "GetObject"),
    ApiCall("logs", "FilterLogEvents"),
)
OBJECT_FORMAT = "aws.flowlog.object"
AGGREGATE_FORMAT = "aws.flowlog.aggregate"
_CHUNK = 1 << 20
_KEY_TIME = re.compile(r"_(\d{8}T\d{4}Z)_")
_DELIVERY_SLACK = timedelta(minutes=15)  # objects land a few minutes after the records they hold


@dataclass
class Window:
    start: datetime
    end: datetime

    @classmethod
    def last(cls, hours: int, now: datetime | None = None) -> Window:
        end = now or datetime.now(UTC)
        return cls(end - timedelta(hours=hours), end)

    def days(self) -> list[datetime]:
        day = self.start.replace(hour=0, minute=0, second=0, microsecond=0)
        out = []
        while day <= self.end:
            out.append(day)
            day += timedelta(days=1)
        return out

    def seconds(self) -> tuple[int, int]:
        return int(self.start.timestamp()), int(self.end.timestamp())


@dataclass
class _Spool:
    """The objects of one flow log read so far, and whether every one of them could be read."""

    root: Path
    objects: list[FlowObject] = field(default_factory=list)
    listed: list[dict[str, Any]] = field(default_factory=list)
    complete: bool = True


def collect_records(
    reader: Reader, flow_logs: list[dict[str, Any]], window: Window, temp_dir: Path | None = None
) -> Iterator[RawCapture | Problem]:
    for flow_log in flow_logs:
        kind = flow_log.get("LogDestinationType") or "cloud-watch-logs"
        flow_log_id = str(flow_log.get("FlowLogId") or "unknown")
        try:
            fields = log_format_fields(flow_log.get("LogFormat"))
        except LayoutError as exc:
            yield Problem(f"{reader.target}: {flow_log_id}", f"LogFormat {exc}: its records are not read")
            continue
        with tempfile.TemporaryDirectory(prefix="auditor-flowlogs-", dir=temp_dir) as tmp:
            spool = _Spool(Path(tmp))
            if kind == "s3":
                source = yield from _s3_objects(reader, flow_log, fields, window, spool)
            elif kind == "cloud-watch-logs":
                source = yield from _log_events(reader, flow_log, fields, window, spool)
            else:
                continue  # Kinesis Data Firehose: the records are not kept where the auditor can read them
            if source is not None:
                yield _aggregate(reader, flow_log_id, source, window, spool)


def _s3_prefix(flow_log: dict[str, Any], account: str, region: str, day: datetime) -> str:
    _, prefix = bucket_of(str(flow_log.get("LogDestination") or ""))
    base = f"{prefix}/" if prefix else ""
    options = flow_log.get("DestinationOptions") or {}
    if options.get("HiveCompatiblePartitions"):
        return (
            f"{base}AWSLogs/aws-account-id={account}/aws-service=vpcflowlogs/aws-region={region}/"
            f"year={day:%Y}/month={day:%m}/day={day:%d}/"
        )
    return f"{base}AWSLogs/{account}/vpcflowlogs/{region}/{day:%Y}/{day:%m}/{day:%d}/"


def _in_window(key: str, modified: datetime | None, window: Window) -> bool:
    match = _KEY_TIME.search(key.rsplit("/", 1)[-1])
    when = datetime.strptime(match.group(1), "%Y%m%dT%H%MZ").replace(tzinfo=UTC) if match else modified
    return when is not None and window.start <= when <= window.end + _DELIVERY_SLACK


def _s3_objects(
    reader: Reader, flow_log: dict[str, Any], fields: tuple[str, ...], window: Window, spool: _Spool
) -> Generator[RawCapture | Problem, None, str | None]:
    """Yields the evidence of each object in the window; returns the source name (None: nothing read)."""
    flow_log_id = str(flow_log.get("FlowLogId"))
    bucket, _ = bucket_of(str(flow_log.get("LogDestination") or ""))
    what = f"flow-log records of {flow_log_id}"
    keys: list[dict[str, Any]] = []
    try:
        for day in window.days():
            prefix = _s3_prefix(flow_log, reader.account, reader.region, day)
            for page in reader.pages("s3", "ListObjectsV2", Bucket=bucket, Prefix=prefix):
                for item in page.get("Contents") or []:
                    key = str(item["Key"])
                    if flow_log_id in key and _in_window(key, item.get("LastModified"), window):
                        keys.append(item)
    except Denied as exc:
        yield reader.denied_problem(exc, what)
        return None
    except CallFailed as exc:
        yield reader.failed_problem(exc, what)
        return None
    for index, item in enumerate(keys):
        yield from _download(reader, bucket, str(item["Key"]), fields, spool, index)
    base = _s3_prefix(flow_log, reader.account, reader.region, window.start).rsplit("/", 4)[0]
    return f"s3://{bucket}/{base}/ ({flow_log_id})"


def _download(
    reader: Reader, bucket: str, key: str, fields: tuple[str, ...], spool: _Spool, index: int
) -> Iterator[RawCapture | Problem]:
    uri = f"s3://{bucket}/{key}"
    try:
        response = reader.call("s3", "GetObject", Bucket=bucket, Key=key)
    except (Denied, CallFailed) as exc:
        spool.complete = False
        if isinstance(exc, Denied):
            yield reader.denied_problem(exc, f"flow-log object {uri}")
        else:
            yield reader.failed_problem(exc, f"flow-log object {uri}")
        return
    path = spool.root / f"{index:06d}{'.parquet' if key.endswith('.parquet') else ''}"
    digest = hashlib.sha256()
    size = 0
    with path.open("wb") as out:
        for chunk in response["Body"].iter_chunks(_CHUNK):
            digest.update(chunk)
            out.write(chunk)
            size += len(chunk)
    version = response.get("VersionId")
    if version and version != "null":
        uri = f"{uri}?versionId={version}"
    meta = {
        "account": reader.account,
        "region": reader.region,
        "etag": str(response.get("ETag", "")).strip('"'),
    }
    for name, value in (
        ("version_id", version),
        ("object_lock_mode", response.get("ObjectLockMode")),
        ("object_lock_retain_until", response.get("ObjectLockRetainUntilDate")),
        ("last_modified", response.get("LastModified")),
    ):
        if value:
            meta[name] = value.isoformat() if isinstance(value, datetime) else str(value)
    sha = digest.hexdigest()
    spool.objects.append(FlowObject(path, uri, fields, parquet=key.endswith(".parquet")))
    spool.listed.append({"uri": uri, "sha256": sha, "size": size})
    yield RawCapture(
        target=reader.target,
        format=OBJECT_FORMAT,
        source=call_text("s3", "GetObject", {"Bucket": bucket, "Key": key}),
        origin=reader.origin,
        collected_at=datetime.now(UTC),
        content=b"",
        meta=meta,
        content_uri=uri,
        content_sha256=sha,
        content_size=size,
    )


def _log_events(
    reader: Reader, flow_log: dict[str, Any], fields: tuple[str, ...], window: Window, spool: _Spool
) -> Generator[RawCapture | Problem, None, str | None]:
    """One evidence capture per FilterLogEvents page with events; returns the source name."""
    group = str(flow_log.get("LogGroupName") or "")
    flow_log_id = str(flow_log.get("FlowLogId"))
    start_ms, end_ms = (int(t * 1000) for t in window.seconds())
    params = {"logGroupName": group, "startTime": start_ms, "endTime": end_ms}
    try:
        for number, page in enumerate(reader.pages("logs", "FilterLogEvents", **params), start=1):
            events = page.get("events") or []
            if not events:
                continue
            body = json.dumps({"events": events}, sort_keys=True).encode()
            path = spool.root / f"{number:06d}.log"
            path.write_bytes(b"".join(str(e.get("message", "")).encode() + b"\n" for e in events))
            uri = f"cloudwatch-logs://{group}?startTime={start_ms}&endTime={end_ms}&page={number}"
            sha = hashlib.sha256(body).hexdigest()
            spool.objects.append(FlowObject(path, uri, fields))
            spool.listed.append({"uri": uri, "sha256": sha, "size": len(body)})
            yield RawCapture(
                target=reader.target,
                format=OBJECT_FORMAT,
                source=call_text("logs", "FilterLogEvents", params, number),
                origin=reader.origin,
                collected_at=datetime.now(UTC),
                content=b"",
                meta={"account": reader.account, "region": reader.region, "events": str(len(events))},
                content_uri=uri,
                content_sha256=sha,
                content_size=len(body),
            )
    except Denied as exc:
        yield reader.denied_problem(exc, f"flow-log records of {flow_log_id}")
        return None
    except CallFailed as exc:
        yield reader.failed_problem(exc, f"flow-log records of {flow_log_id}")
        return None
    return f"cloudwatch-logs:{group} ({flow_log_id})"


def _aggregate(reader: Reader, flow_log_id: str, source: str, window: Window, spool: _Spool) -> RawCapture:
    with FlowLogEngine(temp_dir=spool.root) as engine:
        totals = engine.aggregate(spool.objects)
    document = totals_document(totals, source, window.seconds(), spool.listed, complete=spool.complete)
    start, end = (t.strftime("%Y-%m-%dT%H:%M:%SZ") for t in (window.start, window.end))
    return RawCapture(
        target=reader.target,
        format=AGGREGATE_FORMAT,
        source=f"flow-log records of {flow_log_id} from {start} to {end}: {len(spool.objects)} objects",
        origin=reader.origin,
        collected_at=datetime.now(UTC),
        content=json.dumps(document, indent=None, separators=(",", ":")).encode(),
        meta={
            "account": reader.account,
            "region": reader.region,
            "flow_log_id": flow_log_id,
            "source": source,
        },
    )
