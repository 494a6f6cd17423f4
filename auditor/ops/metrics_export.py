"""ScopeMetrics as Prometheus metric families: one collector serves the scheduler's /metrics (every
scheduled scope) and the node-exporter textfile `auditor audit` writes after each run (one scope)."""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterable, Iterator
from pathlib import Path

from prometheus_client import CollectorRegistry, write_to_textfile
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector
from sqlalchemy import Engine

from auditor.config.models import AuditConfig
from auditor.ops.metrics import RUN_STATUSES, SEVERITIES, STATUSES, ScopeMetrics, scope_label, scope_metrics

log = logging.getLogger(__name__)


def families(snapshots: Iterable[ScopeMetrics]) -> list[GaugeMetricFamily]:
    """Every metric of every scope; a family is emitted (with its HELP) even when no scope has a run yet."""
    g = {
        "compliance": GaugeMetricFamily(
            "auditor_compliance_ratio",
            "Findings of the tier that pass (a waived failure counts as met; NOT_APPLICABLE is left out)",
            labels=["scope", "tier"],
        ),
        "framework": GaugeMetricFamily(
            "auditor_framework_compliance_ratio",
            "Requirements of the framework met (PASS or WAIVED) among those that apply",
            labels=["scope", "framework"],
        ),
        "requirements": GaugeMetricFamily(
            "auditor_framework_requirements",
            "Requirements of the framework by result (worst outcome of their checks)",
            labels=["scope", "framework", "result"],
        ),
        "findings": GaugeMetricFamily(
            "auditor_findings",
            "Findings of the latest run by severity and status",
            labels=["scope", "severity", "status"],
        ),
        "waived": GaugeMetricFamily(
            "auditor_findings_waived",
            "FAIL findings covered by a waiver in force (also counted in auditor_findings)",
            labels=["scope", "severity"],
        ),
        "not_assessed": GaugeMetricFamily(
            "auditor_targets_not_assessed",
            "Targets of the latest run whose evidence is missing or incomplete (collection failed)",
            labels=["scope"],
        ),
        "duration": GaugeMetricFamily(
            "auditor_collection_duration_seconds",
            "Time collecting one target in the latest run (source: the target's kind)",
            labels=["scope", "source", "target", "status"],
        ),
        "source": GaugeMetricFamily(
            "auditor_source_collection_seconds",
            "Summed collection time of a source's targets in the latest run",
            labels=["scope", "source"],
        ),
        "run": GaugeMetricFamily("auditor_last_run_id", "Id of the latest sealed run", labels=["scope"]),
        "run_status": GaugeMetricFamily(
            "auditor_last_run_status",
            "Status of the latest sealed run (1 for its status)",
            labels=["scope", "status"],
        ),
        "run_time": GaugeMetricFamily(
            "auditor_last_run_timestamp_seconds",
            "When the latest run was sealed (Unix time)",
            labels=["scope"],
        ),
        "success": GaugeMetricFamily(
            "auditor_last_success_timestamp_seconds",
            "When a run of the scope last finished collecting and checking (complete or partial; Unix time)",
            labels=["scope"],
        ),
    }
    for m in snapshots:
        s = m.scope
        for tier, tier_ratio in sorted(m.tier_compliance.items()):
            g["compliance"].add_metric([s, tier], tier_ratio)
        for key, counts in sorted(m.frameworks.items()):
            ratio = m.framework_ratio(key)
            if ratio is not None:
                g["framework"].add_metric([s, key], ratio)
            for result, n in sorted(counts.items()):
                g["requirements"].add_metric([s, key, result], n)
        for severity in SEVERITIES:
            for status in STATUSES:
                g["findings"].add_metric([s, severity, status], m.findings[(severity, status)])
            g["waived"].add_metric([s, severity], m.waived[severity])
        g["not_assessed"].add_metric([s], m.not_assessed)
        per_source: dict[str, float] = {}
        for t in m.targets:
            if t.seconds is not None:
                g["duration"].add_metric([s, t.source, t.target, t.status], t.seconds)
                per_source[t.source] = per_source.get(t.source, 0.0) + t.seconds
        for source, seconds in sorted(per_source.items()):
            g["source"].add_metric([s, source], seconds)
        g["run"].add_metric([s], m.run_id)
        for status in RUN_STATUSES:
            g["run_status"].add_metric([s, status], 1.0 if status == m.run_status else 0.0)
        if m.sealed_at is not None:
            g["run_time"].add_metric([s], m.sealed_at.timestamp())
        if m.last_success is not None:
            g["success"].add_metric([s], m.last_success.timestamp())
    return list(g.values())


class ScopesCollector(Collector):
    """The latest figures of each scope, replaced whole when a run of that scope ends (thread-safe:
    the HTTP server's threads scrape while the scheduler updates)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._scopes: dict[str, ScopeMetrics] = {}

    def update(self, metrics: ScopeMetrics) -> None:
        with self._lock:
            self._scopes[metrics.scope] = metrics

    def refresh(self, engine: Engine, scope_text: str, label: str) -> ScopeMetrics | None:
        """Read the scope's latest run from the store; a store that cannot be read is logged, not raised
        (metrics never stop an audit or the scheduler)."""
        try:
            found = scope_metrics(engine, scope_text, label)
        except Exception as exc:
            log.warning("metrics of scope %s not read from the store: %s", label, exc)
            return None
        if found is not None:
            self.update(found)
        return found

    def collect(self) -> Iterator[GaugeMetricFamily]:
        with self._lock:
            snapshot = list(self._scopes.values())
        yield from families(snapshot)


def write_textfile(path: Path, metrics: ScopeMetrics) -> None:
    """Write the node-exporter textfile atomically (a temporary file renamed over it, so node-exporter
    never reads half a file)."""
    collector = ScopesCollector()
    collector.update(metrics)
    registry = CollectorRegistry(auto_describe=False)
    registry.register(collector)
    path.parent.mkdir(parents=True, exist_ok=True)
    write_to_textfile(str(path), registry)


def write_textfile_after_run(engine: Engine, scope_text: str, label: str, path: Path) -> bool:
    """After `auditor audit`: the scope's figures into `path`. A failure is logged, never raised: the
    metrics file must not change an audit's outcome or exit code."""
    try:
        found = scope_metrics(engine, scope_text, label)
        if found is None:
            return False
        write_textfile(path, found)
    except Exception as exc:
        log.error("metrics textfile %s not written: %s", path, exc)
        return False
    return True


def write_config_textfile(config: AuditConfig, config_path: Path, engine: Engine) -> bool:
    """`auditor audit`'s hook: the textfile of the config's `metrics:`, labelled as the scheduler labels
    the scope (so a CronJob's textfile and the scheduler's /metrics name it alike)."""
    settings = config.metrics
    if settings is None or settings.textfile is None:
        return False
    label = scope_label(config_path, settings.scope_label)
    return write_textfile_after_run(engine, config.scope, label, config.resolve(settings.textfile))
