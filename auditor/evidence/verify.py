"""Re-computes a run's evidence chain and digests from the stored bytes, and names the first mismatch."""

from __future__ import annotations

from dataclasses import dataclass, field

from sqlalchemy import Engine

from auditor.evidence.chain import LinkInput, genesis_hash, link_hash, sha256_hex
from auditor.store.digests import facts_digest, findings_digest
from auditor.store.reader import RunReader


@dataclass(frozen=True)
class Mismatch:
    """The first thing that does not match what was recorded, named so an auditor can find it."""

    what: str  # "capture", "chain head", "facts digest", "findings digest", "genesis"
    detail: str
    seq: int | None = None
    target: str | None = None
    source: str | None = None


@dataclass
class VerifyResult:
    run_id: int
    captures_checked: int = 0
    sealed: bool = False
    chain_head: str | None = None
    mismatches: list[Mismatch] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.sealed and not self.mismatches


def verify_run(engine: Engine, run_id: int) -> VerifyResult:
    reader = RunReader(engine, run_id)
    run = reader.run_row()
    result = VerifyResult(run_id=run_id, sealed=run.sealed_at is not None, chain_head=run.chain_head)
    expected_genesis = genesis_hash(run_id, run.started_at)
    if run.genesis != expected_genesis:
        result.mismatches.append(
            Mismatch("genesis", "the run's chain anchor does not match its id and start time")
        )
    prev = expected_genesis
    for cap in reader.captures():
        result.captures_checked += 1
        where = {"seq": cap.seq, "target": cap.target_name, "source": cap.source}
        if cap.seq != result.captures_checked:
            result.mismatches.append(
                Mismatch("capture", f"sequence gap: expected seq {result.captures_checked}", **where)
            )
            break
        content = cap.content if cap.content is not None else b""
        actual_sha = sha256_hex(content)
        if cap.content is not None and actual_sha != cap.content_sha256:
            result.mismatches.append(
                Mismatch(
                    "capture",
                    f"content hash {actual_sha[:16]}… != recorded {cap.content_sha256[:16]}…",
                    **where,
                )
            )
            break
        if cap.prev_hash != prev:
            result.mismatches.append(
                Mismatch("capture", "previous-link hash does not match the chain", **where)
            )
            break
        recomputed = link_hash(
            prev,
            LinkInput(
                run_id=run_id,
                seq=cap.seq,
                target=cap.target_name,
                format=cap.format,
                source=cap.source,
                origin=cap.origin,
                collected_at=cap.collected_at,
                meta=cap.meta,
                size=cap.size,
                content_sha256=cap.content_sha256,
                redactions=cap.redactions,
            ),
        )
        if recomputed != cap.link_hash:
            result.mismatches.append(
                Mismatch("capture", "metadata changed: link hash does not match", **where)
            )
            break
        prev = recomputed
    if result.mismatches:
        return result
    if not result.sealed:
        result.mismatches.append(
            Mismatch("chain head", f"run {run_id} was never sealed (status {run.status})")
        )
        return result
    if prev != run.chain_head:
        result.mismatches.append(
            Mismatch("chain head", f"recomputed head {prev[:16]}… != sealed head {str(run.chain_head)[:16]}…")
        )
    if run.capture_count != result.captures_checked:
        result.mismatches.append(
            Mismatch("chain head", f"{result.captures_checked} captures stored, {run.capture_count} sealed")
        )
    with engine.connect() as conn:
        f_digest, f_count = facts_digest(conn, run_id)
        g_digest, g_count = findings_digest(conn, run_id)
    if f_digest != run.facts_digest or f_count != run.fact_count:
        result.mismatches.append(
            Mismatch("facts digest", f"{f_count} facts stored, digest differs from the seal")
        )
    if g_digest != run.findings_digest or g_count != run.finding_count:
        result.mismatches.append(
            Mismatch("findings digest", f"{g_count} findings stored, digest differs from the seal")
        )
    return result
