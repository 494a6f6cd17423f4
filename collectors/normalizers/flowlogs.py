"""Normalize VPC flow-log evidence into conversation facts and per-source counts.

`aws.flowlog`: one flow-log object (a file read offline, or an exported object): the text AWS delivers
to S3 or exports from CloudWatch, plain or gzip, in the default version-2 field order or the order named
by a header line (custom v3-v5 formats), or a Parquet object. It goes through the same DuckDB engine as
live collection (collectors/flowlogs), so the same object gives the same facts offline and live.
NODATA and SKIPDATA records are counted, not facts; a garbled line or a truncated gzip becomes a Problem
naming the line, and the rest is kept. Never raises.

`aws.flowlog.aggregate`: what live collection made of one flow log's window (see flowlogs/facts.py).
`aws.flowlog.object`: an object's place in the evidence chain (hash and URI only); no facts of its own.
"""

from __future__ import annotations

import io
import tempfile
from pathlib import Path

from auditor.capture import RawCapture
from auditor.enums import FactKind
from auditor.normalize import NormalizeResult, Problem
from auditor.safeload import load_json
from collectors.flowlogs.engine import FlowLogEngine, FlowObject
from collectors.flowlogs.facts import document_facts, totals_facts
from collectors.flowlogs.fields import DEFAULT_FIELDS, KNOWN_FIELDS, LayoutError, log_format_fields
from collectors.flowlogs.reference import read_stream
from collectors.flowlogs.totals import MAX_REPORTED_LINES, FlowTotals

__all__ = [
    "DEFAULT_FIELDS",
    "KNOWN_FIELDS",
    "MAX_REPORTED_LINES",
    "normalize_flow_aggregate",
    "normalize_flow_log",
    "normalize_flow_object",
    "read_flow_log",
]
COVERS = frozenset({FactKind.FLOW_CONVERSATION, FactKind.FLOW_LOG_STATS})
_PARQUET_MAGIC = b"PAR1"


def normalize_flow_log(capture: RawCapture) -> NormalizeResult:
    """FlowConversation facts and one FlowLogStats for one flow-log object."""
    result = NormalizeResult(covers=set(COVERS))
    source = capture.meta.get("source") or capture.origin
    try:
        fields = log_format_fields(capture.meta.get("log_format"))
    except LayoutError as exc:
        result.problems.append(Problem(capture.origin, f"meta log_format {exc}"))
        return result
    try:
        with tempfile.TemporaryDirectory(prefix="auditor-flowlog-") as tmp:
            path = Path(tmp) / "object"
            path.write_bytes(capture.content)
            parquet = capture.content.startswith(_PARQUET_MAGIC)
            with FlowLogEngine(memory_limit="512MB") as engine:
                totals = engine.aggregate([FlowObject(path, capture.origin, fields, parquet=parquet)])
    except Exception as exc:  # last resort: a normalizer never takes the run down
        result.problems.append(Problem(capture.origin, f"could not read the flow log: {exc!r}"))
        return result
    result.problems.extend(totals.problems)
    result.facts.extend(totals_facts(totals, source))
    return result


def read_flow_log(content: bytes, origin: str) -> FlowTotals:
    """The reference reader on one object in memory (what the engine's results are held to)."""
    totals = FlowTotals(files=1)
    read_stream(io.BytesIO(content), origin, totals)
    totals.finish()
    return totals


def normalize_flow_aggregate(capture: RawCapture) -> NormalizeResult:
    """Facts of one flow log's window, as the live collector's engine aggregated them."""
    result = NormalizeResult(covers=set(COVERS))
    try:
        document = load_json(capture.content)
    except ValueError as exc:  # not UTF-8, not JSON, over a bound of auditor.safeload, a huge number
        result.problems.append(Problem(capture.origin, f"invalid flow-log aggregate JSON: {exc}"))
        result.covers = set()
        return result
    facts, problems, complete = document_facts(document, capture.origin)
    result.facts.extend(facts)
    result.problems.extend(problems)
    if not facts or not complete:
        result.covers = set()
    if facts and not complete:
        result.problems.append(
            Problem(
                capture.origin,
                "some flow-log objects of the window could not be read: the flows found are kept, "
                "but the absence of a flow is not proven",
                hint="grant the missing permission or re-run",
            )
        )
    return result


def normalize_flow_object(capture: RawCapture) -> NormalizeResult:
    """An object read for an aggregate: evidence only (its hash is chained); the facts are the aggregate's."""
    del capture
    return NormalizeResult()
