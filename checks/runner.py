"""Runs checks over one run's facts. Failures are contained per check: an exception is an ERROR finding."""

from __future__ import annotations

import gc
import logging
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass

from auditor.enums import Status, Tier
from checks import netutil
from checks.base import Check, CheckContext, CheckMeta, Finding
from checks.lateral import addresses

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Verdict:
    """A finding with the metadata of the check that produced it."""

    meta: CheckMeta
    finding: Finding


def run_checks(ctx: CheckContext, checks: Iterable[Check], only: set[str] | None = None) -> list[Verdict]:
    """Evaluate every check, in id order, so that re-running on the same facts gives the same findings."""
    verdicts: list[Verdict] = []
    try:
        with _collector_spared() as spare:
            for check in sorted(checks, key=lambda c: c.meta.id):
                if only is not None and check.meta.id not in only:
                    continue
                spare()
                verdicts.extend(Verdict(check.meta, f) for f in evaluate_one(ctx, check))
    finally:
        netutil.clear_caches()  # the parsing caches are the run's, not the process's
        addresses.clear_caches()
    return verdicts


@contextmanager
def _collector_spared() -> Iterator[Callable[[], None]]:
    """Keep the garbage collector off what is already alive when each check starts (the facts, the
    caches earlier checks filled): it stays alive and unchanged, yet every full collection would walk
    its millions of objects again, seconds each on a large fleet. Everything is handed back to the
    collector at the end. A caller that froze objects itself is left alone (unfreeze would thaw them)."""
    if gc.get_freeze_count():
        yield lambda: None
        return
    try:
        yield gc.freeze
    finally:
        gc.unfreeze()


def evaluate_one(ctx: CheckContext, check: Check) -> Sequence[Finding]:
    meta = check.meta
    if meta.tier != Tier.CROSS and ctx.intent.tiers.get(meta.tier) is None:
        return [
            Finding(
                Status.NOT_APPLICABLE,
                subject=f"tier {meta.tier.value}",
                message=f"tier {meta.tier.value} is not declared in the intent",
                expected=f"intent.tiers.{meta.tier.value} declared",
                found="not declared",
            )
        ]
    try:
        findings = list(check.evaluate(ctx))
    except Exception as exc:
        log.exception("check %s raised", meta.id)
        return [
            Finding(
                Status.ERROR,
                subject=meta.id,
                message=f"check raised {type(exc).__name__}: {exc}",
                expected="the check to evaluate",
                found="an internal error; the other checks still ran",
            )
        ]
    if not findings:
        return [
            Finding(
                Status.NOT_ASSESSED,
                subject=meta.id,
                message="no subject in the evidence for this check",
                expected=f"evidence of {', '.join(sorted(k.value for k in meta.needs))}",
                found="nothing to assess",
            )
        ]
    return findings
