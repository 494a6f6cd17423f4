"""The facts digest of a run, computed while the run is written instead of all at once at the seal.

The digest covers every fact row of the run as stored, in id order: its id, the run and sequence number of
the capture it points at, the name of the target it points at, its kind, subject and data. So a fact
edited, deleted, added, moved to another target or pointed at another capture changes it. It is kept per
capture too, so `verify` can say which capture's facts changed.

A run's only writer hashes each fact row as it writes it (`absorb`, after the batch commits): the data
is stored as the very canonical JSON text it hashes, and the row ids come back from the store, so `verify`
(which runs `advance` over all rows at once) hashes the same bytes without the writer reading every fact
back. When the writer cannot vouch for that (other processes append too, a resumed run, a value whose
text a database may re-spell), it reads back the rows committed since the last read instead (`advance`).
Sealing a large run then hashes only its last few facts, or none.

Reading back, the data column is fetched as the stored text and parsed once here (not by the driver's JSON
loader). Text that orjson reads and writes back byte for byte is hashed as it is: orjson's output is JSON
that the json module reads as the same value, so the value is json.loads's, and the writer stores
canonical_json's text, so for every row it wrote those bytes are the ones canonical_json gives (a row
re-spelled since, e.g. a float in another exponent form, is now also named, where the value compared equal
before). Any other text (PostgreSQL's JSONB spelling, floats that orjson spells differently, what orjson
refuses) is parsed by json.loads and re-encoded by canonical_json, as before, unless it holds no float
and no int of 19 digits or more (then orjson, a conformant parser, reads the same value as json.loads, and
writes it as canonical_json does: sorted keys, the same string escapes; it would read a bigger int as a
float, hence the bound). `advance` can hand each row's parsed value to an observer, so the report reads
the facts in the same pass as `verify` (see FactRow).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable
from json.encoder import encode_basestring
from typing import Any, NamedTuple, Protocol

import orjson
from sqlalchemy import Connection, Text, cast, select

from auditor.evidence.chain import canonical_json
from auditor.store.models import Capture, Fact, Target

_FETCH = 5_000
GROUP_HEX = 12  # per-capture digests only name what changed; the run digest is the full SHA-256


def capture_key(run_id: int, capture_run: int | None, seq: int | None) -> str:
    """How the seal names a capture: its seq, or run and seq when it belongs to another run."""
    if capture_run == run_id:
        return str(seq)
    return f"run {capture_run}, seq {seq}"


def fact_line(
    fact_id: int, cap_run: int | None, seq: int | None, target: str, kind: str, subject: str, data: bytes
) -> bytes:
    """The digest's line for one fact row, `data` being canonical_json of its data: the same bytes as
    canonical_json([fact_id, cap_run, seq, target, kind, subject, data]) + newline, without re-encoding."""
    strings = ",".join(_string(x) for x in (target, kind, subject))
    return f"[{_number(fact_id)},{_number(cap_run)},{_number(seq)},{strings},".encode() + data + b"]\n"


class FactObserver(Protocol):
    """Sees every fact row of a whole pass (`facts_section`), then its end; a pass that raised never ends."""

    def __call__(self, row: FactRow) -> None: ...

    def end(self) -> None: ...


class FactRow(NamedTuple):
    """One fact row as `advance` read it, for an observer: `data` is the parsed value (json.loads's)."""

    id: Any
    capture_run: Any
    seq: Any
    target: Any
    kind: Any
    subject: Any
    data: Any
    target_id: Any
    capture_id: Any


# A number token that is a float (a fraction or an exponent) or an int of 19 digits or more, after the
# colon, comma or bracket that precedes a number token in the spellings the stores give (none, or one
# space: a literal first character keeps the search fast). Inside a string the pattern may match too:
# that row just takes json's path. A number in other whitespace is in a text no writer wrote: then orjson
# may spell a float otherwise than canonical_json (named as changed; a changed value is named either way).
_FLOAT_OR_LONG = re.compile(rb"[:,\[] ?-?(?:\d+[.eE]|\d{19})")


def parse_data(text: str | bytes | None) -> tuple[Any, bytes]:
    """The stored data text's value and canonical JSON bytes (see the module's docstring)."""
    if text is None:
        return None, b"null"
    try:
        raw = text.encode("utf-8") if isinstance(text, str) else bytes(text)
        if b'": ' not in raw and b", " not in raw:  # JSONB's or json.dumps's default spelling: no use
            value = orjson.loads(raw)
            if orjson.dumps(value, option=orjson.OPT_SORT_KEYS) == raw:
                return value, raw
        if raw[:1] in b"{[" and _FLOAT_OR_LONG.search(raw) is None:  # strings, literals, ints < 10**18
            value = orjson.loads(raw)
            return value, orjson.dumps(value, option=orjson.OPT_SORT_KEYS)
    except (ValueError, TypeError):  # orjson refuses (lone surrogates, NaN, deep nesting): json's turn
        pass
    value = json.loads(text)
    return value, canonical_json(value)


def _line(
    fact_id: Any, cap_run: Any, seq: Any, target: Any, kind: Any, subject: Any, value: Any, data: bytes
) -> bytes:
    """canonical_json([fact_id, cap_run, seq, target, kind, subject, value]) + newline, `data` being the
    value's canonical bytes. The six columns through orjson, which writes ints, None, bools and strings as
    canonical_json does (and refuses big ints and lone surrogates: then canonical_json writes it all)."""
    try:
        head = orjson.dumps((fact_id, cap_run, seq, target, kind, subject))
    except TypeError:
        return canonical_json([fact_id, cap_run, seq, target, kind, subject, value]) + b"\n"
    if type(cap_run) is float or type(seq) is float or type(fact_id) is float:  # forged: json's spelling
        return canonical_json([fact_id, cap_run, seq, target, kind, subject, value]) + b"\n"
    return b"".join((head[:-1], b",", data, b"]\n"))


def _number(value: int | None) -> str:
    return "null" if value is None else str(int(value))


def _string(value: str | None) -> str:
    return "null" if value is None else encode_basestring(value)  # as json.dumps(ensure_ascii=False)


class RunningFactsDigest:
    """Fact rows of one run are appended by one writer, so ids only grow: what was read stays read."""

    def __init__(self, run_id: int) -> None:
        self.run_id = run_id
        self.count = 0
        self._last_id: int | None = None  # None: nothing read yet (ids may be 0 or negative if forged)
        self._hash = hashlib.sha256()
        self._groups: dict[str, tuple[int, Any]] = {}

    def advance(self, conn: Connection, observe: Callable[[FactRow], None] | None = None) -> None:
        """Hash the committed fact rows not read yet; `observe` sees each of them, parsed, in id order."""
        query = (
            select(
                Fact.id,
                Capture.run_id,
                Capture.seq,
                Target.name,
                Fact.kind,
                Fact.subject,
                cast(Fact.data, Text),  # the text: parsed once, by parse_data, not by the driver
                Fact.target_id,
                Fact.capture_id,
            )
            .outerjoin(Capture, Capture.id == Fact.capture_id)
            .outerjoin(Target, Target.id == Fact.target_id)
            .order_by(Fact.id)
            .execution_options(yield_per=_FETCH)
        )
        if self._last_id is None:
            query = query.where(Fact.run_id == self.run_id)
        else:  # the primary-key range only: through the (run_id, kind) index, every step walked the
            # whole run again (SQLite), quadratic over a run read back in steps
            query = query.where(Fact.id > self._last_id, (Fact.run_id + 0) == self.run_id)
        rows = conn.execute(query)
        for fact_id, cap_run, seq, target, kind, subject, text, target_id, capture_id in rows:
            value, data = parse_data(text)
            line = _line(fact_id, cap_run, seq, target, kind, subject, value, data)
            if observe is not None:
                observe(FactRow(fact_id, cap_run, seq, target, kind, subject, value, target_id, capture_id))
            self._hash.update(line)
            key = capture_key(self.run_id, cap_run, seq)
            n, group = self._groups.get(key) or (0, hashlib.sha256())
            group.update(line)
            self._groups[key] = (n + 1, group)
            self._last_id = fact_id
            self.count += 1

    def absorb(self, rows: list[tuple[int, int, bytes]]) -> None:
        """Hash committed rows this writer wrote: (fact id, capture seq, line), in id order, all after
        what was hashed so far (the caller checked that no other row of the run lies between)."""
        for fact_id, seq, line in rows:
            self._hash.update(line)
            key = capture_key(self.run_id, self.run_id, seq)
            n, group = self._groups.get(key) or (0, hashlib.sha256())
            group.update(line)
            self._groups[key] = (n + 1, group)
            self._last_id = fact_id
            self.count += 1

    @property
    def last_id(self) -> int | None:
        return self._last_id

    def hexdigest(self) -> str:
        return self._hash.hexdigest()

    def by_capture(self) -> dict[str, list[Any]]:
        """Per capture: [fact count, short digest]."""
        return {k: [n, h.hexdigest()[:GROUP_HEX]] for k, (n, h) in self._groups.items()}
