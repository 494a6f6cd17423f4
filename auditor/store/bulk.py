"""Fact rows written at the speed of the database driver: raw `executemany` on SQLite, `COPY` on PostgreSQL.

Going through SQLAlchemy's insert cost more than the database itself (parameter processing and one JSON
encoding per row by the column type). Here each fact's data is encoded once, as canonical JSON: that text
is what the store keeps and what the running facts digest hashes, so the digest needs no read-back. Row
ids come back from one aggregate over the primary-key range just written.

Canonical JSON is `json.dumps(sort_keys=True, separators=(",", ":"), ensure_ascii=False)` (see
auditor.evidence.chain). orjson writes the same bytes for the values a fact holds (str keys, str, int,
bool, None, lists and dicts) four times faster, but not for floats (1e+16 is `1e16`, NaN is `null`), and
it refuses ints beyond 64 bits, non-str keys and lone surrogates. So orjson encodes only facts whose model
cannot serialise a float (`float_free`, decided once per class from its pydantic schema, and enforced per
fact by serialising with warnings as errors: a value of another type than its schema says raises instead
of passing through); anything orjson refuses, and every other fact, takes the json module's path."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from enum import Enum
from typing import Any, NamedTuple

import orjson
from pydantic import BaseModel
from pydantic_core import PydanticSerializationError
from sqlalchemy import Connection, bindparam, func, insert, select

from auditor.facts import FactRecord
from auditor.store.models import Fact

COLUMNS = "run_id, target_id, capture_id, kind, subject, data"
SQLITE_INSERT = f"INSERT INTO facts ({COLUMNS}) VALUES (?, ?, ?, ?, ?, ?)"
PG_COPY = f"COPY facts ({COLUMNS}) FROM STDIN"
# canonical_json's encoder (auditor.evidence.chain), built once instead of once per fact
_CANONICAL = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False)
# Sorted keys; any subclass of str, int, dict or list, any datetime or dataclass goes to `default` (none
# given: orjson raises), so only exact JSON types are written by orjson.
_ORJSON = (
    orjson.OPT_SORT_KEYS
    | orjson.OPT_PASSTHROUGH_SUBCLASS
    | orjson.OPT_PASSTHROUGH_DATETIME
    | orjson.OPT_PASSTHROUGH_DATACLASS
)
_NEW_IDS = select(func.count(), func.min(Fact.id), func.max(Fact.id)).where(Fact.id > bindparam("after"))


class WrittenFact(NamedTuple):
    kind: str
    subject: str
    data: bytes  # canonical JSON, exactly as stored
    exact: bool  # the store hands these bytes back unchanged (see _exact)


def canonical_bytes(value: Any) -> bytes:
    """canonical_json(value) through orjson: only for values without floats (the caller knows they have
    none). Raises TypeError for what orjson cannot write as json would (big ints, non-str keys,
    surrogates, subclasses of the JSON types, nesting deeper than 254)."""
    return orjson.dumps(value, option=_ORJSON)


def encode(f: FactRecord) -> WrittenFact:
    return encode_all([f])[0]


def encode_all(facts: Iterable[FactRecord]) -> list[WrittenFact]:
    """Each fact's kind, subject and canonical JSON data, in order."""
    out = []
    known = _CLASSES
    dumps, opts = orjson.dumps, _ORJSON
    for f in facts:
        cls = f.__class__
        seen = known.get(cls)
        if seen is None:
            seen = known[cls] = (f.kind.value, float_free(cls))
        kind, fast = seen
        if fast:
            try:
                text = dumps(f.model_dump(mode="json", warnings="error"), option=opts)
            except (PydanticSerializationError, TypeError):  # orjson.JSONEncodeError is a TypeError
                pass
            else:  # no float in it: nothing a database could re-spell
                out.append(WrittenFact(kind, f.subject(), text, True))
                continue
        out.append(_encode_json(f, kind))
    return out


