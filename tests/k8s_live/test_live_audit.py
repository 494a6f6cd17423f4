"""A live audit of the test API server, through the real pipeline, against an offline audit of the same
objects dumped as `kubectl get -o json` would: same facts, field by field; and the failure modes."""

from __future__ import annotations

import math
import socket
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml

from auditor.config.loader import load_config
from auditor.enums import FactKind, Status, TargetStatus
from auditor.pipeline.audit import run_audit
from auditor.store.engine import open_store
from collectors.kubernetes.catalog import all_resources
from tests.k8s_live.apiserver import ApiServer
from tests.k8s_live.certs import Pki
from tests.k8s_live.cluster import DNS_SCENARIO, build
from tests.k8s_live.conftest import Context, audit_config, write_kubeconfig
from tests.k8s_live.runs import Run, audit

K8S_KINDS = {
    FactKind.K8S_NAMESPACE,
    FactKind.K8S_POD,
    FactKind.K8S_SERVICE,
    FactKind.K8S_INGRESS,
    FactKind.K8S_NETWORK_POLICY,
}


def live(tmp_path: Path, kubeconfig: Path, *, page_limit: int = 2, **source: Any) -> Run:
    entry = {"name": "prod", "kubeconfig": str(kubeconfig), **source}
    return audit(audit_config(tmp_path, {"sources": {"kubernetes": [entry]}}), page_limit=page_limit)


def offline(directory: Path, evidence: Path) -> Run:
    directory.mkdir()
    body = {"sources": {"files": [{"path": str(evidence), "cluster": "prod"}]}}
    return audit(audit_config(directory, body))


def list_requests(server: ApiServer) -> Counter[str]:
    return Counter(e.path for e in server.log if e.path in server.resources)


def test_live_facts_equal_offline_facts_field_by_field(
    tmp_path: Path, server: ApiServer, kubeconfig: Path
) -> None:
    run = live(tmp_path, kubeconfig)
    assert run.target("prod").status == TargetStatus.OK.value, run.target("prod").reason
    assert run.covered("prod") == K8S_KINDS
    assert run.reader.problems() == []

    dumped = tmp_path / "dump"
    server.dump(dumped)
    reference = offline(tmp_path / "offline", dumped)
    live_facts, offline_facts = run.facts(), reference.facts()
    assert set(live_facts) == K8S_KINDS
    for kind in K8S_KINDS:
        assert live_facts[kind] == offline_facts[kind], kind

    # every resource was read, in pages of 2, and every object became a fact
    expected_pages = {r.path: max(1, math.ceil(len(r.objects) / 2)) for r in server.resources.values()}
    assert list_requests(server) == expected_pages
    served = {r.qualified: len(r.objects) for r in server.resources.values()}
    flavors = Counter(yaml.safe_load(f)["flavor"] for f in live_facts[FactKind.K8S_NETWORK_POLICY])
    assert flavors == {
        "kubernetes": served["networkpolicies.networking.k8s.io"],
        "admin": 1,
        "baseline-admin": 1,
        "cilium": served["ciliumnetworkpolicies.cilium.io"],
        "cilium-clusterwide": served["ciliumclusterwidenetworkpolicies.cilium.io"],
        "calico": 1,
        "calico-global": 1,
    }
    assert len(live_facts[FactKind.K8S_POD]) == served["pods"] == 41
    assert len(live_facts[FactKind.K8S_SERVICE]) == served["services"] == 16
    assert len(live_facts[FactKind.K8S_INGRESS]) == served["ingresses.networking.k8s.io"] == 7
    assert len(live_facts[FactKind.K8S_NAMESPACE]) == served["namespaces"] == 10

    # only GETs went out, saying who sent them, and each capture names the exact call
    assert {e.method for e in server.log} == {"GET"}
    assert {e.user_agent for e in server.log} == {"segmentation-auditor/read-only"}
    sources = [c.source for c in run.reader.captures(with_content=False)]
    assert "GET /apis/networking.k8s.io/v1/networkpolicies?limit=2" in sources
    assert any(s.startswith("GET /api/v1/pods?limit=2&continue=") for s in sources)
    assert len(sources) == len([e for e in server.log if e.status == 200])
    # the Corefile ConfigMap is asked for by name only (here it does not exist: nothing covered)
    assert [e.status for e in server.log if "configmaps" in e.path] == [404]
    assert FactKind.K8S_DNS_CONFIG not in run.covered("prod")


