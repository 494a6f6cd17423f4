"""Writes one run: targets, chained captures, facts in bulk, findings, problems, and the final seal."""

from __future__ import annotations

import getpass
import hashlib
import os
import socket
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from json.encoder import encode_basestring
from typing import Any

from sqlalchemy import Connection, Engine, bindparam, func, insert, select, text, update
from sqlalchemy.orm import Session

from auditor import __version__
from auditor.capture import RawCapture
from auditor.enums import RunStatus, TargetStatus
from auditor.evidence.chain import LinkInput, genesis_hash, link_hash, sha256_hex
from auditor.evidence.signing import ALGORITHM, Signer
from auditor.facts import FactRecord
from auditor.normalize import Problem as ProblemRecord
from auditor.store import bulk
from auditor.store.digests import facts_from, findings_section
from auditor.store.lease import this_host
from auditor.store.models import Capture, Fact, Finding, Problem, Run, SealRecord, Target
from auditor.store.running_digest import RunningFactsDigest
from auditor.store.seal import SEAL_VERSION, build_document, encode

_FINISH_TARGET = update(Target).where(Target.id == bindparam("tid"))
DIGEST_EVERY = 5_000  # facts: when it reads back, the running facts digest does so in steps this big


def utcnow() -> datetime:
    return datetime.now(UTC)


def chain_lock_key(run_id: int) -> int:
    """The advisory lock key of one run's chain (distinct from the scope and migration locks)."""
    return int.from_bytes(
        hashlib.sha256(f"auditor-chain\0{run_id}".encode()).digest()[:8], "big", signed=True
    )


def operator_name() -> str:
    try:
        return f"{getpass.getuser()}@{socket.gethostname()}"
    except Exception:  # getuser fails without a passwd entry (some containers)
        return socket.gethostname()


@dataclass(frozen=True)
class StoredCapture:
    id: int
    seq: int
    content_sha256: str
    link_hash: str


@dataclass(frozen=True)
class FindingRow:
    check_id: str
    status: str
    severity: str
    tier: str
    target: str | None
    subject: str
    message: str
    expected: str
    found: str
    fact_ids: list[int]
    evidence: list[dict[str, Any]]
    waiver: dict[str, Any] | None = None


@dataclass(frozen=True)
class Seal:
    run_id: int
    status: RunStatus
    chain_head: str
    facts_digest: str
    findings_digest: str
    capture_count: int
    fact_count: int
    finding_count: int
    key_fingerprint: str | None = None  # None: sealed without a signing key ("unsigned")


def digest_lines(
    ids: Sequence[int], run_id: int, seq: int, target: str, written: Sequence[bulk.WrittenFact]
) -> list[tuple[int, int, bytes]]:
    """The running digest's rows for one capture's facts: the same lines as running_digest.fact_line
    (a test holds them equal), with the part shared by the capture's facts spelled once."""
    head = f",{int(run_id)},{int(seq)},{encode_basestring(target)},"
    kinds: dict[str, str] = {}
    out = []
    for i, w in zip(ids, written, strict=True):
        kind = kinds.get(w.kind)
        if kind is None:
            kind = kinds[w.kind] = encode_basestring(w.kind)
        line = f"[{int(i)}{head}{kind},{encode_basestring(w.subject)},".encode() + w.data + b"]\n"
        out.append((i, seq, line))
    return out