def _encode_json(f: FactRecord, kind: str) -> WrittenFact:
    """The json module's path: any value canonical_json takes."""
    try:
        text = _CANONICAL.encode(f.to_json()).encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate: stored ASCII-escaped, hashed as read back
        return WrittenFact(kind, f.subject(), b"", False)
    return WrittenFact(kind, f.subject(), text, _exact(text))


def _exact(text: bytes) -> bool:
    """JSONB re-spells a float in exponent form (1e+16 comes back as the integer 10000000000000000) and
    rejects NaN; such a row is hashed as read back, not as written. Rare enough to test the bytes."""
    return b"e+" not in text and b"E+" not in text and b"NaN" not in text and b"Infinity" not in text


_FLOAT_FREE: dict[type, bool] = {}
_CLASSES: dict[type, tuple[str, bool]] = {}  # a fact class's kind and float_free
# Core-schema nodes whose json-mode output is a str, int, bool or None, or a container of what their
# inner schemas give; validator functions only change what is validated, the inner schema serialises.
_PLAIN = {"str", "int", "bool", "none"}
_WRAPPERS = {"nullable", "default", "function-before", "function-after", "function-wrap", "model"}
_LEAF_VALUES = (str, int, bool, type(None))


def float_free(cls: type) -> bool:
    """Whether a fact model's json-mode dump can only hold str, int, bool, None, lists and str-keyed dicts
    of those (never a float), judged from its pydantic core schema. Unknown schema parts, custom
    serialisers, computed fields, extra fields and `Any` say no."""
    known = _FLOAT_FREE.get(cls)
    if known is None:
        known = (
            issubclass(cls, FactRecord)
            and cls.to_json is FactRecord.to_json
            and cls.model_dump is BaseModel.model_dump
            and _schema_ok(cls.__pydantic_core_schema__, {}, set())
        )
        _FLOAT_FREE[cls] = known
    return known


def _schema_ok(schema: Any, defs: dict[str, Any], seen: set[str]) -> bool:
    if not isinstance(schema, dict) or "serialization" in schema:
        return False
    kind = schema.get("type")
    if kind in _PLAIN:
        return True
    if kind == "definitions":
        defs = defs | {d["ref"]: d for d in schema["definitions"]}
        return all(_schema_ok(d, defs, seen) for d in schema["definitions"]) and _schema_ok(
            schema["schema"], defs, seen
        )
    if kind == "definition-ref":
        ref = schema["schema_ref"]
        if ref in seen:  # recursive: judged where it was first met
            return True
        return ref in defs and _schema_ok(defs[ref], defs, seen | {ref})
    if "ref" in schema:
        seen = seen | {schema["ref"]}
    if kind in _WRAPPERS:
        if kind == "default" and "default" in schema and not _value_ok(schema["default"]):
            return False
        if kind == "model" and (
            schema.get("root_model") or schema.get("config", {}).get("extra_fields_behavior") == "allow"
        ):
            return False
        return _schema_ok(schema["schema"], defs, seen)
    if kind == "model-fields":
        if schema.get("computed_fields") or "extras_schema" in schema:
            return False
        return all(_schema_ok(f, defs, seen) for f in schema["fields"].values())
    if kind == "model-field":
        return _schema_ok(schema["schema"], defs, seen)
    if kind in ("list", "set", "frozenset"):
        return _schema_ok(schema.get("items_schema"), defs, seen)
    if kind == "tuple":
        return all(_schema_ok(s, defs, seen) for s in schema["items_schema"])
    if kind == "dict":
        return schema.get("keys_schema", {}).get("type") == "str" and _schema_ok(
            schema.get("values_schema"), defs, seen
        )
    if kind == "union":
        return all(_schema_ok(c[0] if isinstance(c, tuple) else c, defs, seen) for c in schema["choices"])
    if kind == "literal":
        return all(_value_ok(v) for v in schema["expected"])
    if kind == "enum":
        return all(_value_ok(m.value if isinstance(m, Enum) else m) for m in schema["members"])
    return False  # float, decimal, any, json, custom types, dataclasses, ...: the json module's path


