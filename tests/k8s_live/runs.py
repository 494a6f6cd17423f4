"""Run the real pipeline (plan, collect, normalize, store, check, seal) with a chosen page size."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy import Engine

from auditor.config.loader import load_config
from auditor.enums import FactKind
from auditor.normalize import normalizer_registry
from auditor.pipeline.audit import _run_status, config_snapshot, plan_targets
from auditor.pipeline.checking import evaluate_run, to_rows
from auditor.pipeline.collect import collect_targets
from auditor.pipeline.progress import NoProgress
from auditor.store.engine import open_store
from auditor.store.reader import RunReader
from auditor.store.writer import RunWriter
from checks.base import check_registry
from collectors.base import Collector, collector_registry
from collectors.kubernetes.collector import KubernetesCollector


@dataclass
class Run:
    engine: Engine
    run_id: int

    @property
    def reader(self) -> RunReader:
        return RunReader(self.engine, self.run_id)

    def facts(self, target: str | None = None) -> dict[FactKind, list[str]]:
        """Every fact but coverage, as canonical JSON, sorted, per kind."""
        out: dict[FactKind, list[str]] = {}
        for f in self.reader.facts():
            if f.kind == FactKind.COVERAGE or (target is not None and f.target != target):
                continue
            out.setdefault(f.kind, []).append(json.dumps(f.record.to_json(), sort_keys=True))
        return {k: sorted(v) for k, v in out.items()}

    def covered(self, target: str) -> set[FactKind]:
        return {
            FactKind(f.record.to_json()["covers"])
            for f in self.reader.facts({FactKind.COVERAGE})
            if f.target == target
        }

    def target(self, name: str) -> Any:
        return next(t for t in self.reader.targets() if t.name == name)

    def findings(self, check_id: str) -> list[Any]:
        return [f for f in self.reader.findings() if f.check_id == check_id]


def audit(config_path: Path, *, page_limit: int = 2) -> Run:
    """What `auditor audit` does, with the Kubernetes collector's page size set (default 500)."""
    config = load_config(config_path)
    engine = open_store(config.store_url())
    collectors: dict[str, Collector] = {name: cls() for name, cls in collector_registry().items()}
    collectors["kubernetes"] = KubernetesCollector(page_limit=page_limit)
    plan = plan_targets(config, collectors)
    snapshot, digest = config_snapshot(config)
    writer = RunWriter.start(engine, config=snapshot, config_sha256=digest, scope=config.scope)
    writer.add_problems(None, plan.problems)
    outcomes = collect_targets(plan.targets, collectors, writer, normalizer_registry(), NoProgress(), 4)
    checks = [c for _, c in check_registry().items()]
    verdicts = evaluate_run(engine, writer.run_id, checks, intent=config.intent)
    writer.add_findings(to_rows(verdicts))
    writer.seal(_run_status([o.status for o in outcomes.values()], bool(plan.problems)))
    return Run(engine, writer.run_id)
