"""verify's facts pass: the stored data text parsed once, hashed as canonical JSON, and handed to an
observer; what it hashes is what canonical_json of json.loads's value gives, for every text the writer
stores, and a change of value is still named."""

from __future__ import annotations

import json
from typing import Any

import pytest
from sqlalchemy import Engine, select, text, update

from auditor.evidence.chain import canonical_json
from auditor.evidence.verify import verify_run
from auditor.store.models import Fact
from auditor.store.running_digest import FactRow, parse_data
from tests.store.tamper_kit import build_run, drop_guards

VALUES: list[Any] = [
    {},
    [],
    {"b": 1, "a": [1, 2, {"z": None, "y": True}], "c": 'x\ny\u2028\u00e9\U0001f600\x00\x1f\\"'},
    {"f": 0.1, "g": 1e16, "h": 1e-05, "i": -0.0, "j": 1.0, "k": 123456789.125},
    {"big": 2**70, "neg": -(2**63), "u64": 2**64, "just": 10**18, "below": 10**18 - 1},
    [2**64 + 1, "x: 1.5", "[3e5"],
    {"k": [1, -2, 0, {"ip": "10.0.0.1/31", "n": 9214}]},
    {"nan": float("nan"), "inf": float("inf")},
    {"lone": "\ud800"},
    "just a string",
    17,
    None,
]


@pytest.mark.parametrize("value", VALUES, ids=range(len(VALUES)))
@pytest.mark.parametrize("spelling", ["canonical", "default", "ascii", "jsonb-like"])
def test_parse_data_is_json_loads_then_canonical_json(value: Any, spelling: str) -> None:
    dumps = {
        "canonical": lambda v: json.dumps(v, sort_keys=True, separators=(",", ":"), ensure_ascii=False),
        "default": json.dumps,
        "ascii": lambda v: json.dumps(v, sort_keys=True, separators=(",", ":")),
        "jsonb-like": lambda v: json.dumps(v, ensure_ascii=False),
    }[spelling]
    stored = dumps(value)
    expected = json.loads(stored)
    try:
        expected_bytes = canonical_json(expected)
    except UnicodeEncodeError:  # a lone surrogate: canonical_json refuses it, and so does the pass
        with pytest.raises(UnicodeEncodeError):
            parse_data(stored)
        return
    got, got_bytes = parse_data(stored)
    assert got_bytes == expected_bytes
    assert canonical_json(got) == expected_bytes and type(got) is type(expected)
    assert repr(got) == repr(expected)  # nan and -0.0 included


def test_null_data_hashes_as_null() -> None:
    assert parse_data(None) == (None, b"null")


def test_the_observer_sees_every_fact_once_and_verify_is_unchanged(engine: Engine) -> None:
    run_id = build_run(engine)
    seen: list[FactRow] = []
    ended: list[bool] = []

    class Observer:
        def __call__(self, row: FactRow) -> None:
            seen.append(row)

        def end(self) -> None:
            ended.append(True)

    plain = verify_run(engine, run_id)
    observed = verify_run(engine, run_id, observe=Observer())
    assert plain.ok and observed.ok and plain.mismatches == observed.mismatches == []
    with engine.connect() as conn:
        rows = conn.execute(select(Fact.id, Fact.data).where(Fact.run_id == run_id).order_by(Fact.id)).all()
    assert [r.id for r in seen] == [r.id for r in rows] and ended == [True]
    assert [r.data for r in seen] == [r.data for r in rows]


def test_a_changed_value_is_named_however_it_is_spelled(engine: Engine) -> None:
    """A value changed in the data text is named, as before, also when it is written in a spelling the
    pass hashes as it is (orjson's, here an exponent without a sign) rather than re-encodes."""
    run_id = build_run(engine)
    with engine.connect() as conn:
        fact = conn.execute(select(Fact.id, Fact.data).where(Fact.run_id == run_id).order_by(Fact.id)).first()
    assert fact is not None
    changed = dict(fact.data, device="somewhere-else")
    with engine.begin() as conn:
        drop_guards(conn)
        conn.execute(update(Fact).where(Fact.id == fact.id).values(data=changed))
    result = verify_run(engine, run_id)
    assert not result.ok and any(m.table == "facts" for m in result.mismatches)
    if engine.dialect.name != "sqlite":
        return
    run_id = build_run(engine)
    with engine.connect() as conn:
        fact = conn.execute(select(Fact.id, Fact.data).where(Fact.run_id == run_id).order_by(Fact.id)).first()
    assert fact is not None
    respelled = canonical_json(dict(fact.data, zz=1e16)).decode().replace("1e+16", "1e16")
    with engine.begin() as conn:  # a value the seal never had: named
        drop_guards(conn)
        conn.execute(text("UPDATE facts SET data = :d WHERE id = :i"), {"d": respelled, "i": fact.id})
    assert not verify_run(engine, run_id).ok