def test_forbidden_list_is_not_assessed_naming_verb_and_resource(
    tmp_path: Path, server: ApiServer, kubeconfig: Path
) -> None:
    server.forbidden.add("networkpolicies.networking.k8s.io")
    run = live(tmp_path, kubeconfig)
    target = run.target("prod")
    expected = (
        "forbidden: list networkpolicies.networking.k8s.io at cluster scope; "
        "grant the ClusterRole from `auditor permissions k8s`"
    )
    assert target.status == TargetStatus.PARTIAL.value
    assert expected in target.reason
    assert [p.message for p in run.reader.problems()] == [expected]
    assert run.covered("prod") == K8S_KINDS - {FactKind.K8S_NETWORK_POLICY}
    (finding,) = run.findings("T2-NS-DEFAULT-DENY")
    assert finding.status == Status.NOT_ASSESSED.value
    assert expected in finding.message
    # what could be read is kept: the other flavors' policies are stored, just not counted as complete
    flavors = {yaml.safe_load(f)["flavor"] for f in run.facts()[FactKind.K8S_NETWORK_POLICY]}
    assert flavors == {"admin", "baseline-admin", "cilium", "cilium-clusterwide", "calico", "calico-global"}


def test_absent_crds_mean_not_in_use_covered_with_zero_facts(
    tmp_path: Path, start_server: Callable[..., ApiServer], pki: Pki
) -> None:
    server = start_server(cilium=False, anp=False, calico_group=None)
    kubeconfig = write_kubeconfig(tmp_path / "kubeconfig", pki, [Context("prod", server)])
    run = live(tmp_path, kubeconfig)
    assert run.target("prod").status == TargetStatus.OK.value
    assert run.covered("prod") == K8S_KINDS
    assert run.reader.problems() == []
    flavors = {yaml.safe_load(f)["flavor"] for f in run.facts()[FactKind.K8S_NETWORK_POLICY]}
    assert flavors == {"kubernetes"}
    # discovery said so: no list of a resource the server does not serve was even sent (the one 404 is
    # the Corefile ConfigMap asked for by name, which this cluster does not have)
    assert [e.path for e in server.log if e.status == 404] == [
        "/api/v1/namespaces/kube-system/configmaps/coredns"
    ]
    assert [e.path for e in server.log if e.path.startswith("/apis") and e.path.count("/") <= 3] == [
        "/apis",
        "/apis/networking.k8s.io/v1",
    ]
    (finding,) = run.findings("T2-NS-DEFAULT-DENY")[:1]
    assert finding.status in {Status.PASS.value, Status.FAIL.value}


def test_without_discovery_a_404_on_the_list_means_absent(
    tmp_path: Path, start_server: Callable[..., ApiServer], pki: Pki
) -> None:
    server = start_server(cilium=False, anp=False, calico_group=None)
    server.forbidden_discovery = True
    kubeconfig = write_kubeconfig(tmp_path / "kubeconfig", pki, [Context("prod", server)])
    run = live(tmp_path, kubeconfig)
    assert run.covered("prod") == K8S_KINDS
    (problem,) = run.reader.problems()
    assert "API discovery failed (forbidden: GET /apis)" in problem.message
    not_found = {e.path for e in server.log if e.status == 404}
    assert "/apis/cilium.io/v2/ciliumnetworkpolicies" in not_found
    assert "/apis/crd.projectcalico.org/v1/globalnetworkpolicies" in not_found  # both Calico APIs tried
    # every CRD alternative, OpenShift routes and the Corefile ConfigMap by name: all tried, all absent
    assert not_found == {r.path for r in all_resources() if not r.builtin}


def test_expired_continue_token_restarts_the_list_without_duplicates(
    tmp_path: Path, server: ApiServer, kubeconfig: Path
) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    baseline = live(tmp_path / "a", kubeconfig)
    server.log.clear()
    server.expire["pods"] = 1
    run = live(tmp_path / "b", kubeconfig)
    assert run.target("prod").status == TargetStatus.OK.value
    assert run.facts() == baseline.facts()
    pods = [e for e in server.log if e.path == "/api/v1/pods"]
    assert [e.status for e in pods[:3]] == [200, 410, 200]
    assert "continue" not in pods[2].query  # restarted from the beginning: one consistent snapshot
    assert len(pods) == 2 + math.ceil(41 / 2)
    pod_sources = [c.source for c in run.reader.captures(with_content=False) if "/api/v1/pods" in c.source]
    assert len(pod_sources) == math.ceil(41 / 2)  # the superseded page is not stored


def test_continue_token_expiring_every_time_is_reported_and_not_covered(
    tmp_path: Path, server: ApiServer, kubeconfig: Path
) -> None:
    server.expire["services"] = -1
    run = live(tmp_path, kubeconfig)
    (problem,) = run.reader.problems()
    assert problem.message.startswith(
        "list services did not finish: its continue token expired (410 Expired) 3 time"
    )
    assert run.covered("prod") == K8S_KINDS - {FactKind.K8S_SERVICE}
    assert run.target("prod").status == TargetStatus.PARTIAL.value
    assert len(run.facts()[FactKind.K8S_SERVICE]) == 2  # the first page of the last attempt is kept


