"""A list that times out, is cut off or is forbidden costs that list only: the rest of the cluster is
collected and covered, and the problem names the resource and the real cause (timed out, forbidden,
unreachable), never "the API server was unreachable" for a server that answered everything else."""

from __future__ import annotations

import time
from pathlib import Path

from auditor.capture import RawCapture
from auditor.config.loader import load_config
from auditor.enums import FactKind, Status, TargetStatus
from auditor.normalize import Problem
from collectors.export import export_run
from collectors.kubernetes.collector import KubernetesCollector
from tests.k8s_live.apiserver import ApiServer
from tests.k8s_live.conftest import audit_config
from tests.k8s_live.runs import Run, audit

SLOW = {"retries": 1, "retry_backoff": 0, "connect_timeout": 2, "command_timeout": 1}


def _config(tmp_path: Path, kubeconfig: Path) -> Path:
    body = {"sources": {"kubernetes": [{"name": "prod", "kubeconfig": str(kubeconfig)}]}, "collection": SLOW}
    return audit_config(tmp_path, body)


def _collect(config_path: Path) -> tuple[list[RawCapture], list[Problem]]:
    config = load_config(config_path)
    collector = KubernetesCollector(page_limit=2)
    (target,) = collector.plan(config).targets
    captures: list[RawCapture] = []
    problems: list[Problem] = []
    for got in collector.collect(target):
        (problems if isinstance(got, Problem) else captures).append(got)  # type: ignore[arg-type]
    return captures, problems


def _covered(captures: list[RawCapture]) -> set[str]:
    return {c.meta["covers"] for c in captures if c.meta.get("covers")}


def test_a_timed_out_list_costs_that_list_only(tmp_path: Path, server: ApiServer, kubeconfig: Path) -> None:
    server.delay["pods"] = 3  # longer than command_timeout (1 s), on every attempt
    start = time.monotonic()
    captures, problems = _collect(_config(tmp_path, kubeconfig))
    took = time.monotonic() - start
    assert [p.message for p in problems] == [
        "list pods timed out: no answer within 1s (collection.command_timeout) (2 attempts)"
    ]
    assert "unreachable" not in problems[0].message and "cannot reach" not in problems[0].message
    assert "the rest of the cluster was collected" in (problems[0].hint or "")
    covered = _covered(captures)
    assert FactKind.K8S_POD.value not in covered
    assert {
        FactKind.K8S_NAMESPACE.value,
        FactKind.K8S_SERVICE.value,
        FactKind.K8S_INGRESS.value,
        FactKind.K8S_NETWORK_POLICY.value,
    } <= covered
    # lists after pods were read (the failure did not end the collection there)
    listed = [e.path for e in server.log if e.path in server.resources and e.status == 200]
    assert any(p.endswith("/services") for p in listed) and any(
        p.endswith("/networkpolicies") for p in listed
    )
    assert took < 2 * 1 + 8  # two attempts of 1 s for pods, the rest at full speed


def test_forbidden_and_timed_out_lists_are_told_apart(
    tmp_path: Path, server: ApiServer, kubeconfig: Path
) -> None:
    server.delay["services"] = 3
    server.forbidden.add("ingresses.networking.k8s.io")
    captures, problems = _collect(_config(tmp_path, kubeconfig))
    messages = sorted(p.message for p in problems)
    assert len(messages) == 2
    assert messages[0].startswith("forbidden: list ingresses.networking.k8s.io at cluster scope")
    assert messages[1].startswith("list services timed out")
    covered = _covered(captures)
    assert FactKind.K8S_INGRESS.value not in covered and FactKind.K8S_SERVICE.value not in covered
    assert FactKind.K8S_POD.value in covered and FactKind.K8S_NETWORK_POLICY.value in covered


def test_timed_out_list_through_the_pipeline(tmp_path: Path, server: ApiServer, kubeconfig: Path) -> None:
    """The same run through plan, collect, normalize, store and checks: the cluster is PARTIAL (not
    FAILED), the pod-dependent checks are NOT_ASSESSED naming the list, the others assessed."""
    server.delay["pods"] = 3
    run = audit(_config(tmp_path, kubeconfig))
    target = run.target("prod")
    assert target.status == TargetStatus.PARTIAL.value
    assert "list pods timed out" in target.reason
    assert FactKind.K8S_POD not in run.covered("prod")
    assert FactKind.K8S_NETWORK_POLICY in run.covered("prod")
    assert [p.message for p in run.reader.problems()] == [
        "list pods timed out: no answer within 1s (collection.command_timeout) (2 attempts)"
    ]
    statuses = {f.status for f in run.reader.findings() if f.check_id.startswith("T2-")}
    assert Status.NOT_ASSESSED.value in statuses


def test_timed_out_list_survives_export_and_offline_reaudit(
    tmp_path: Path, server: ApiServer, kubeconfig: Path
) -> None:
    """The gap travels with the exported evidence: re-audited offline, the cluster is PARTIAL for the same
    reason and every finding (NOT_ASSESSED ones included) is the same."""
    server.delay["pods"] = 3
    live_dir = tmp_path / "live"
    live_dir.mkdir()
    run = audit(_config(live_dir, kubeconfig))
    export = tmp_path / "export"
    export_run(run.engine, run.run_id, export)
    off_dir = tmp_path / "offline"
    off_dir.mkdir()
    again = audit(audit_config(off_dir, {"sources": {"files": [{"path": str(export)}]}}))

    def findings(r: Run) -> list[tuple[str, str, str, str]]:
        return sorted((f.check_id, f.status, f.subject, f.message) for f in r.reader.findings())

    assert (again.target("prod").status, again.target("prod").reason) == (
        run.target("prod").status,
        run.target("prod").reason,
    )
    assert findings(again) == findings(run)
    assert any(f[1] == Status.NOT_ASSESSED.value for f in findings(again))
    assert again.covered("prod") == run.covered("prod")
