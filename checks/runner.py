"""Runs checks over one run's facts. Failures are contained per check: an exception is an ERROR finding."""

from __future__ import annotations

import gc
import logging
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass

from auditor.enums import FactKind, Status, Tier
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
    """Evaluate every check and return the findings in check id order, so that re-running on the same
    facts gives the same findings. After each check, the kinds of fact that checks declare but no check
    still to run declares are released (a view that loads facts per kind then holds only what is still
    needed). Some checks read kinds they do not declare (devices, pods, BGP neighbours through a shared
    topology): who reads them next cannot be foreseen, so a kind that no check declares, or that a check
    read without declaring it, is kept once read rather than read again (and its views rebuilt) by each."""
    selected = [c for c in sorted(checks, key=lambda c: c.meta.id) if only is None or c.meta.id in only]
    kept = set(FactKind) - set().union(*(c.meta.needs for c in selected))
    found: list[Sequence[Finding]] = [()] * len(selected)
    order = _plan(selected, ctx.facts.counts()) if ctx.facts.loads_lazily else list(range(len(selected)))
    try:
        with _collector_spared() as spare:
            for step, i in enumerate(order):
                spare()
                with ctx.facts.watching() as read:
                    found[i] = evaluate_one(ctx, selected[i])
                kept |= read - selected[i].meta.needs
                still = set().union(*(selected[j].meta.needs for j in order[step + 1 :]))
                ctx.release(ctx.facts.held - still - kept)
    finally:
        netutil.clear_caches()  # the parsing caches are the run's, not the process's
        addresses.clear_caches()
    return [Verdict(check.meta, f) for check, fs in zip(selected, found, strict=True) for f in fs]


def _plan(checks: Sequence[Check], counts: Mapping[FactKind, int]) -> list[int]:
    """An order to run the checks in (indexes into `checks`) so that few facts are held at once: next,
    the check whose declared kinds add the fewest facts to those still held (the first in id order on a
    tie). Checks over the kinds in memory run before another large kind is read, and a kind is let go
    once its last check has run. Each check's findings depend on the facts only, not on the order."""
    remaining = list(range(len(checks)))
    held: set[FactKind] = set()
    order: list[int] = []
    while remaining:
        pick = min(remaining, key=lambda i: sum(counts.get(k, 0) for k in checks[i].meta.needs - held))
        remaining.remove(pick)
        order.append(pick)
        still = set().union(*(checks[i].meta.needs for i in remaining))
        held = (held | checks[pick].meta.needs) & still
    return order


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