def test_transient_unavailability_is_retried(tmp_path: Path, server: ApiServer, kubeconfig: Path) -> None:
    server.unavailable["ingresses.networking.k8s.io"] = 1
    run = live(tmp_path, kubeconfig)
    assert run.target("prod").status == TargetStatus.OK.value
    assert [e.status for e in server.log if e.path.endswith("/ingresses")][:2] == [503, 200]


def test_expired_token_is_a_clear_target_failure(tmp_path: Path, server: ApiServer, pki: Pki) -> None:
    kubeconfig = write_kubeconfig(tmp_path / "kubeconfig", pki, [Context("prod", server, token="expired")])
    run = live(tmp_path, kubeconfig)
    target = run.target("prod")
    assert target.status == TargetStatus.FAILED.value
    assert target.reason.startswith(f"prod: the API server {server.url} rejected the credentials")
    assert "401 Unauthorized" in target.reason
    assert "refresh the kubeconfig" in target.reason
    assert [e.status for e in server.log] == [401]  # never retried
    (finding,) = run.findings("T2-NS-DEFAULT-DENY")
    assert finding.status == Status.NOT_ASSESSED.value


def test_unknown_ca_is_refused(tmp_path: Path, server: ApiServer, pki: Pki) -> None:
    kubeconfig = write_kubeconfig(
        tmp_path / "kubeconfig", pki, [Context("prod", server, ca_pem=pki.other_ca_pem)]
    )
    run = live(tmp_path, kubeconfig)
    target = run.target("prod")
    assert target.status == TargetStatus.FAILED.value
    assert "TLS verification of the API server" in target.reason
    assert "certificate verify failed" in target.reason
    assert server.log == []  # not one request reached the server


def test_insecure_skip_tls_verify_is_refused(tmp_path: Path, server: ApiServer, pki: Pki) -> None:
    path = write_kubeconfig(tmp_path / "kubeconfig", pki, [Context("prod", server)])
    doc = yaml.safe_load(path.read_text())
    cluster = doc["clusters"][0]["cluster"]
    del cluster["certificate-authority-data"]
    cluster["insecure-skip-tls-verify"] = True
    path.write_text(yaml.safe_dump(doc))
    run = live(tmp_path, path)
    assert run.target("prod").status == TargetStatus.FAILED.value
    assert "insecure-skip-tls-verify" in run.target("prod").reason
    assert server.log == []


def test_unreachable_server_is_a_transient_failure(tmp_path: Path, server: ApiServer, pki: Pki) -> None:
    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))  # bound, never listening: connections are refused, the port stays ours
        url = f"https://127.0.0.1:{closed.getsockname()[1]}"
        kubeconfig = write_kubeconfig(tmp_path / "kubeconfig", pki, [Context("prod", server)])
        kubeconfig.write_text(kubeconfig.read_text().replace(server.url, url))
        run = live(tmp_path, kubeconfig)
    assert run.target("prod").status == TargetStatus.FAILED.value
    assert run.target("prod").reason.startswith(f"prod: cannot reach the API server {url}")
    assert "retried next run" in run.target("prod").reason


def test_missing_kubeconfig_and_context(tmp_path: Path, server: ApiServer, kubeconfig: Path) -> None:
    body = {
        "sources": {
            "kubernetes": [
                {"name": "gone", "kubeconfig": str(tmp_path / "nope")},
                {"name": "typo", "kubeconfig": str(kubeconfig), "context": "prdo"},
            ]
        }
    }
    run = audit(audit_config(tmp_path, body))
    assert run.target("gone").status == TargetStatus.FAILED.value
    assert "cannot use" in run.target("gone").reason
    assert "prdo" in run.target("typo").reason
    assert "fix sources.kubernetes" in run.target("typo").reason


def test_several_clusters_through_contexts_and_the_registered_collector(
    tmp_path: Path, start_server: Callable[..., ApiServer], pki: Pki
) -> None:
    """Two clusters from one kubeconfig, collected by the installed `kubernetes` collector (pages of
    500), named by the context or by `name`."""
    gpu, edge = start_server(), start_server(cilium=False, calico_group="crd.projectcalico.org")
    kubeconfig = write_kubeconfig(
        tmp_path / "kubeconfig", pki, [Context("gpu-prod", gpu), Context("edge", edge)]
    )
    sources = [
        {"kubeconfig": str(kubeconfig), "context": "gpu-prod"},
        {"kubeconfig": str(kubeconfig), "context": "edge", "name": "edge-eu"},
        {"kubeconfig": str(kubeconfig)},  # current-context: gpu-prod again
    ]
    config = load_config(audit_config(tmp_path, {"sources": {"kubernetes": sources}}))
    outcome = run_audit(config, render=False)
    run = Run(open_store(config.store_url()), outcome.run_id)
    assert {t.name: t.status for t in run.reader.targets()} == {"gpu-prod": "ok", "edge-eu": "ok"}
    (problem,) = [p for p in run.reader.problems() if p.target is None]
    assert "cluster 'gpu-prod' is configured twice" in problem.message
    assert {e.query.get("limit", [""])[0] for e in gpu.log if e.query} == {"500"}
    for name in ("gpu-prod", "edge-eu"):
        facts = run.facts(name)
        assert {yaml.safe_load(f)["cluster"] for kind in facts for f in facts[kind]} == {name}
    edge_flavors = {yaml.safe_load(f)["flavor"] for f in run.facts("edge-eu")[FactKind.K8S_NETWORK_POLICY]}
    assert {"calico", "calico-global"} <= edge_flavors
    assert "cilium" not in edge_flavors


