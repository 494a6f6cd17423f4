"""Turn one raw capture into what the store keeps: redacted bytes first, then facts from those bytes."""

from __future__ import annotations

import logging
from dataclasses import dataclass, replace

from auditor.capture import RawCapture
from auditor.evidence.redact import redact
from auditor.normalize import NormalizeResult, Normalizer, Problem
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

    A normalizer that crashes costs only this capture's facts: the capture is still stored."""
    red = redact(capture.content, capture.format)
    clean = replace(capture, content=red.content)
    if capture.format not in normalizers:
        result = NormalizeResult(problems=[Problem(capture.origin, f"no normalizer for format {capture.format!r}")])
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
    return Processed(clean, red.count, dict(red.kinds), result)
