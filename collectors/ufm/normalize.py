"""UFM's `GET /ufmRest/resources/pkeys?guids_data=true` answer -> IbPartition facts ("ufm.pkeys").

The answer maps each P_Key to its partition:
    {"0x7fff": {"partition": "management", "ip_over_ib": true,
                "guids": [{"guid": "0002c903000e0b72", "membership": "full", "index0": true}]}, ...}
Some UFM versions answer with a list of such objects, each with its "pkey"; both are read. GUIDs are
written as 0x + 16 lowercase hex digits (the OpenSM normalizer does the same), a membership UFM does
not name is taken as full: the reading that cannot hide a crossing.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any, Literal

from auditor.capture import RawCapture
from auditor.enums import FactKind
from auditor.facts import IbPartition, PartitionMember
from auditor.normalize import NormalizeResult, Problem
from auditor.safeload import load_json

DEFAULT_PKEY = 0x7FFF
Membership = Literal["full", "limited", "both"]


def normalize_pkeys(capture: RawCapture) -> NormalizeResult:
    result = NormalizeResult()
    fabric = capture.meta.get("fabric") or capture.target
    try:
        data = load_json(capture.content.decode("utf-8", errors="replace"))
    except json.JSONDecodeError as exc:
        result.problems.append(
            Problem(
                capture.origin,
                f"UFM answer is not JSON: {exc.msg}",
                exc.lineno,
                hint="re-collect; check the URL",
            )
        )
        return result  # no coverage: an unreadable answer proves nothing
    except ValueError as exc:  # over a bound of auditor.safeload, or a number of thousands of digits
        result.problems.append(
            Problem(capture.origin, f"UFM answer refused: {exc}", getattr(exc, "line", None))
        )
        return result
    for key, entry in _entries(data):
        try:
            pkey = int(str(key), 16) & DEFAULT_PKEY
        except ValueError:
            result.problems.append(
                Problem(capture.origin, f"P_Key {key!r} is not hexadecimal; partition skipped")
            )
            continue
        members = [
            _member(g, result, capture.origin) for g in entry.get("guids") or [] if isinstance(g, dict | str)
        ]
        result.add(
            IbPartition(
                fabric=fabric,
                name=str(entry.get("partition") or f"0x{pkey:04x}"),
                pkey=pkey,
                default=pkey == DEFAULT_PKEY,
                ipoib=bool(entry.get("ip_over_ib", False)),
                members=[m for m in members if m is not None],
            )
        )
    result.covers = {FactKind.IB_PARTITION}
    return result


def _entries(data: Any) -> Iterator[tuple[str, dict[str, Any]]]:
    if isinstance(data, dict):
        for key, value in data.items():
            if isinstance(value, dict):
                yield str(key), value
    elif isinstance(data, list):
        for value in data:
            if isinstance(value, dict) and value.get("pkey") is not None:
                yield str(value["pkey"]), value


def _member(item: dict[str, Any] | str, result: NormalizeResult, origin: str) -> PartitionMember | None:
    raw = item if isinstance(item, str) else str(item.get("guid", ""))
    try:
        guid = f"0x{int(raw, 16):016x}"
    except ValueError:
        result.problems.append(Problem(origin, f"port GUID {raw!r} is not hexadecimal; member skipped"))
        return None
    membership = "full" if isinstance(item, str) else str(item.get("membership") or "full").lower()
    known: dict[str, Membership] = {"full": "full", "limited": "limited", "both": "both"}
    return PartitionMember(guid=guid, membership=known.get(membership, "full"))
