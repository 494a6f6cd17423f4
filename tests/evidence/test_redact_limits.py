"""Hostile input has limits: what the redactor cannot walk safely is refused with its place, never stored,
and no input makes redaction slower than its size warrants.

Before: a deeply nested JSON or YAML file escaped as a RecursionError (and stopped its whole target);
a Secret full of YAML aliases took 55 s; repeated PEM BEGIN lines were quadratic. The time bounds are
generous (a loaded CI machine), the inputs large enough that the old behaviour would blow far past them.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import duckdb
import pytest

from auditor.evidence.redact import REDACTED, RedactionRefused, redact, redact_text
from auditor.evidence.redact_struct import MAX_DEPTH, MAX_EXPANDED


def _deep_json(levels: int) -> str:
    return '{"kind": "ConfigMap", "data": ' + '{"a": ' * levels + '"x"' + "}" * levels + "}\n"


def _deep_yaml(levels: int) -> str:
    return (
        "kind: ConfigMap\ndata:\n"
        + "".join("  " * i + "  k:\n" for i in range(levels))
        + "  " * levels
        + "  v\n"
    )


def _alias_secret(size: int = 20_000) -> str:
    lines = ["apiVersion: v1", "kind: Secret", "metadata: {name: bomb}", "data:", "  a0: &a0 c2VjcmV0"]
    i = 1
    while sum(len(x) + 1 for x in lines) < size:
        lines.append(f"  a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 9) + "]")
        i += 1
    return "\n".join(lines) + "\n"


def _timed(content: bytes, fmt: str) -> tuple[float, object]:
    start = time.perf_counter()
    try:
        outcome: object = redact(content, fmt, "x")
    except RedactionRefused as exc:
        outcome = exc
    return time.perf_counter() - start, outcome


@pytest.mark.parametrize(
    ("fmt", "text", "line"),
    [
        ("aws.describe", _deep_json(50_000), 1),
        ("k8s.manifest", _deep_json(MAX_DEPTH + 5), 1),
        ("k8s.manifest", _deep_yaml(MAX_DEPTH + 5), MAX_DEPTH + 2),
        ("k8s.manifest", "x: " + "[" * 100_000 + "\n", 1),
        ("k8s.manifest", "x:\n" + "- " * 5_000 + "v\n", 2),
    ],
    ids=["json-50000", "json-over-bound", "yaml-block", "yaml-flow-100000", "yaml-dashes"],
)
def test_nesting_past_the_bound_is_refused_with_its_line(fmt: str, text: str, line: int) -> None:
    elapsed, outcome = _timed(text.encode(), fmt)
    assert isinstance(outcome, RedactionRefused), outcome
    assert f"nested deeper than {MAX_DEPTH} levels" in outcome.reason
    assert (outcome.origin, outcome.line) == ("x", line)
    assert elapsed < 5


def test_nesting_within_the_bound_is_redacted() -> None:
    text = '{"kind": "ConfigMap", "data": ' + '{"a": ' * 80 + '{"password": "Deep1"}' + "}" * 80 + "}"
    assert redact(text.encode(), "k8s.manifest").content.decode() == text.replace("Deep1", REDACTED)


def test_a_20_kb_secret_of_aliases_is_refused_fast() -> None:
    """Before: 55 s. The expansion is measured on the shared nodes, without expanding anything."""
    text = _alias_secret()
    assert 19_000 < len(text) < 21_000
    elapsed, outcome = _timed(text.encode(), "k8s.manifest")
    assert isinstance(outcome, RedactionRefused), outcome
    assert f"expand to more than {MAX_EXPANDED:,} nodes" in outcome.reason
    assert elapsed < 5


def test_a_secret_with_a_few_aliases_is_redacted_where_the_anchors_are() -> None:
    text = "kind: Secret\ndata:\n  a: &k c2VjcmV0\n  b: *k\nstringData: &m\n  c: Plain1\nother: *m\n"
    out = redact(text.encode(), "k8s.manifest").content.decode()
    assert out == text.replace("c2VjcmV0", REDACTED).replace("Plain1", REDACTED)


def test_nested_json_inside_a_json_string_is_refused() -> None:
    """A string the rules decode (it names a password) is walked too, within the same bound."""
    inner = _deep_json(MAX_DEPTH + 10).replace('"x"', '{"password": "Deep2"}')
    text = json.dumps(
        {"metadata": {"annotations": {"kubectl.kubernetes.io/last-applied-configuration": inner}}}
    )
    _, outcome = _timed(text.encode(), "k8s.manifest")
    assert isinstance(outcome, RedactionRefused), outcome


@pytest.mark.parametrize(
    "text", [_deep_json(50_000), _deep_yaml(500), _alias_secret()], ids=["json", "yaml", "alias"]
)
def test_log_redaction_never_raises(text: str) -> None:
    out, _ = redact_text(text)
    assert isinstance(out, str)


def test_unparseable_manifest_with_a_secret_is_refused_and_without_one_is_kept() -> None:
    broken = "kind: ConfigMap\ndata:\n  password: Broken1\n  x: [unclosed\n"
    _, outcome = _timed(broken.encode(), "k8s.manifest")
    assert isinstance(outcome, RedactionRefused) and "does not parse" in outcome.reason
    harmless = "kind: ConfigMap\ndata:\n  colour: blue\n  x: [unclosed\n"
    assert redact(harmless.encode(), "k8s.manifest").content.decode() == harmless


HOSTILE = {
    "repeated PEM BEGIN": "-----BEGIN RSA PRIVATE KEY-----\n" * 20_000,
    "dash flags": "-a" * 200_000 + " password",
    "assignments": "a=" * 200_000 + " token",
    "one long token": "Ab1" * 200_000,
    "many tokens": " ".join(["Ab1xY9Zq" * 4] * 30_000),
    "url userinfo": "x://" + "a:" * 100_000 + "@",
    "quoted flags": '--password "' * 50_000,
    "jwt prefixes": "eyJa." * 100_000,
    "yaml keys": "a:" * 200_000,
}


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_hostile_text_is_redacted_in_bounded_time(name: str) -> None:
    elapsed, _ = _timed(HOSTILE[name].encode(), "")
    assert elapsed < 10, f"{name}: {elapsed:.1f} s"


def _parquet(tmp_path: Path, value: str) -> bytes:
    """A Parquet flow log whose one odd value sits mid-column (not in the min/max statistics), compressed."""
    path = tmp_path / "flows.parquet"
    duckdb.sql(
        f"COPY (SELECT 2 AS version, CASE WHEN i = 500 THEN 'eni-5 {value}' ELSE 'eni-' || i END AS interface_id, "
        f"'ACCEPT' AS action FROM range(5000) t(i)) TO '{path}' (FORMAT parquet, COMPRESSION gzip)"
    )
    return path.read_bytes()


def test_a_secret_inside_compressed_parquet_columns_is_refused(tmp_path: Path) -> None:
    token = "ghp_0123456789abcdefghijABCDEFGHIJ012345"
    content = _parquet(tmp_path, token)
    assert token.encode() not in content  # invisible in the bytes: only reading the columns finds it
    with pytest.raises(RedactionRefused, match="github-token"):
        redact(content, "aws.flowlog", "flows.parquet")


def test_a_clean_parquet_object_is_kept_byte_for_byte(tmp_path: Path) -> None:
    content = _parquet(tmp_path, "plain")
    assert redact(content, "aws.flowlog").content == content
