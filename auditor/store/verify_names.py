"""Turns a difference between the sealed and the recomputed seal document into a named mismatch."""

from __future__ import annotations

from typing import Any

from auditor.store.seal import missing

_SECTIONS = {
    "targets": "targets",
    "captures": "captures",
    "facts": "facts",
    "findings": "findings",
    "problems": "problems",
}


def _show(value: Any, limit: int = 80) -> str:
    if missing(value):
        return "nothing"
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _change(was: Any, now: Any) -> str:
    if missing(now):
        return "deleted since the seal"
    if missing(was):
        return "added since the seal"
    return "changed since the seal"


def describe(path: tuple[str, ...], was: Any, now: Any) -> dict[str, Any]:
    """Keyword arguments for a Mismatch naming what `path` of the seal document covers."""
    section = path[0] if path else ""
    if section == "run" and len(path) == 2:
        column = path[1]
        what = "chain head" if column in ("chain_head", "capture_count") else "run"
        return {
            "what": what,
            "detail": f"runs.{column} {_change(was, now)}: sealed {_show(was)}, stored {_show(now)}",
            "table": "runs",
            "field": column,
        }
    if section == "config":
        if len(path) == 3 and path[1] == "keys":
            return {
                "what": "config",
                "detail": f"stored config field {path[2]!r} {_change(was, now)}",
                "table": "runs",
                "field": f"config.{path[2]}",
            }
        if path[1:] == ("waivers",):
            return {
                "what": "config",
                "detail": f"stored waivers {_waivers(was, now)}",
                "table": "runs",
                "field": "config.waivers",
            }
        return {
            "what": "config",
            "detail": "the stored config changed since the seal",
            "table": "runs",
            "field": "config",
        }
    if section in _SECTIONS:
        table = _SECTIONS[section]
        if len(path) >= 3 and path[1] in ("rows", "by_capture", "by_check"):
            return _row(table, path, was, now)
        if len(path) == 2 and path[1] == "count":
            return {
                "what": table,
                "detail": f"{table}: {_show(now)} rows stored, {_show(was)} sealed",
                "table": table,
            }
        return {
            "what": table,
            "detail": f"{table} changed since the seal ({'.'.join(path[1:])})",
            "table": table,
        }
    return {"what": "seal", "detail": f"seal field {'.'.join(path)} {_change(was, now)}", "table": "seals"}


def _row(table: str, path: tuple[str, ...], was: Any, now: Any) -> dict[str, Any]:
    key = path[2]
    if path[1] == "by_capture":
        counts = f"{_count(was)} sealed, {_count(now)} stored"
        return {
            "what": table,
            "detail": f"facts of capture #{key} {_change(was, now)} ({counts})",
            "table": table,
            "row": f"capture {key}",
        }
    if path[1] == "by_check":
        counts = f"{_count(was)} sealed, {_count(now)} stored"
        return {
            "what": table,
            "detail": f"findings of check {key} {_change(was, now)} ({counts})",
            "table": table,
            "row": f"check {key}",
            "field": None,
        }
    label = f"capture #{key}" if table == "captures" else f"{table} row {key}"
    if len(path) == 4:  # a field of a target row
        return {
            "what": table,
            "detail": f"{label}: field {path[3]!r} {_change(was, now)}",
            "table": table,
            "row": key,
            "field": path[3],
        }
    return {"what": table, "detail": f"{label} {_change(was, now)}", "table": table, "row": key}


def _count(value: Any) -> str:
    return str(value[0]) if isinstance(value, list) and value else "0"


def _waivers(was: Any, now: Any) -> str:
    if not isinstance(was, list) or not isinstance(now, list):
        return _change(was, now)
    changed = [i for i in range(min(len(was), len(now))) if was[i] != now[i]]
    parts = [f"waivers[{i}] changed" for i in changed]
    if len(now) > len(was):
        parts.append(f"{len(now) - len(was)} added")
    if len(was) > len(now):
        parts.append(f"{len(was) - len(now)} deleted")
    return ", ".join(parts) + " since the seal"