def _value_ok(value: Any) -> bool:
    if isinstance(value, Enum):
        return False  # a default left as an enum member: the serialiser's job, not worth judging here
    if isinstance(value, (list, tuple)):
        return all(_value_ok(v) for v in value)
    if isinstance(value, dict):
        return all(isinstance(k, str) and _value_ok(v) for k, v in value.items())
    return type(value) in _LEAF_VALUES


class CaptureFacts(NamedTuple):
    """One capture's facts, encoded, waiting for the batch's single write."""

    target_id: int
    capture_id: int
    seq: int
    facts: Sequence[FactRecord]
    written: list[WrittenFact]


def write_facts(conn: Connection, run_id: int, parts: Sequence[CaptureFacts]) -> None:
    """Insert several captures' facts, in order: one executemany (SQLite) or COPY (PostgreSQL) for the
    lot, so a batch of captures costs one round trip, not one per capture."""
    rows: list[tuple[int, int, int, str, str, str]] = []
    for part in parts:
        if all(w.data for w in part.written):
            rows += [
                (run_id, part.target_id, part.capture_id, w.kind, w.subject, w.data.decode("utf-8"))
                for w in part.written
            ]
            continue
        _write_rows(conn, rows)  # what came before, then this capture by the column type's encoding
        rows = []
        conn.execute(
            insert(Fact),
            [
                {
                    "run_id": run_id,
                    "target_id": part.target_id,
                    "capture_id": part.capture_id,
                    "kind": w.kind,
                    "subject": w.subject,
                    "data": f.to_json(),
                }
                for f, w in zip(part.facts, part.written, strict=True)
            ],
        )
    _write_rows(conn, rows)


def _write_rows(conn: Connection, rows: list[tuple[int, int, int, str, str, str]]) -> None:
    if not rows:
        return
    dialect = conn.dialect.name
    if dialect == "sqlite":
        conn.exec_driver_sql(SQLITE_INSERT, rows)
    elif dialect == "postgresql":
        raw = conn.connection.driver_connection
        with raw.cursor() as cur, cur.copy(PG_COPY) as copy:  # type: ignore[union-attr]
            for row in rows:
                copy.write_row(row)
    else:  # the column type's own JSON encoding (the same value)
        names = ("run_id", "target_id", "capture_id", "kind", "subject")
        conn.execute(
            insert(Fact),
            [dict(zip(names, r[:5], strict=True)) | {"data": json.loads(r[5])} for r in rows],
        )


def max_fact_id(conn: Connection) -> int:
    return int(conn.execute(select(func.coalesce(func.max(Fact.id), 0))).scalar_one())


def new_ids(conn: Connection, run_id: int, after: int, n: int) -> Sequence[int]:
    """The run's fact ids above `after`, ascending, when this run just wrote `n` rows there: one aggregate
    when they are the only rows above `after` and consecutive (a single writer: always), else read."""
    count, low, high = conn.execute(_NEW_IDS, {"after": after}).one()
    if count == n and n and high - low + 1 == n:
        return range(int(low), int(high) + 1)
    return ids_after(conn, run_id, after)


def ids_after(conn: Connection, run_id: int, after: int) -> list[int]:
    """The run's fact ids above `after`, ascending. Filtered here, not in SQL: with `run_id` in the WHERE
    clause SQLite walks the (run_id, kind) index, every fact of the run for every capture (quadratic);
    the primary-key range holds only the rows just written (and any another run wrote meanwhile)."""
    rows = conn.execute(select(Fact.id, Fact.run_id).where(Fact.id > after).order_by(Fact.id))
    return [int(i) for i, run in rows if run == run_id]
