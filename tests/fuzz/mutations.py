"""Mutations of real input, as a careless tool or a hostile peer would make them.

Each mutation is a small frozen record (so hypothesis shrinks it and a failure prints what was done)
whose `apply` turns the seed's bytes into the fuzzed bytes. The same records drive the hypothesis tests
(tests/fuzz) and the longer soak (benchmarks/fuzz_soak.py).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from hypothesis import strategies as st

# Bytes that break UTF-8 in the ways real files do: a lone continuation byte, an overlong form, a
# truncated sequence, a UTF-16 surrogate encoded as UTF-8, a BOM in the middle, bytes never valid.
INVALID_UTF8 = (b"\x80", b"\xc0\xaf", b"\xe2\x82", b"\xed\xa0\x80", b"\xef\xbb\xbf", b"\xff\xfe", b"\xf8\x88")
CONTROL = (*(bytes([c]) for c in (*range(0x20), 0x7F)), "\u2028".encode(), "\u0085".encode())
# What a long run is made of: spaces, digits, a token that regexes repeat on, brackets, quotes.
RUNS = (b" ", b"\t", b"0", b"9", b"a", b"1.", b"10.0.0.", b"-", b",", b" x", b"\\", b'"', b"[", b"{", b"#")
NESTINGS = ("json-list", "json-object", "yaml-flow", "yaml-block", "indent", "braces")


@dataclass(frozen=True)
class Mutation:
    def apply(self, data: bytes) -> bytes:
        raise NotImplementedError


def _at(data: bytes, fraction: float) -> int:
    return min(len(data), int(len(data) * fraction))


@dataclass(frozen=True)
class FlipBytes(Mutation):
    where: tuple[float, ...]
    xor: int

    def apply(self, data: bytes) -> bytes:
        if not data:
            return data
        out = bytearray(data)
        for fraction in self.where:
            i = min(len(out) - 1, int(len(out) * fraction))
            out[i] ^= self.xor or 0x01
        return bytes(out)


@dataclass(frozen=True)
class Truncate(Mutation):
    keep: float

    def apply(self, data: bytes) -> bytes:
        return data[: _at(data, self.keep)]


@dataclass(frozen=True)
class DuplicateBlock(Mutation):
    start: float
    length: float
    times: int

    def apply(self, data: bytes) -> bytes:
        a = _at(data, self.start)
        b = min(len(data), a + max(1, _at(data, self.length)))
        return data[:b] + data[a:b] * self.times + data[b:]


@dataclass(frozen=True)
class DeepNesting(Mutation):
    where: float
    kind: str
    depth: int

    def apply(self, data: bytes) -> bytes:
        i = _at(data, self.where)
        d = self.depth
        pieces = {
            "json-list": b"[" * d + b"1" + b"]" * d,
            "json-object": b'{"a":' * d + b"1" + b"}" * d,
            "yaml-flow": b"x: " + b"[" * d + b"]" * d + b"\n",
            "yaml-block": b"".join(b"  " * n + b"k:\n" for n in range(d)) + b"  " * d + b"v\n",
            "indent": b"".join(b" " * n + b"interface Ethernet1\n" for n in range(d)),
            "braces": b"a {\n" * d + b"b;\n" + b"}\n" * d,
        }
        return data[:i] + b"\n" + pieces[self.kind] + data[i:]


@dataclass(frozen=True)
class HugeToken(Mutation):
    where: float
    run: bytes
    length: int

    def apply(self, data: bytes) -> bytes:
        i = _at(data, self.where)
        return data[:i] + self.run * max(1, self.length // len(self.run)) + data[i:]


@dataclass(frozen=True)
class Insert(Mutation):
    """Control characters or invalid UTF-8 put in at a few places."""

    where: tuple[float, ...]
    chunk: bytes

    def apply(self, data: bytes) -> bytes:
        out = data
        for fraction in sorted(self.where, reverse=True):
            i = _at(out, fraction)
            out = out[:i] + self.chunk + out[i:]
        return out


@dataclass(frozen=True)
class SpliceLine(Mutation):
    """One line of the seed repeated many times (a long ACL, a thousand interfaces)."""

    line_at: float
    times: int

    def apply(self, data: bytes) -> bytes:
        lines = data.splitlines(keepends=True)
        if not lines:
            return data
        i = min(len(lines) - 1, int(len(lines) * self.line_at))
        return b"".join(lines[:i] + [lines[i]] * self.times + lines[i:])


@dataclass(frozen=True)
class ReplaceJsonValue(Mutation):
    """One value of a JSON document swapped for another of any type: a list where an object was, a
    string for a number. Structure-aware, because byte mutations rarely keep a document parseable, and
    a reader that trusts the shape of its input fails only on parseable input. Not JSON: unchanged."""

    where: float
    value: object

    def apply(self, data: bytes) -> bytes:
        try:
            doc = json.loads(data)
        except (ValueError, RecursionError):
            return data
        slots: list[tuple[Any, Any]] = []  # (container, key or index), walked without recursion
        stack = [doc]
        while stack:
            node = stack.pop()
            pairs = (
                node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
            )
            for key, child in pairs:
                slots.append((node, key))
                stack.append(child)
        if not slots:
            return json.dumps(self.value).encode()
        container, key = slots[min(len(slots) - 1, int(len(slots) * self.where))]
        container[key] = self.value
        return json.dumps(doc).encode()


_fraction = st.floats(min_value=0.0, max_value=1.0, allow_nan=False)
_json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=8,
)


def mutations(
    *, max_token: int = 100_000, max_depth: int = 3_000, max_times: int = 200
) -> st.SearchStrategy[Mutation]:
    """One mutation of any kind; the size bounds keep one example well under a second."""
    return st.one_of(
        st.builds(FlipBytes, st.lists(_fraction, min_size=1, max_size=8).map(tuple), st.integers(0, 255)),
        st.builds(Truncate, _fraction),
        st.builds(DuplicateBlock, _fraction, st.floats(0.0, 0.3), st.integers(1, 20)),
        st.builds(DeepNesting, _fraction, st.sampled_from(NESTINGS), st.integers(10, max_depth)),
        st.builds(HugeToken, _fraction, st.sampled_from(RUNS), st.integers(1_000, max_token)),
        st.builds(Insert, st.lists(_fraction, min_size=1, max_size=4).map(tuple), st.sampled_from(CONTROL)),
        st.builds(
            Insert, st.lists(_fraction, min_size=1, max_size=4).map(tuple), st.sampled_from(INVALID_UTF8)
        ),
        st.builds(SpliceLine, _fraction, st.integers(2, max_times)),
        st.builds(ReplaceJsonValue, _fraction, _json_values),
        st.builds(ReplaceJsonValue, _fraction, _json_values),  # twice the weight: JSON formats are many
    )


# Mutations compound (a line repeated 95 times, the result's first line 170 times: 115 MB). Inputs are
# cut at this size after each step: a real file that large is refused by `max_file_bytes` before any
# normalizer sees it, and an 8 MB input already shows any superlinear parser within the time bound.
MAX_FUZZED_BYTES = 8 * 1024 * 1024


def mutate(data: bytes, steps: list[Mutation]) -> bytes:
    for step in steps:
        data = step.apply(data)[:MAX_FUZZED_BYTES]
    return data
