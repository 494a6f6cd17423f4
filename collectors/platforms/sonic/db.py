"""A SONiC config_db document as typed tables, whichever layout it came in.

Two layouts exist for the same data:
- nested, as in /etc/sonic/config_db.json and `show runningconfiguration all`:
  {"VLAN": {"Vlan1000": {"vlanid": "1000"}}, "VLAN_MEMBER": {"Vlan1000|Ethernet0": {...}}}
- flat, as `redis-dump` / `sonic-db-dump` and the sonic-utilities mock tables write it:
  {"VLAN|Vlan1000": {"vlanid": "1000"}} or {"VLAN|Vlan1000": {"type": "hash", "value": {...}}},
  where list fields end with "@" and hold comma-joined items ("ports@": "Ethernet0,Ethernet4"), and an
  entry without fields is {"NULL": "NULL"}.
Both become `Db.tables[TABLE][key] -> {field: value}` with lists as lists. A multi-ASIC dump keyed by
namespace ({"localhost": {...}, "asic0": {...}}) is read as the union of its namespaces.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from collectors.parsing.config_tree import Context

Row = dict[str, Any]
_REF = re.compile(r"^\[(?:[A-Z_]+)\|(.+)\]$")  # old-style reference "[WRED_PROFILE|AZURE_LOSSLESS]"
_NAMESPACE = re.compile(r"^(localhost|asic\d+|dpu\d+)$")


@dataclass
class Db:
    tables: dict[str, dict[str, Row]] = field(default_factory=dict)
    text: str = ""

    def table(self, name: str) -> dict[str, Row]:
        return self.tables.get(name, {})

    def has(self, name: str) -> bool:
        return name in self.tables

    def line_of(self, table: str, key: str) -> int | None:
        """The line of the capture that names this entry, so a problem can point at it."""
        for needle in (f'"{table}|{key}"', f'"{key}"'):
            pos = self.text.find(needle)
            if pos >= 0:
                return self.text.count("\n", 0, pos) + 1
        return None


def deref(value: object) -> str | None:
    """A reference to another table's entry, new style ("AZURE") or old ("[WRED_PROFILE|AZURE]")."""
    if not isinstance(value, str) or not value:
        return None
    m = _REF.match(value)
    return m.group(1) if m else value


def as_list(value: object) -> list[str]:
    """A SONiC list field: a JSON list, or a comma-joined string."""
    if isinstance(value, list):
        return [str(v) for v in value]
    if isinstance(value, str) and value:
        return [v.strip() for v in value.split(",") if v.strip()]
    return []


def build_db(doc: object, ctx: Context, text: str) -> Db | None:
    db = Db(text=text)
    if not isinstance(doc, dict):
        ctx.problem(1, f"config_db must be a JSON object, got {type(doc).__name__}")
        return None
    for ns_doc in _namespaces(doc):
        for key, value in ns_doc.items():
            _add(db, str(key), value, ctx)
    return db


def _namespaces(doc: dict[str, Any]) -> list[dict[str, Any]]:
    if doc and all(_NAMESPACE.match(str(k)) and isinstance(v, dict) for k, v in doc.items()):
        return [v for _, v in sorted(doc.items())]
    return [doc]


def _add(db: Db, key: str, value: object, ctx: Context) -> None:
    if "|" in key:  # flat: "TABLE|entry key"
        table, entry = key.split("|", 1)
        row = _row(value)
        if row is None:
            ctx.problem(db.line_of(table, entry), f"{key}: entry is not an object of fields; skipped")
            return
        db.tables.setdefault(table, {})[entry] = row
        return
    if not isinstance(value, dict):
        ctx.problem(db.line_of(key, key), f"table {key} is not an object; skipped")
        return
    rows = db.tables.setdefault(key, {})
    for entry, fields in value.items():
        row = _row(fields)
        if row is None:
            ctx.problem(db.line_of(key, str(entry)), f"{key}|{entry}: entry is not an object; skipped")
            continue
        rows[str(entry)] = row


def _row(value: object) -> Row | None:
    if isinstance(value, dict) and value.get("type") == "hash" and isinstance(value.get("value"), dict):
        value = value["value"]  # redis-dump-load wrapper
    if not isinstance(value, dict):
        return None
    row: Row = {}
    for name, item in value.items():
        if name == "NULL":
            continue
        if name.endswith("@"):
            row[name[:-1]] = as_list(item)
        else:
            row[name] = item
    return row
