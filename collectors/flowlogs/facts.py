"""Flow totals as facts, and as the JSON document a live collection stores (`aws.flowlog.aggregate`).

The document is what the engine made of a window of objects; its facts come back out of it unchanged,
so re-normalizing stored evidence gives the same facts. The objects' SHA-256 sit in the evidence chain
before it, so anyone can fetch them (kept under Object Lock) and recompute the document.
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import TypeAdapter

from auditor.facts.base import FactRecord
from auditor.facts.flows import FlowConversation, FlowLogStats
from auditor.gcpause import paused_gc
from auditor.normalize import Problem
from collectors.flowlogs.totals import ConversationBlock, FlowTotals

DOCUMENT_VERSION = 1
_CONVERSATIONS = TypeAdapter(list[FlowConversation])


def totals_facts(totals: FlowTotals, source: str, window: tuple[int, int] | None = None) -> list[FactRecord]:
    """One FlowConversation per conversation (deterministic order) and one FlowLogStats."""
    facts: list[FactRecord]
    with paused_gc():
        block = totals.single_block()
        if block is not None:
            facts = list(block_facts(block, source))
        else:
            facts = [
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
                    interface_id=agg.interface_id,
                )
                for (src, dst, port, protocol, action), agg in totals.sorted_conversations()
            ]
    facts.append(stats_fact(totals, source, window))
    return facts


def block_facts(block: ConversationBlock, source: str) -> list[FlowConversation]:
    """The engine's block as facts, validated in one call (each object of the block starts with
    `{"src_addr":`, so naming the source is one text substitution)."""
    named = block.json.replace('{"src_addr":', '{"source":' + json.dumps(source) + ',"src_addr":')
    return _CONVERSATIONS.validate_json(named)


def stats_fact(totals: FlowTotals, source: str, window: tuple[int, int] | None = None) -> FlowLogStats:
    return FlowLogStats(
        source=source,
        files=totals.files,
        records=totals.records,
        accepted=totals.accepted,
        rejected=totals.rejected,
        nodata=totals.nodata,
        skipdata=totals.skipdata,
        malformed=totals.malformed,
        first_seen=totals.first_seen,
        last_seen=totals.last_seen,
        window_start=window[0] if window else None,
        window_end=window[1] if window else None,
    )


def totals_document(
    totals: FlowTotals,
    source: str,
    window: tuple[int, int] | None,
    objects: list[dict[str, Any]],
    *,
    complete: bool = True,
) -> dict[str, Any]:
    """The stored form of one window's aggregation: the facts, the problems, the objects it read, and
    whether every object of the window could be read (if not, the facts are kept but prove nothing
    absent)."""
    return {
        "FlowLogAggregate": {
            "version": DOCUMENT_VERSION,
            "complete": complete,
            "source": source,
            "window": list(window) if window else None,
            "objects": objects,
            "facts": [f.to_json() | {"kind": f.kind.value} for f in totals_facts(totals, source, window)],
            "problems": [
                {"origin": p.origin, "line": p.line, "message": p.message, "hint": p.hint}
                for p in totals.problems
            ],
        }
    }


def document_facts(document: Any, origin: str) -> tuple[list[FactRecord], list[Problem], bool]:
    """Facts, problems and completeness back out of a stored aggregate document; a bad item is a
    problem, not a crash."""
    body = document.get("FlowLogAggregate") if isinstance(document, dict) else None
    if not isinstance(body, dict) or body.get("version") != DOCUMENT_VERSION:
        return [], [Problem(origin, f"not a flow-log aggregate document (version {DOCUMENT_VERSION})")], False
    facts: list[FactRecord] = []
    problems: list[Problem] = []
    items, noted = body.get("facts") or [], body.get("problems") or []
    if not isinstance(items, list) or not isinstance(noted, list):
        return [], [Problem(origin, "a flow-log aggregate's facts and problems must be lists")], False
    for index, item in enumerate(items):
        try:
            data = dict(item)
            kind = data.pop("kind")
            models: dict[str, type[FactRecord]] = {
                "flow_conversation": FlowConversation,
                "flow_log_stats": FlowLogStats,
            }
            model = models[kind]
            facts.append(model.model_validate(data))
        except (TypeError, KeyError, ValueError) as exc:
            problems.append(Problem(origin, f"facts[{index}] cannot be read: {exc}"))
    for item in noted:
        if isinstance(item, dict) and isinstance(item.get("message"), str):
            line = item.get("line")
            problems.append(
                Problem(
                    str(item.get("origin") or origin),
                    item["message"],
                    line if isinstance(line, int) else None,
                    str(item.get("hint") or "fix or re-collect this evidence"),
                )
            )
    return facts, problems, body.get("complete") is True
