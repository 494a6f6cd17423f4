"""The read-only guard: the one place every Kubernetes request passes, and what it refuses."""

from __future__ import annotations

from pathlib import Path

import pytest
from kubernetes import client, config

from auditor.errors import ReadOnlyViolation
from collectors.kubernetes.readonly import ReadOnlyApiClient, ReadOnlyGuard
from tests.k8s_live.apiserver import ApiServer

ALLOWED = [
    ("/apis", [], "get /apis"),
    ("/apis/cilium.io/v2", [], "get /apis/cilium.io/v2"),
    ("/api/v1/pods", [("limit", "500")], "list pods"),
    ("/api/v1/namespaces", [("limit", "2"), ("continue", "abc")], "list namespaces"),
    (
        "/apis/networking.k8s.io/v1/networkpolicies",
        [("limit", "2")],
        "list networkpolicies.networking.k8s.io",
    ),
    (
        "/apis/crd.projectcalico.org/v1/globalnetworkpolicies",
        [],
        "list globalnetworkpolicies.crd.projectcalico.org",
    ),
    ("/apis/projectcalico.org/v3/globalnetworksets", [], "list globalnetworksets.projectcalico.org"),
    ("/apis/route.openshift.io/v1/routes", [("limit", "2")], "list routes.route.openshift.io"),
    ("/api/v1/namespaces/kube-system/configmaps/coredns", [], "get configmaps kube-system/coredns"),
]


@pytest.mark.parametrize(("path", "query", "access"), ALLOWED)
def test_declared_reads_pass(path: str, query: list[tuple[str, str]], access: str) -> None:
    assert str(ReadOnlyGuard().check("GET", f"https://10.0.0.1:6443{path}", query)) == access


@pytest.mark.parametrize(
    ("method", "path", "query"),
    [
        ("POST", "/api/v1/namespaces", []),
        ("DELETE", "/api/v1/namespaces/default", []),
        ("PATCH", "/apis/networking.k8s.io/v1/namespaces/a/networkpolicies/p", []),
        ("PUT", "/api/v1/pods", []),
        ("GET", "/api/v1/secrets", []),  # not declared: never read
        ("GET", "/api/v1/configmaps", []),  # ConfigMaps may hold secrets: only the Corefile one is read
        ("GET", "/api/v1/namespaces/kube-system/configmaps", []),
        ("GET", "/api/v1/namespaces/kube-system/configmaps/kubeadm-config", []),
        ("GET", "/api/v1/namespaces/default/configmaps/coredns", []),
        ("GET", "/api/v1/namespaces/kube-system/configmaps/coredns", [("limit", "1")]),
        ("GET", "/api/v1/namespaces/kube-system/configmaps/coredns", [("watch", "true")]),
        ("GET", "/api/v1/namespaces/default/pods/web", []),  # a single object: not how it reads
        ("GET", "/api/v1/namespaces/default/pods/web/exec", [("command", "sh")]),
        ("GET", "/api/v1/namespaces/default/pods/web/log", []),
        ("GET", "/api/v1/namespaces/default/services/web/proxy", []),
        ("GET", "/api/v1/pods", [("watch", "true")]),
        ("GET", "/api/v1/pods", [("labelSelector", "app=x")]),
        ("GET", "/api/v1/pods?watch=1", []),
        ("GET", "/apis?x=1", []),
        ("GET", "/version", []),
    ],
)
def test_everything_else_is_refused(method: str, path: str, query: list[tuple[str, str]]) -> None:
    with pytest.raises(ReadOnlyViolation):
        ReadOnlyGuard().check(method, f"https://10.0.0.1:6443{path}", query)


def test_the_official_client_cannot_send_a_write_through_it(server: ApiServer, kubeconfig: Path) -> None:
    """Whatever API class is used on top of it, the guarded client refuses before anything is sent."""
    configuration = client.Configuration()
    config.load_kube_config(str(kubeconfig), client_configuration=configuration, persist_config=False)
    api = client.CoreV1Api(ReadOnlyApiClient(configuration))
    with pytest.raises(ReadOnlyViolation, match="refused DELETE /api/v1/namespaces/default"):
        api.delete_namespace("default")
    with pytest.raises(ReadOnlyViolation, match="refused POST"):
        api.create_namespace({"metadata": {"name": "x"}})
    with pytest.raises(ReadOnlyViolation, match="/api/v1/secrets"):
        api.list_secret_for_all_namespaces()
    with pytest.raises(ReadOnlyViolation, match="watch"):
        api.list_pod_for_all_namespaces(watch=True)
    assert server.log == []
    pods = api.list_pod_for_all_namespaces(limit=3)  # a declared read goes through the typed API too
    assert len(pods.items) == 3
    assert pods.metadata._continue
    assert [(e.method, e.path) for e in server.log] == [("GET", "/api/v1/pods")]