def test_calico_network_set_and_corefile_live_findings_equal_offline(
    tmp_path: Path, start_server: Callable[..., ApiServer], pki: Pki
) -> None:
    """The Calico GlobalNetworkSet and the kube-system/coredns ConfigMap are collected live (the
    ConfigMap by name, never by listing ConfigMaps) and judged exactly as the same objects offline."""
    server = start_server(build(extra=DNS_SCENARIO, openshift=True, cilium=False))
    kubeconfig = write_kubeconfig(tmp_path / "kubeconfig", pki, [Context("prod", server)])
    intent = {
        "tiers": {
            "frontend": {
                "cidrs": ["10.0.0.0/8"],
                "namespaces": {"names": ["*"]},
                "dns_resolvers": ["10.96.0.53"],
            }
        }
    }
    entry = {"name": "prod", "kubeconfig": str(kubeconfig)}
    run = audit(audit_config(tmp_path, {"intent": intent, "sources": {"kubernetes": [entry]}}))
    assert run.target("prod").status == TargetStatus.OK.value, run.target("prod").reason
    assert run.reader.problems() == []
    assert run.covered("prod") == K8S_KINDS | {FactKind.K8S_DNS_CONFIG}
    policies = [yaml.safe_load(f) for f in run.facts()[FactKind.K8S_NETWORK_POLICY]]
    assert [p["name"] for p in policies if p["flavor"] == "calico-global-networkset"] == ["public-resolvers"]
    (dns,) = [yaml.safe_load(f) for f in run.facts()[FactKind.K8S_DNS_CONFIG]]
    assert (dns["namespace"], dns["name"]) == ("kube-system", "coredns")
    configmap_requests = [(e.path, e.query) for e in server.log if "configmaps" in e.path]
    assert configmap_requests == [("/api/v1/namespaces/kube-system/configmaps/coredns", {})]
    assert "/apis/route.openshift.io/v1/routes" in {e.path for e in server.log}

    (corefile,) = [f for f in run.findings("T2-DNS-APPROVED-RESOLVERS") if "coredns" in f.subject]
    assert corefile.status == Status.FAIL.value
    # the policy reaches the public resolvers only through the GlobalNetworkSet's nets
    (through_set,) = [f for f in run.findings("T2-DNS-APPROVED-RESOLVERS") if "dns-to-public" in f.subject]
    assert through_set.status == Status.FAIL.value
    assert "8.8.8.8" in str(through_set.found)

    dumped = tmp_path / "dump"
    server.dump(dumped)
    (tmp_path / "offline").mkdir()
    files = {"files": [{"path": str(dumped), "cluster": "prod"}]}
    reference = audit(audit_config(tmp_path / "offline", {"intent": intent, "sources": files}))
    assert reference.facts() == run.facts()

    def verdicts(r: Run) -> list[tuple[str, str, str, str]]:
        return sorted((f.check_id, f.subject, f.status, f.message) for f in r.reader.findings())

    assert verdicts(reference) == verdicts(run)


def test_forbidden_corefile_configmap_is_a_problem_and_leaves_dns_config_uncovered(
    tmp_path: Path, start_server: Callable[..., ApiServer], pki: Pki
) -> None:
    server = start_server(build(extra=DNS_SCENARIO))
    server.forbidden.add("configmaps")  # no Role in kube-system: RBAC refuses the get
    kubeconfig = write_kubeconfig(tmp_path / "kubeconfig", pki, [Context("prod", server)])
    run = live(tmp_path, kubeconfig)
    expected = "forbidden: get configmaps kube-system/coredns; grant the kube-system Role from `auditor permissions k8s`"
    assert [p.message for p in run.reader.problems()] == [expected]
    assert run.target("prod").status == TargetStatus.PARTIAL.value
    assert run.covered("prod") == K8S_KINDS  # everything but the Corefile
    assert FactKind.K8S_DNS_CONFIG not in run.facts()
