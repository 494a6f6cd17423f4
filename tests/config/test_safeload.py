"""Bounded YAML/JSON reading: bombs and deep nesting refused before anything expands or recurses."""

from __future__ import annotations

import json

import pytest

from auditor.safeload import LimitExceeded, Limits, check_json_depth, load_json, load_yaml, load_yaml_all


def _bomb(levels: int, fan: int = 10) -> str:
    lines = ["a0: &a0 [" + ",".join(['"x"'] * fan) + "]"]
    lines += [f"a{i}: &a{i} [" + ",".join([f"*a{i - 1}"] * fan) + "]" for i in range(1, levels)]
    return "\n".join(lines) + "\n"


def test_alias_bomb_is_refused_without_expanding() -> None:
    with pytest.raises(LimitExceeded, match="aliases are expanded"):
        load_yaml(_bomb(9))


def test_small_alias_use_is_counted_exactly() -> None:
    text = "a: &a [1, 2, [3, 4]]\nb: *a\nc: *a\n"  # 1 root + 3 keys + 3 x 6 nodes = 22
    assert load_yaml(text, Limits(max_nodes=22)) == {
        "a": [1, 2, [3, 4]],
        "b": [1, 2, [3, 4]],
        "c": [1, 2, [3, 4]],
    }
    with pytest.raises(LimitExceeded):
        load_yaml(text, Limits(max_nodes=21))


def test_yaml_depth_bound_names_the_line() -> None:
    with pytest.raises(LimitExceeded) as info:
        load_yaml("ok: 1\nbad: " + "[" * 100 + "]" * 100, Limits(max_depth=50))
    assert info.value.line == 2
    assert load_yaml("x: " + "[" * 40 + "]" * 40, Limits(max_depth=50)) is not None


def test_multi_document_streams_are_bounded_together() -> None:
    docs = load_yaml_all("a: 1\n---\nb: 2\n")
    assert docs == [{"a": 1}, {"b": 2}]
    with pytest.raises(LimitExceeded):
        load_yaml_all("a: 1\n---\n" + _bomb(9))


def test_json_depth_ignores_brackets_inside_strings() -> None:
    text = json.dumps({"a": "[[[[{{{{" * 100, "b": [[[1]]]})
    assert load_json(text, Limits(max_depth=5))["b"] == [[[1]]]
    check_json_depth(b'{"esc": "\\"[[["}', Limits(max_depth=1))


def test_json_depth_bound() -> None:
    with pytest.raises(LimitExceeded, match="deeper than 64"):
        load_json("[" * 100_000 + "]" * 100_000)


def test_size_bound() -> None:
    with pytest.raises(LimitExceeded, match="over the"):
        load_json("[" + "1," * 100 + "1]", Limits(max_bytes=50))
    with pytest.raises(LimitExceeded, match="over the"):
        load_yaml("x" * 100, Limits(max_bytes=50))
