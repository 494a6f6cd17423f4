"""The `declared` collector: policies kept in git become a `declared:<cluster>` target, read by the real
Kubernetes normalizer, and X-DECLARED-VS-LIVE compares them with the live cluster in a real audit.

The drift case is real data: np-guard/netpol-analyzer's onlineboutique policies and the edited copy its
diff test uses (the edits are commented in the file: removed and added rules, changed ports, a new
policy)."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from sqlalchemy import Engine

from auditor.config.loader import parse_config
from auditor.enums import TargetKind
from auditor.errors import CollectionError
from auditor.normalize import Problem
from auditor.pipeline.audit import run_audit
from auditor.pipeline.checking import load_context
from checks.base import check_registry
from checks.runner import evaluate_one
from collectors.base import collector_registry
from collectors.declared.collector import DeclaredPoliciesCollector
from collectors.declared.gitref import git_ref

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "k8s_semantics" / "declared"
POLICY = """apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: deny, namespace: team-a}
spec: {podSelector: {}, policyTypes: [Ingress, Egress]}
"""


def _git(cwd: Path, *args: str) -> str:
    env = {
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@e",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@e",
    }
    out = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=True, env=env)
    return out.stdout.strip()


def _config(tmp_path: Path, text: str):  # type: ignore[no-untyped-def]
    return parse_config(text, source=str(tmp_path / "auditor.yaml"), base_dir=tmp_path)


def test_registered_and_planned_as_one_declared_target_per_cluster(tmp_path: Path) -> None:
    assert collector_registry().get("declared") is DeclaredPoliciesCollector
    for d in ("a", "b", "c"):
        (tmp_path / d).mkdir()
    config = _config(
        tmp_path,
        "sources:\n  declared:\n    - {path: a, cluster: prod}\n    - {path: b, cluster: prod}\n"
        "    - {path: c, cluster: staging}\n",
    )
    plan = DeclaredPoliciesCollector().plan(config)
    assert [(t.kind, t.name, t.collector) for t in plan.targets] == [
        (TargetKind.DECLARED, "declared:prod", "declared"),
        (TargetKind.DECLARED, "declared:staging", "declared"),
    ]
    assert plan.targets[0].payload[1] == [str(tmp_path / "a"), str(tmp_path / "b")]
    assert plan.targets[0].notes == ()  # not a git checkout


def test_collects_manifests_only_with_cluster_and_git_commit(tmp_path: Path) -> None:
    repo = tmp_path / "policies"
    (repo / "prod" / "nested").mkdir(parents=True)
    (repo / "prod" / "team-a.yaml").write_text(POLICY)
    (repo / "prod" / "nested" / "list.json").write_text(
        json.dumps({"apiVersion": "v1", "kind": "List", "items": []})
    )
    (repo / "prod" / "README.md").write_text("# not a manifest\n")
    (repo / "prod" / "values.yaml").write_text("replicas: 3\n")  # YAML but not a Kubernetes object
    (repo / "prod" / ".hidden").mkdir()
    (repo / "prod" / ".hidden" / "x.yaml").write_text(POLICY)
    _git(repo, "init", "-q", "-b", "main")
    _git(repo, "add", ".")
    _git(repo, "commit", "-q", "-m", "policies")
    head = _git(repo, "rev-parse", "HEAD")
    config = _config(tmp_path, "sources:\n  declared:\n    - {path: policies/prod, cluster: prod}\n")
    collector = DeclaredPoliciesCollector()
    (target,) = collector.plan(config).targets
    assert target.notes == (f"sources.declared[0] (policies/prod): git commit {head[:12]} on main",)
    captures = list(collector.collect(target))
    assert sorted(c.origin for c in captures) == [
        "policies/prod/nested/list.json",
        "policies/prod/team-a.yaml",
    ]
    for c in captures:
        assert c.format == "k8s.manifest" and c.target == "declared:prod"
        assert c.meta == {"cluster": "prod", "declared": "true", "git_commit": head, "git_branch": "main"}


def test_missing_or_empty_paths(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    (tmp_path / "good").mkdir()
    (tmp_path / "good" / "p.yaml").write_text(POLICY)
    collector = DeclaredPoliciesCollector()
    config = _config(
        tmp_path,
        "sources:\n  declared:\n    - {path: gone, cluster: a}\n    - {path: empty, cluster: b}\n"
        "    - {path: gone, cluster: c}\n    - {path: good, cluster: c}\n",
    )
    a, b, c = collector.plan(config).targets
    with pytest.raises(CollectionError, match="gone do not exist"):
        list(collector.collect(a))
    with pytest.raises(CollectionError, match="no Kubernetes manifest"):
        list(collector.collect(b))
    got = list(collector.collect(c))
    assert [type(x) for x in got] == [type(got[0]), Problem]
    assert isinstance(got[1], Problem) and got[1].message == "declared-policy path does not exist"


def test_git_ref_reads_packed_refs_detached_heads_and_worktrees(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "p.yaml").write_text(POLICY)
    _git(repo, "init", "-q", "-b", "main")
    _git(repo, "add", ".")
    _git(repo, "commit", "-q", "-m", "one")
    head = _git(repo, "rev-parse", "HEAD")
    _git(repo, "pack-refs", "--all")
    assert not (repo / ".git" / "refs" / "heads" / "main").exists()
    ref = git_ref(repo)
    assert ref is not None and (ref.commit, ref.branch) == (head, "main")
    _git(repo, "worktree", "add", "-q", "--detach", str(tmp_path / "wt"))
    wt = git_ref(tmp_path / "wt")
    assert wt is not None and (wt.commit, wt.branch) == (head, None)
    assert git_ref(tmp_path / "nowhere") is None


def test_audit_compares_declared_with_live_policies(tmp_path: Path, engine: Engine) -> None:
    (tmp_path / "git").mkdir()
    (tmp_path / "live").mkdir()
    shutil.copy(FIXTURES / "onlineboutique_netpols.yaml", tmp_path / "git" / "netpols.yaml")
    shutil.copy(FIXTURES / "onlineboutique_changed_netpols.yaml", tmp_path / "live" / "netpols.yaml")
    shutil.copy(FIXTURES / "onlineboutique_ns.yaml", tmp_path / "live" / "ns.yaml")
    config = _config(
        tmp_path,
        "intent:\n  tiers:\n    frontend: {namespaces: {names: [default], exclude: []}}\n"
        "sources:\n  files: [{path: live, cluster: boutique}]\n"
        "  declared: [{path: git, cluster: boutique}]\nreports: []\n",
    )
    outcome = run_audit(config, engine=engine, render=False)
    ctx = load_context(engine, outcome.run_id, config.intent)
    assert {(t.kind, t.name) for t in ctx.targets} == {
        ("kubernetes", "boutique"),
        ("declared", "declared:boutique"),
    }
    findings = evaluate_one(ctx, check_registry().get("X-DECLARED-VS-LIVE"))
    got = {(f.status.value, f.subject.rsplit(" ", 1)[1], f.found.split(":")[0]) for f in findings}
    changed = ["adservice", "cartservice", "checkoutservice", "currencyservice", "emailservice", "frontend"]
    assert got == {("FAIL", f"{n}-netpol", "changed") for n in changed} | {
        ("FAIL", "redis-cart-netpol", "in force but not declared in declared")
    }
    cart = next(f for f in findings if f.subject.endswith("cartservice-netpol"))
    assert "ingress[0].ports[0].port: declared 7070, live 8000" in cart.found  # the changed port
    assert "egress: live adds" in cart.found and "emailservice" in cart.found  # the added egress rule
    # the declared copy is never judged as if it were in force
    deny = evaluate_one(ctx, check_registry().get("T2-NS-DEFAULT-DENY"))
    assert [f.subject for f in deny] == ["boutique/ns default"]
    assert all(f.target != "declared:boutique" for f in deny)
