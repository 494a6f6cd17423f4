"""`auditor permissions k8s` grants exactly what the collector does: compared with the requests the API
server saw, over cluster layouts that together make the collector use every declared read."""

from __future__ import annotations

import fnmatch
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml
from typer.testing import CliRunner

from auditor.cli.app import app, load_commands
from collectors.base import collector_registry
from collectors.kubernetes.rbac import required_permissions
from tests.k8s_live.apiserver import ApiServer
from tests.k8s_live.certs import Pki
from tests.k8s_live.cluster import DNS_SCENARIO
from tests.k8s_live.conftest import Context, audit_config, write_kubeconfig
from tests.k8s_live.runs import audit


def _cli(*args: str) -> str:
    load_commands()
    result = CliRunner().invoke(app, ["permissions", "k8s", *args])
    assert result.exit_code == 0, result.output
    return result.output


def _role_grants(roles: list[dict[str, Any]]) -> dict[str, str]:
    """Object path pattern -> `get resource namespace/name`, for each resourceNames entry of the Roles."""
    out = {}
    for role in roles:
        assert role["kind"] == "Role"
        namespace = role["metadata"]["namespace"]
        for rule in role["rules"]:
            assert rule["verbs"] == ["get"] and rule["resourceNames"]  # never a whole kind
            for group in rule["apiGroups"]:
                base = f"/apis/{group}/*" if group else "/api/v1"
                for plural in rule["resources"]:
                    qualified = f"{plural}.{group}" if group else plural
                    for name in rule["resourceNames"]:
                        out[f"{base}/namespaces/{namespace}/{plural}/{name}"] = (
                            f"get {qualified} {namespace}/{name}"
                        )
    return out


def _granted(
    rules: list[dict[str, Any]], roles: list[dict[str, Any]], verb: str, path: str, server: ApiServer
) -> str | None:
    """The rule entry that authorizes this request, as kube-apiserver's RBAC would match it."""
    if verb == "get":
        for pattern, grant in _role_grants(roles).items():
            if fnmatch.fnmatchcase(path, pattern):
                return grant
    served = server.resources.get(path)
    for rule in rules:
        if verb not in rule["verbs"]:
            continue
        if (
            served is not None
            and served.group in rule.get("apiGroups", [])
            and served.plural in rule["resources"]
        ):
            return f"{verb} {served.qualified}"
        for url in rule.get("nonResourceURLs", []):
            if url == path or (url.endswith("*") and fnmatch.fnmatchcase(path, url)):
                return f"{verb} {url}"
    return None


def test_cluster_role_matches_the_requests_exactly(
    tmp_path: Path, start_server: Callable[..., ApiServer], pki: Pki
) -> None:
    role, *roles = yaml.safe_load_all(_cli())
    assert role["kind"] == "ClusterRole"
    assert {verb for rule in role["rules"] for verb in rule["verbs"]} <= {"get", "list", "watch"}
    # ConfigMaps are never granted cluster-wide: only kube-system/coredns, by name, in a Role
    assert not any("configmaps" in rule.get("resources", []) for rule in role["rules"])
    assert [(r["metadata"]["namespace"], r["rules"]) for r in roles] == [
        (
            "kube-system",
            [
                {
                    "apiGroups": [""],
                    "resources": ["configmaps"],
                    "resourceNames": ["coredns"],
                    "verbs": ["get"],
                }
            ],
        )
    ]
    # one cluster with the Calico API server, OpenShift routes and a CoreDNS ConfigMap; one with the
    # Calico CRDs: together they make the collector use every declared read
    servers = [
        start_server(extra=DNS_SCENARIO, openshift=True),
        start_server(calico_group="crd.projectcalico.org"),
    ]
    contexts = [Context(f"c{i}", s) for i, s in enumerate(servers)]
    kubeconfig = write_kubeconfig(tmp_path / "kubeconfig", pki, contexts)
    sources = [{"kubeconfig": str(kubeconfig), "context": c.name} for c in contexts]
    run = audit(audit_config(tmp_path, {"sources": {"kubernetes": sources}}))
    assert {t.status for t in run.reader.targets()} == {"ok"}

    used: set[str] = set()
    for server in servers:
        for request in server.log:
            verb = "list" if request.path in server.resources else "get"
            grant = _granted(role["rules"], roles, verb, request.path, server)
            assert grant is not None, f"{request.method} {request.path} is not granted"
            used.add(grant)
    declared = {
        f"list {r}.{g}" if g else f"list {r}"
        for rule in role["rules"]
        for g in rule.get("apiGroups", [])
        for r in rule["resources"]
    } | {f"get {u}" for rule in role["rules"] for u in rule.get("nonResourceURLs", [])}
    declared |= set(_role_grants(roles).values())
    assert used == declared  # nothing granted that is not used, nothing used that is not granted
    assert declared == set(required_permissions())
    assert collector_registry().get("kubernetes").permissions == {"kubernetes": required_permissions()}
    assert _cli("--lines").splitlines() == required_permissions()


def test_binding_to_a_service_account() -> None:
    docs = list(yaml.safe_load_all(_cli("--name", "audit-read", "--service-account", "audit/auditor")))
    assert [d["kind"] for d in docs] == ["ClusterRole", "Role", "ClusterRoleBinding", "RoleBinding"]
    role, namespaced, binding, role_binding = docs
    assert namespaced["metadata"] == {
        **namespaced["metadata"],
        "name": "audit-read",
        "namespace": "kube-system",
    }
    assert role_binding["metadata"] == {"name": "audit-read", "namespace": "kube-system"}
    assert role_binding["roleRef"] == {
        "apiGroup": "rbac.authorization.k8s.io",
        "kind": "Role",
        "name": "audit-read",
    }
    assert role_binding["subjects"] == [{"kind": "ServiceAccount", "namespace": "audit", "name": "auditor"}]
    assert role["metadata"]["name"] == "audit-read"
    assert binding["roleRef"] == {
        "apiGroup": "rbac.authorization.k8s.io",
        "kind": "ClusterRole",
        "name": "audit-read",
    }
    assert binding["subjects"] == [{"kind": "ServiceAccount", "namespace": "audit", "name": "auditor"}]
