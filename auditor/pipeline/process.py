"""Turn one raw capture into what the store keeps: redacted bytes first, then facts from those bytes."""

from __future__ import annotations

import gzip
import logging
import zlib
from dataclasses import dataclass, replace

from auditor.capture import RawCapture
from auditor.evidence.redact import redact, redact_problems
from auditor.evidence.redact_config import clean_string
from auditor.normalize import Normalizer, NormalizeResult, Problem
from auditor.registry import Registry

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Processed:
    capture: RawCapture  # redacted
    redactions: int
    redaction_kinds: dict[str, int]
    result: NormalizeResult


def process_capture(capture: RawCapture, normalizers: Registry[Normalizer]) -> Processed:
    """Redact, then normalize the redacted bytes, so re-normalizing stored evidence gives the same facts.

    A normalizer that crashes costs only this capture's facts: the capture is still stored. A capture
    that cannot be redacted safely raises RedactionRefused: it is never stored (the caller records why)."""
    capture = _clean_labels(_gunzip(capture))
    red = redact(capture.content, capture.format, capture.origin)
    clean = replace(capture, content=red.content)
    if capture.format not in normalizers:
        result = NormalizeResult(
            problems=[Problem(capture.origin, f"no normalizer for format {capture.format!r}")]
        )
    else:
        try:
            result = normalizers.get(capture.format)(clean)
        except Exception as exc:  # contained per capture; the run goes on
            log.exception("normalizer %s failed on %s", capture.format, capture.origin)
            result = NormalizeResult(
                problems=[
                    Problem(
                        capture.origin,
                        f"normalizer {capture.format} failed: {type(exc).__name__}: {exc}",
                        hint="report this as a bug with the capture attached; the capture itself is stored",
                    )
                ]
            )
    if "damaged" in capture.meta.get("decompressed", ""):
        result.problems.append(
            Problem(capture.origin, "truncated or corrupt gzip: only the part before the damage was read")
        )
    result.problems = redact_problems(result.problems)
    return Processed(clean, red.count, dict(red.kinds), result)


def _clean_labels(capture: RawCapture) -> RawCapture:
    """The capture's source, origin and meta are stored too: a URL password or token in them goes."""
    source, origin = clean_string(capture.source), clean_string(capture.origin)
    meta = {k: clean_string(v) if isinstance(v, str) else v for k, v in capture.meta.items()}
    if (source, origin, meta) == (capture.source, capture.origin, capture.meta):
        return capture
    return replace(capture, source=source, origin=origin, meta=meta)


GZIP_MAGIC = b"\x1f\x8b"
PASS_THROUGH_GZIP: frozenset[str] = frozenset()  # none: flow logs too are redacted as text (issue 11)


def _gunzip(capture: RawCapture) -> RawCapture:
    """Compressed text (a `.json.gz` describe dump, a gzipped config) is stored decompressed, because
    redaction must see the text: a secret inside compressed bytes would otherwise reach the store."""
    if capture.format in PASS_THROUGH_GZIP or not capture.content.startswith(GZIP_MAGIC):
        return capture
    try:
        content, how = gzip.decompress(capture.content), "gzip"
    except (OSError, EOFError, zlib.error):
        # A damaged stream: keep what decompresses, never the compressed bytes (they would bypass redaction).
        inflater = zlib.decompressobj(16 + zlib.MAX_WBITS)
        try:
            content = inflater.decompress(capture.content)
        except zlib.error:
            content = b""
        how = "gzip (damaged: only the readable part is kept)"
    return replace(capture, content=content, meta={**capture.meta, "decompressed": how})
