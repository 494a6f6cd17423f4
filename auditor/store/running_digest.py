"""The facts digest of a run, computed while the run is written instead of all at once at the seal.

The digest is `digests.facts_digest` (what `verify` recomputes): every fact row of the run as stored, in
id order. The writer reads back the rows committed since the last read, from the store, never from its
own memory, so both see the same bytes; only the moment of reading changes. Sealing a large run then
hashes only its last few facts instead of re-reading every fact while the operator waits.
"""

from __future__ import annotations

import hashlib

from sqlalchemy import Connection, select

from auditor.evidence.chain import canonical_json
from auditor.store.models import Capture, Fact

_FETCH = 5_000


class RunningFactsDigest:
    """Fact rows of one run are appended by one writer, so ids only grow: what was read stays read."""

    def __init__(self, run_id: int) -> None:
        self.run_id = run_id
        self.count = 0
        self._last_id = 0
        self._hash = hashlib.sha256()

    def advance(self, conn: Connection) -> None:
        """Hash the committed fact rows not read yet (as digests.facts_digest / digest_rows do)."""
        rows = conn.execute(
            select(Fact.id, Capture.seq, Fact.kind, Fact.subject, Fact.data)
            .join(Capture, Capture.id == Fact.capture_id)
            .where(Fact.run_id == self.run_id, Fact.id > self._last_id)
            .order_by(Fact.id)
            .execution_options(yield_per=_FETCH)
        )
        for fact_id, seq, kind, subject, data in rows:
            self._hash.update(canonical_json([seq, kind, subject, data]))
            self._hash.update(b"\n")
            self._last_id = fact_id
            self.count += 1

    def hexdigest(self) -> str:
        return self._hash.hexdigest()
