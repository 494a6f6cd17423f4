"""The run's redaction report: how many secrets each rule replaced in each target's captures.

Built from the counts stored with every capture (`captures.redactions`, `captures.redaction_kinds`)
and from the problems of captures refused as unredactable. It never reads capture content, and it
holds no value: a count per rule is all an auditor needs to see that redaction ran and what it met.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import Any

from auditor.evidence.redact import REFUSED_PREFIX
from reports.model import RedactionReport, TargetRedactions


def redaction_report(captures: Iterable[Any], problems: Iterable[Any]) -> RedactionReport:
    """`captures`: rows with target_name, redactions, redaction_kinds; `problems`: target, message."""
    stored: Counter[str] = Counter()
    redacted: Counter[str] = Counter()
    totals: Counter[str] = Counter()
    per_rule: dict[str, Counter[str]] = {}
    for c in captures:
        target = c.target_name
        stored[target] += 1
        per_rule.setdefault(target, Counter())
        if c.redactions:
            redacted[target] += 1
            totals[target] += c.redactions
            per_rule[target].update(c.redaction_kinds or {})
    refused: Counter[str] = Counter()
    for p in problems:
        if str(p.message).startswith(REFUSED_PREFIX):
            refused[p.target or ""] += 1
            per_rule.setdefault(p.target or "", Counter())
    targets = [
        TargetRedactions(
            target=name,
            captures=stored[name],
            redacted_captures=redacted[name],
            redactions=totals[name],
            by_rule=dict(per_rule[name]),
            refused=refused[name],
        )
        for name in sorted(per_rule)
    ]
    by_rule: Counter[str] = Counter()
    for counts in per_rule.values():
        by_rule.update(counts)
    return RedactionReport(
        redactions=sum(totals.values()), by_rule=dict(by_rule), refused=sum(refused.values()), targets=targets
    )
