"""Build a CheckContext from an audit config's offline evidence, in-process (no store), for fast tests."""

from __future__ import annotations

from pathlib import Path

from auditor.config.loader import load_config
from auditor.enums import TargetStatus
from auditor.facts import Coverage, FactRecord
from auditor.normalize import normalizer_registry
from auditor.pipeline.process import process_capture
from auditor.store.reader import StoredFact
from checks.base import CheckContext, FactView, TargetView
from collectors.base import TargetSpec
from collectors.offline.collector import OfflineFilesCollector


def lab_context(config: Path, *, reverse: bool = False) -> CheckContext:
    """`reverse`: store the targets' facts in reverse plan order, as a concurrent collection that
    finished the other way round would (fact ids follow completion order)."""
    cfg = load_config(config)
    collector = OfflineFilesCollector()
    plan = collector.plan(cfg)
    normalizers = normalizer_registry()
    facts: list[StoredFact[FactRecord]] = []
    targets: list[TargetView] = []
    seq = 0
    for spec in reversed(plan.targets) if reverse else plan.targets:
        targets.append(_view(spec))
        for item in collector.collect(spec):
            if not hasattr(item, "content"):
                continue
            seq += 1
            processed = process_capture(item, normalizers)  # type: ignore[arg-type]
            records: list[FactRecord] = [
                Coverage(target=spec.name, covers=kind) for kind in processed.result.covers
            ]
            records.extend(processed.result.facts)
            for record in records:
                facts.append(StoredFact(len(facts) + 1, record.kind, spec.name, seq, f"{seq:064x}", record))
    return CheckContext(intent=cfg.intent, facts=FactView(facts), targets=tuple(targets))


def _view(spec: TargetSpec) -> TargetView:
    return TargetView(spec.name, spec.kind.value, spec.platform, spec.tier, spec.role, TargetStatus.OK, None)