class RunWriter:
    """The single writer of a run. Not thread-safe by design: the chain is linear, so one thread appends."""

    def __init__(
        self, engine: Engine, run_id: int, genesis: str, signer: Signer | None = None, resumes: int = 0
    ) -> None:
        self.engine = engine
        self.signer = signer  # signs the seal; None seals the run unsigned
        self.run_id = run_id
        self.resumes = resumes  # the run's resume count: the key of the seal this writer will write
        self.sealed = False
        self.on_batch: Callable[[], None] | None = None  # called after each committed batch (the heartbeat)
        self.genesis = genesis
        # Several processes append to this run (distributed collection): each append and the seal take
        # the run's chain lock and read the head from the store (see shared_append).
        self.shared = False
        self._prev = genesis
        self._seq = 0
        self._facts = 0
        self._conn: Connection | None = None  # the open batch's transaction, if any
        self._digest = RunningFactsDigest(run_id)
        # The digest hashes facts as this writer writes them (see running_digest.py) while it is the run's
        # only writer; a resumed run, or one other processes append to, is hashed as read back.
        self.hash_on_write = True
        self._target_names: dict[int, str] = {}
        self._last_written: int | None = None  # the highest fact id below every row this writer adds
        self._pending: list[tuple[int, int, bytes]] = []  # lines of the open batch, hashed at commit
        self._parts: list[bulk.CaptureFacts] = []  # the open batch's facts, written when it ends
        self._pending_ok = True

    @classmethod
    def start(
        cls,
        engine: Engine,
        *,
        config: dict[str, Any],
        config_sha256: str,
        scope: str,
        signer: Signer | None = None,
    ) -> RunWriter:
        started = utcnow()
        with Session(engine) as session, session.begin():
            run = Run(
                status=RunStatus.RUNNING.value,
                started_at=started,
                scope=scope,
                tool_version=__version__,
                operator=operator_name(),
                config_sha256=config_sha256,
                config=config,
                genesis="0" * 64,
                capture_count=0,
                fact_count=0,
                finding_count=0,
                host=this_host(),
                pid=os.getpid(),
                heartbeat_at=started,
                resumes=0,
            )
            session.add(run)
            session.flush()
            run_id = run.id
            genesis = genesis_hash(run_id, started)
            run.genesis = genesis
        return cls(engine, run_id, genesis, signer)

    @classmethod
    def resume(cls, engine: Engine, run_id: int, signer: Signer | None = None) -> RunWriter:
        """Take over an interrupted run (sealed `interrupted`, or `running` with a dead writer) to finish it
        on the same chain: the run goes back to running under this process's lease, counting one more
        resume, and the writer continues from the stored chain head, sequence and facts.

        The caller holds the scope lock and has checked that the run is resumable and verifies; the
        store's guards refuse any other way back to running (see migrations/guards.py)."""
        with engine.begin() as conn:
            run = conn.execute(select(Run.__table__).where(Run.id == run_id)).one()
            conn.execute(
                update(Run)
                .where(Run.id == run_id)
                .values(
                    status=RunStatus.RUNNING.value,
                    sealed_at=None,
                    chain_head=None,
                    finished_at=None,
                    reason=None,
                    resumes=run.resumes + 1,
                    host=this_host(),
                    pid=os.getpid(),
                    heartbeat_at=utcnow(),
                )
            )
            writer = cls(engine, run_id, run.genesis, signer, resumes=run.resumes + 1)
            writer.hash_on_write = False
            writer._load_head(conn)
            writer._facts = int(conn.execute(select(func.count()).where(Fact.run_id == run_id)).scalar_one())
        return writer

    def _load_head(self, conn: Connection) -> None:
        """Continue from the stored chain head and sequence (genesis when nothing is stored yet)."""
        last = conn.execute(
            select(Capture.seq, Capture.link_hash)
            .where(Capture.run_id == self.run_id)
            .order_by(Capture.seq.desc())
            .limit(1)
        ).first()
        self._seq, self._prev = (int(last.seq), str(last.link_hash)) if last else (0, self.genesis)

    def _lock_chain(self, conn: Connection) -> None:
        """Take the run's chain lock for this transaction (PostgreSQL advisory lock, released at commit or
        rollback, and by the server when the holder dies), then read the head it protects."""
        conn.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": chain_lock_key(self.run_id)})
        self._load_head(conn)

    @contextmanager
    def shared_append(self) -> Iterator[Connection]:
        """One transaction appending to a run that other processes append to as well (distributed
        collection, PostgreSQL). Appends are serialised by the run's chain lock, taken before any insert,
        and each continues from the head as stored: the chain stays one line in seq order (the order the
        appends committed), and fact ids grow in commit order, as the running facts digest needs.
        Nothing else of the writer's batch runs here (no heartbeat, no digest step)."""
        if self.engine.dialect.name != "postgresql":
            raise RuntimeError("shared appends need PostgreSQL (its advisory locks span processes)")
        with self.engine.begin() as conn:
            self._lock_chain(conn)
            self._conn = conn
            try:
                yield conn
                self._write_facts(conn)
            finally:
                self._conn = None
                self._parts = []

    @contextmanager
    def batch(self) -> Iterator[None]:
        """One transaction around several writes (captures with their facts, problems, target states).

        A run of thousands of captures spends most of its store time opening and committing
        transactions; the collection's writer thread drains whatever is queued into one batch. The
        batch lands whole or not at all, so a capture never lands without its facts, and on failure
        the chain head goes back to the last committed link, so the seal names what is stored."""
        if self._conn is not None:  # nested: part of the open batch
            yield
            return
        saved = (self._prev, self._seq, self._facts, self._last_written)
        try:
            with self.engine.begin() as conn:
                self._conn = conn
                try:
                    yield
                    self._write_facts(conn)
                finally:
                    self._conn = None
                    self._parts = []
        except BaseException:
            self._prev, self._seq, self._facts, self._last_written = saved
            self._pending, self._pending_ok = [], True
            raise
        self._hash_committed()
        if self.on_batch is not None:
            self.on_batch()
        if self._facts - self._digest.count >= DIGEST_EVERY:
            with self.engine.connect() as conn:
                self._digest.advance(conn)

    def _hash_committed(self) -> None:
        """Hash the batch's fact rows now that they are committed: as written, or read back when this
        batch could not vouch for them."""
        pending, ok = self._pending, self._pending_ok
        self._pending, self._pending_ok = [], True
        if ok:
            self._digest.absorb(pending)
            return
        with self.engine.connect() as conn:
            self._digest.advance(conn)
        self._last_written = self._digest.last_id

    def _id_floor(self, conn: Connection) -> int | None:
        """Every fact id this writer adds next lies above this (None: not hashing on write)."""
        if self.shared or not self.hash_on_write:
            return None
        if self._last_written is None:
            self._last_written = bulk.max_fact_id(conn)
        return self._last_written

    def _write_facts(self, conn: Connection) -> None:
        """Write the facts of the batch's captures (queued by ingest) in one go, in capture order, and
        queue their digest lines: the rows are the same, in the same order, as one write per capture."""
        parts, self._parts = self._parts, []
        if not parts:
            return
        floor = self._id_floor(conn)
        bulk.write_facts(conn, self.run_id, parts)
        names = [self._target_names.get(p.target_id) for p in parts]
        if floor is None or None in names or not all(w.exact for p in parts for w in p.written):
            self._pending_ok = False  # hashed as read back when the batch commits
            return
        n = sum(len(p.written) for p in parts)
        ids = bulk.new_ids(conn, self.run_id, floor, n)
        if len(ids) != n:
            self._pending_ok = False
            return
        at = 0
        for part, name in zip(parts, names, strict=True):
            end = at + len(part.written)
            self._pending += digest_lines(ids[at:end], self.run_id, part.seq, str(name), part.written)
            at = end
        self._last_written = ids[-1]

    @contextmanager
    def _tx(self) -> Iterator[Connection]:
        """The open batch's connection, or a batch of this one write."""
        with self.batch():
            assert self._conn is not None
            yield self._conn

    def add_target(
        self,
        *,
        kind: str,
        name: str,
        platform: str | None = None,
        tier: str | None = None,
        role: str | None = None,
        notes: list[str] | None = None,
    ) -> int:
        with self._tx() as conn:
            result = conn.execute(
                insert(Target),
                {
                    "run_id": self.run_id,
                    "kind": kind,
                    "name": name,
                    "platform": platform,
                    "tier": tier,
                    "role": role,
                    "notes": notes,
                    "status": TargetStatus.PENDING.value,
                    "started_at": utcnow(),
                },
            )
            target_id = int(result.inserted_primary_key[0])  # type: ignore[index]
            self._target_names[target_id] = name
            return target_id

    def finish_target(
        self, target_id: int, status: TargetStatus, reason: str | None = None, notes: list[str] | None = None
    ) -> None:
        values: dict[str, Any] = {
            "tid": target_id,
            "status": status.value,
            "reason": reason,
            "finished_at": utcnow(),
        }
        if notes is not None:
            values["notes"] = notes
        with self._tx() as conn:
            conn.execute(_FINISH_TARGET, values)  # one cached statement: the SET clause is the keys

    def ingest(
        self,
        target_id: int,
        capture: RawCapture,
        *,
        redactions: int,
        redaction_kinds: dict[str, int],
        facts: Sequence[FactRecord],
        problems: Sequence[ProblemRecord] = (),
    ) -> StoredCapture:
        """Append one (already redacted) capture to the chain, with its facts and problems, atomically
        (in the open batch's transaction when there is one)."""
        seq = self._seq + 1
        external = capture.content_uri is not None and capture.content_sha256 is not None
        content_sha = capture.content_sha256 or "" if external else sha256_hex(capture.content)
        size = (capture.content_size or 0) if external else len(capture.content)
        link = link_hash(
            self._prev,
            LinkInput(
                run_id=self.run_id,
                seq=seq,
                target=capture.target,
                format=capture.format,
                source=capture.source,
                origin=capture.origin,
                collected_at=capture.collected_at,
                meta=capture.meta,
                size=size,
                content_sha256=content_sha,
                redactions=redactions,
            ),
        )
        with self._tx() as conn:
            # Parameters, not .values(): the statement compiles once and is reused from the cache.
            result = conn.execute(
                insert(Capture),
                {
                    "run_id": self.run_id,
                    "seq": seq,
                    "target_id": target_id,
                    "format": capture.format,
                    "source": capture.source,
                    "origin": capture.origin,
                    "collected_at": capture.collected_at,
                    "meta": dict(capture.meta),
                    "content": None if external else capture.content,
                    "content_uri": capture.content_uri,
                    "size": size,
                    "content_sha256": content_sha,
                    "prev_hash": self._prev,
                    "link_hash": link,
                    "redactions": redactions,
                    "redaction_kinds": redaction_kinds,
                },
            )
            capture_id = int(result.inserted_primary_key[0])  # type: ignore[index]
            if facts:  # written with the batch's other facts when it ends (see _write_facts)
                written = bulk.encode_all(facts)
                self._parts.append(bulk.CaptureFacts(target_id, capture_id, seq, facts, written))
            if problems:
                self._insert_problems(conn, target_id, capture_id, problems)
            self._prev, self._seq = link, seq  # undone by batch() if the transaction fails
            self._facts += len(facts)
        return StoredCapture(id=capture_id, seq=seq, content_sha256=content_sha, link_hash=link)

    def add_problems(self, target_id: int | None, problems: Iterable[ProblemRecord]) -> None:
        problems = list(problems)
        if problems:
            with self._tx() as conn:
                self._insert_problems(conn, target_id, None, problems)

    def _insert_problems(
        self, conn: Any, target_id: int | None, capture_id: int | None, problems: Sequence[ProblemRecord]
    ) -> None:
        now = utcnow()
        conn.execute(
            insert(Problem),
            [
                {
                    "run_id": self.run_id,
                    "target_id": target_id,
                    "capture_id": capture_id,
                    "location": p.location(),
                    "message": p.message,
                    "hint": p.hint,
                    "created_at": now,
                }
                for p in problems
            ],
        )

    def add_findings(self, rows: Sequence[FindingRow]) -> None:
        if not rows:
            return
        with self.engine.begin() as conn:
            conn.execute(insert(Finding), [{"run_id": self.run_id, **r.__dict__} for r in rows])

    def seal(self, status: RunStatus, reason: str | None = None) -> Seal:
        """Record the chain head and the digests, then the seal document (signed when a key is given),
        in one transaction; after this the run is immutable (see migrations/guards.py)."""
        with self.engine.begin() as conn:
            if self.shared:  # no append lands between reading the head and sealing it
                self._lock_chain(conn)
            self._digest.advance(conn)  # the facts committed since the last step (see running_digest.py)
            facts = facts_from(self._digest)
            findings = findings_section(conn, self.run_id)
            now = utcnow()
            conn.execute(
                update(Run)
                .where(Run.id == self.run_id)
                .values(
                    status=status.value,
                    reason=reason,
                    finished_at=now,
                    sealed_at=now,
                    chain_head=self._prev,
                    facts_digest=facts["digest"],
                    findings_digest=findings["digest"],
                    capture_count=self._seq,
                    fact_count=facts["count"],
                    finding_count=findings["count"],
                )
            )
            signer = self.signer
            fingerprint = signer.fingerprint if signer is not None else None
            document = encode(
                build_document(
                    conn,
                    self.run_id,
                    facts=facts,
                    signer={"algorithm": ALGORITHM, "fingerprint": fingerprint} if fingerprint else None,
                )
            )
            conn.execute(
                insert(SealRecord),
                {
                    "run_id": self.run_id,
                    "resume": self.resumes,
                    "version": SEAL_VERSION,
                    "document": document,
                    "digest": sha256_hex(document.encode("utf-8")),
                    "signature": signer.sign(document.encode("utf-8")).hex() if signer else None,
                    "public_key": signer.public_raw.hex() if signer else None,
                    "key_fingerprint": fingerprint,
                    "created_at": now,
                },
            )
        self.sealed = True
        return Seal(
            self.run_id,
            status,
            self._prev,
            facts["digest"],
            findings["digest"],
            self._seq,
            facts["count"],
            findings["count"],
            fingerprint,
        )

    @property
    def chain_head(self) -> str:
        return self._prev

    def run_status(self) -> str:
        with self.engine.connect() as conn:
            return str(conn.execute(select(Run.status).where(Run.id == self.run_id)).scalar_one())
