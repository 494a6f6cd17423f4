"""The ingest path's fast encodings write exactly canonical_json's bytes: orjson only where the value can
hold no float (and json's path for everything orjson would spell otherwise or refuse), and digest lines
equal to running_digest.fact_line for any names."""

from __future__ import annotations

import importlib
import math
import warnings
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import computed_field, model_serializer

from auditor.enums import Tier
from auditor.evidence.chain import canonical_json
from auditor.facts import Device, FactRecord, Vrf
from auditor.facts.base import _MODEL_MODULES, _MODELS
from auditor.facts.kubernetes import K8sNetworkPolicy, PolicyFlavor
from auditor.store import bulk
from auditor.store.running_digest import fact_line
from auditor.store.writer import digest_lines

AWKWARD_STRINGS = [
    "",
    'q"uo\\te',
    "\x00\x01\x1f\x7f",
    "\b\f\n\r\t/",
    "\u2028\u2029",
    "é漢字",
    "😀\U0010ffff\uffff",
    "1e+16",
    "NaN Infinity",
]
AWKWARD_KEYS = ["", "A", "a", "é", "z", "\uffff", "😀", "10", "9", " ", "\x00"]


def _json_values(floats: bool) -> st.SearchStrategy[Any]:
    leaves = st.none() | st.booleans() | st.integers(min_value=-(2**70), max_value=2**70) | st.text()
    if floats:
        leaves |= st.floats(allow_nan=True, allow_infinity=True)
    return st.recursive(
        leaves,
        lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=4), inner, max_size=4),
        max_leaves=20,
    )


@given(_json_values(floats=False))
@settings(max_examples=400, deadline=None)
def test_orjson_writes_canonical_json_for_float_free_values(value: Any) -> None:
    try:
        fast = bulk.canonical_bytes(value)
    except TypeError:  # big ints, lone surrogates: the json module's path
        return
    assert fast == canonical_json(value)


@pytest.mark.parametrize(
    "value",
    [
        {k: k for k in AWKWARD_KEYS},
        AWKWARD_STRINGS,
        [0, -0, 1, -1, 2**53 + 1, 2**63 - 1, -(2**63), 2**64 - 1, True, False, None],
        {"nested": [{"b": [], "a": {}}, [[[]]]]},
    ],
)
def test_orjson_on_awkward_values(value: Any) -> None:
    assert bulk.canonical_bytes(value) == canonical_json(value)


class _Str(str):
    pass


@pytest.mark.parametrize("value", [2**64, -(2**63) - 1, {1: "int key"}, "\ud800", ["\udfff"], _Str("sub")])
def test_orjson_refuses_what_it_would_spell_otherwise(value: Any) -> None:
    with pytest.raises(TypeError):
        bulk.canonical_bytes(value)


def test_floats_differ_so_models_that_can_hold_one_take_json() -> None:
    # Why floats never go through orjson: how it spells them is its own and has changed between
    # releases (3.8 wrote 1e16 where json writes 1e+16). A model that can hold a float takes json's path,
    # whatever orjson is installed, so the stored bytes are canonical_json's.
    for weight in (1e16, 1e-07, 0.1, 1e22, -0.0, 123456789.125):
        record = _FloatVrf(device="d", name="v", weight=weight)
        assert not bulk.float_free(_FloatVrf)
        assert bulk.encode(record).data == canonical_json(record.to_json())
    assert not bulk.float_free(K8sNetworkPolicy)  # spec: dict[str, Any]


def test_every_model_but_any_typed_ones_is_float_free() -> None:
    for name in _MODEL_MODULES:
        importlib.import_module(f"auditor.facts.{name}")
    judged = {cls.__name__: bulk.float_free(cls) for cls in _MODELS.values()}
    assert [n for n, ok in judged.items() if not ok] == ["K8sNetworkPolicy"]


class _FloatVrf(Vrf):  # no `kind` of its own: not registered
    weight: float = 0.5


class _IntVrf(Vrf):
    weight: int = 1


class _ComputedVrf(Vrf):
    @computed_field  # type: ignore[prop-decorator]
    @property
    def ratio(self) -> float:
        return 0.5


class _SerializedVrf(Vrf):
    @model_serializer
    def _ser(self) -> dict[str, Any]:
        return {"ratio": 0.5}


class _LooseVrf(Vrf, extra="allow"):
    pass


class _OwnJsonVrf(Vrf):
    def to_json(self) -> dict[str, Any]:
        return {"own": 1.5}


@pytest.mark.parametrize("cls", [_FloatVrf, _ComputedVrf, _SerializedVrf, _LooseVrf, _OwnJsonVrf])
def test_models_that_may_serialise_floats_are_not_float_free(cls: type[FactRecord]) -> None:
    assert not bulk.float_free(cls)


def _canonical(record: FactRecord) -> bytes:
    with warnings.catch_warnings():  # an unvalidated value of the wrong type: pydantic warns, and dumps it
        warnings.simplefilter("ignore")
        return canonical_json(record.to_json())


FAST = [
    Device(device="d", hostname=AWKWARD_STRINGS[1] + AWKWARD_STRINGS[2], platform="eos", tier=Tier.BACKEND),
    Vrf(device="d", name="é漢😀", route_targets_import=AWKWARD_STRINGS, l3_vni=2**63 - 1),
    _IntVrf(device="d", name="v", weight=-(2**63)),
]
SLOW = [
    _FloatVrf(device="d", name="v", weight=1e16),
    _FloatVrf(device="d", name="v", weight=float("nan")),
    _FloatVrf(device="d", name="v", weight=-0.0),
    _IntVrf(device="d", name="v", weight=2**80),  # orjson refuses: json's path
    _IntVrf.model_construct(device="d", name="v", weight=1e-05),  # unvalidated float in an int field
    _IntVrf.model_construct(device="d", name="v", weight=2.5),
    K8sNetworkPolicy(
        cluster="c",
        namespace=None,
        name="p",
        flavor=PolicyFlavor.KUBERNETES,
        spec={"a": [1.5, 1e16, 2**70, math.inf, {"é": -0.0}], "b": None},
    ),
]


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("record", FAST + SLOW, ids=lambda r: type(r).__name__)
def test_encode_writes_canonical_json(record: FactRecord) -> None:
    (written,) = bulk.encode_all([record])
    assert (written.kind, written.subject, written.data) == (
        record.kind.value,
        record.subject(),
        _canonical(record),
    )
    # orjson's path holds no float, so nothing a database re-spells; json's path may: read back if so
    assert written.exact == (True if record in FAST else bulk._exact(written.data))


def test_a_lone_surrogate_is_left_to_the_column_type() -> None:
    (written,) = bulk.encode_all([Vrf(device="d", name="\ud800")])
    assert (written.data, written.exact) == (b"", False)


@given(st.text(), st.text(), st.text(), st.integers(0, 2**40), st.integers(1, 10**6))
@settings(max_examples=200, deadline=None)
def test_digest_lines_are_fact_lines(target: str, kind: str, subject: str, first: int, seq: int) -> None:
    data = [canonical_json({"x": subject}), b"{}"]
    written = [bulk.WrittenFact(kind, subject, d, True) for d in data]
    ids = range(first, first + len(written))
    assert digest_lines(ids, 7, seq, target, written) == [
        (i, seq, fact_line(i, 7, seq, target, kind, subject, d)) for i, d in zip(ids, data, strict=True)
    ]
