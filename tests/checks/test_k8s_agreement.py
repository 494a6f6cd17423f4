"""The tier-2 checks, the lateral-movement model (X-LATERAL-NO-PATH) and `reach k8s` ask one engine, so
on every fixture (each netpol-analyzer case and each hand-derived Calico/Cilium/Ingress case) they
must allow exactly the same connections. The checks and the lateral model get their policies the way
an audit does: normalized facts in a run's fact view."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest
from typer.testing import CliRunner

from auditor.capture import RawCapture
from auditor.cli.app import app, load_commands
from auditor.config.models import Intent
from auditor.enums import FactKind, TargetStatus
from auditor.facts import Coverage, FactRecord, K8sNamespace, K8sNetworkPolicy, K8sService
from auditor.store.reader import StoredFact
from checks.base import CheckContext, FactView, TargetView, check_registry
from checks.k8s.connlist import connlist, to_text
from checks.k8s.engine import PolicyEngine
from checks.k8s.manifests import SUFFIXES, read_directory
from checks.lateral.model import ModelContext
from checks.lateral.net_k8s import ClusterFacts, KubernetesNetwork
from checks.tier2._k8s_scope import tenant_clusters
from collectors.normalizers.kubernetes import normalize_manifest

load_commands()
FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
NPA = FIXTURES / "lateral" / "netpol-analyzer" / "tests"
ENGINE = FIXTURES / "k8s_semantics" / "engine"
CASES = [*sorted(p for p in NPA.iterdir() if p.is_dir()), *sorted(p for p in ENGINE.iterdir() if p.is_dir())]
INTENT = Intent.model_validate(
    {"tiers": {"frontend": {"cidrs": ["10.20.0.0/16"], "namespaces": {"names": ["*"], "exclude": []}}}}
)


def _context(case: Path) -> CheckContext:
    """The case as an audit would hold it: one live cluster target, its facts and their coverage."""
    records: list[FactRecord] = []
    for path in sorted(p for p in case.rglob("*") if p.suffix.lower() in SUFFIXES):
        capture = RawCapture(
            "lab", "k8s.manifest", "file", str(path), datetime.now(UTC), path.read_bytes(), {}
        )
        records += normalize_manifest(capture).facts
    named = {r.name for r in records if isinstance(r, K8sNamespace)}
    for workload in read_directory(case).workloads:  # namespaces only named by objects: default labels
        if workload.namespace not in named:
            named.add(workload.namespace)
            records.append(K8sNamespace(cluster="offline", name=workload.namespace, labels={}))
    covers = [Coverage(target="lab", covers=k) for k in (FactKind.K8S_NAMESPACE, FactKind.K8S_NETWORK_POLICY)]
    facts: list[StoredFact[FactRecord]] = [
        StoredFact(i + 1, r.kind, "lab", 1, "0" * 64, r) for i, r in enumerate([*covers, *records])
    ]
    target = TargetView("lab", "kubernetes", None, None, None, TargetStatus.OK, None)
    return CheckContext(intent=INTENT, facts=FactView(facts), targets=(target,))


def _lines(engine: PolicyEngine, case: Path) -> set[str]:
    m = read_directory(case)
    return set(
        to_text(connlist(engine, m.workloads, services=m.services, ingresses=m.ingresses)).splitlines()
    )


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_checks_lateral_model_and_reach_allow_the_same_connections(case: Path) -> None:
    result = CliRunner().invoke(app, ["reach", "k8s", str(case)])
    assert result.exit_code == 0, result.output
    reach = set(result.stdout.splitlines())

    ctx = _context(case)
    clusters, gaps = tenant_clusters(check_registry().get("T2-NS-DEFAULT-DENY"), ctx)
    assert not gaps and len(clusters) == 1
    checks = _lines(clusters[0].model.engine, case)

    of = ctx.facts.of
    lateral = KubernetesNetwork(
        ModelContext(INTENT),
        ClusterFacts("offline", of(K8sNamespace), of(K8sNetworkPolicy), None, of(K8sService)),
    )
    model = _lines(lateral.model.engine, case)

    assert checks == reach
    assert model == reach


# --- the scenario the engine was merged for ----------------------------------------------------------

LAB_INTENT = """
tiers:
  oob: {cidrs: [10.250.0.0/16]}
  frontend: {cidrs: [10.20.0.0/16], namespaces: {labels: {tier: frontend}}}
  backend: {cidrs: [10.30.0.0/15]}
"""
LAB_EVIDENCE = """
- target: {name: prod, kind: kubernetes}
  covers: [k8s_namespace, k8s_network_policy]
  facts:
    - {kind: k8s_namespace, cluster: prod, name: team-a, labels: {tier: frontend}}
    - {kind: k8s_network_policy, cluster: prod, namespace: null, name: deny-all, flavor: calico-global,
       policy_types: [Ingress, Egress],
       spec: {selector: "pcns.tier == 'frontend'", types: [Ingress, Egress]}}
"""
UNSUPPORTED_FACT = """
    - {kind: k8s_network_policy, cluster: prod, namespace: team-a, name: fw, flavor: unsupported,
       api_kind: EgressFirewall, spec: {egress: [{type: Allow, to: {cidrSelector: 0.0.0.0/0}}]}}
"""


def _statuses(tmp_path: Path, evidence: str) -> dict[tuple[str, str], str]:
    from checks.runner import evaluate_one
    from tests.checks.harness import load_case

    (tmp_path / "intent.yaml").write_text(LAB_INTENT)
    (tmp_path / "evidence.yaml").write_text(evidence)
    (tmp_path / "expected.yaml").write_text("[]")
    ctx, _ = load_case(tmp_path)
    out = {}
    for check_id in ("T2-NS-DEFAULT-DENY", "X-LATERAL-NO-PATH"):
        for f in evaluate_one(ctx, check_registry().get(check_id)):
            out[(check_id, f.subject)] = f.status.value + (
                "" if f.status.value != "NOT_ASSESSED" else f": {f.message}"
            )
    return out


def test_a_calico_deny_all_is_one_verdict_for_default_deny_and_lateral_movement(tmp_path: Path) -> None:
    got = _statuses(tmp_path, LAB_EVIDENCE)
    assert got[("T2-NS-DEFAULT-DENY", "prod/ns team-a")] == "PASS"
    assert got[("X-LATERAL-NO-PATH", "prod/ns team-a -> oob")] == "PASS"
    assert got[("X-LATERAL-NO-PATH", "prod/ns team-a -> backend")] == "PASS"


def test_a_kind_the_engine_cannot_evaluate_is_not_assessed_everywhere_it_matters(tmp_path: Path) -> None:
    got = _statuses(tmp_path, LAB_EVIDENCE + UNSUPPORTED_FACT)
    for key in (
        ("T2-NS-DEFAULT-DENY", "prod/ns team-a"),
        ("X-LATERAL-NO-PATH", "prod/ns team-a -> oob"),
        ("X-LATERAL-NO-PATH", "prod/ns team-a -> backend"),
    ):
        assert got[key].startswith("NOT_ASSESSED") and "EgressFirewall" in got[key], (key, got[key])
