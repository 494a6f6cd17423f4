"""The control matrix: each framework requirement with the outcomes of the checks mapped to it in a run.

A requirement takes the worst outcome of its checks, in this order: FAIL (an unwaived failure), ERROR,
NOT_ASSESSED (missing evidence, or a mapped check that did not run in this run), WAIVED (its only
failures are waived), PASS, NOT_APPLICABLE (every check's tier is undeclared). A requirement is never
PASS on missing evidence."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from auditor.enums import Status
from reports.mappings import Framework
from reports.model import CheckOutcome, FindingInfo, FrameworkResult, RequirementResult, RequirementStatus


def check_outcomes(findings: Iterable[FindingInfo]) -> dict[str, CheckOutcome]:
    counts: dict[str, dict[Status, int]] = {}
    waived: dict[str, int] = {}
    for f in findings:
        row = counts.setdefault(f.check_id, dict.fromkeys(Status, 0))
        row[f.status] += 1
        if f.waived:
            waived[f.check_id] = waived.get(f.check_id, 0) + 1
    return {cid: CheckOutcome(cid, True, row, waived.get(cid, 0)) for cid, row in counts.items()}


def requirement_status(checks: Sequence[CheckOutcome]) -> RequirementStatus:
    total = dict.fromkeys(Status, 0)
    waived = 0
    for c in checks:
        for s, n in c.counts.items():
            total[s] += n
        waived += c.waived
    if total[Status.FAIL] > waived:
        return RequirementStatus.FAIL
    if total[Status.ERROR]:
        return RequirementStatus.ERROR
    if total[Status.NOT_ASSESSED] or any(not c.evaluated for c in checks):
        return RequirementStatus.NOT_ASSESSED
    if waived:
        return RequirementStatus.WAIVED
    if total[Status.PASS]:
        return RequirementStatus.PASS
    return RequirementStatus.NOT_APPLICABLE


def control_matrix(frameworks: Iterable[Framework], findings: Sequence[FindingInfo]) -> list[FrameworkResult]:
    """Every framework and requirement, in file order, with per-check counts of this run's findings."""
    outcomes = check_outcomes(findings)
    out: list[FrameworkResult] = []
    for fw in frameworks:
        reqs: list[RequirementResult] = []
        for req in fw.requirements:
            checks = [
                outcomes.get(cid) or CheckOutcome(cid, False, dict.fromkeys(Status, 0), 0)
                for cid in req.check_ids
            ]
            reqs.append(RequirementResult(req.id, req.title, req.note, checks, requirement_status(checks)))
        out.append(FrameworkResult(fw.key, fw.framework, fw.title, fw.version, fw.source, reqs))
    return out


def requirement_counts(fw: FrameworkResult) -> dict[RequirementStatus, int]:
    """How many requirements of a framework end in each result, for the summary."""
    counts = dict.fromkeys(RequirementStatus, 0)
    for r in fw.requirements:
        counts[r.result] += 1
    return counts
