"""The least-privilege ClusterRole (and Role) the Kubernetes collector needs, built from its catalog.

Read-only by construction: `list` on the declared resources and `get` on the discovery documents in
the ClusterRole; `get` of the few single objects the catalog names (the kube-system/coredns ConfigMap)
in a Role of their namespace restricted by `resourceNames`, so no other ConfigMap is readable. Nothing
else: no `watch`, no Secrets, no subresources.
"""

from __future__ import annotations

from typing import Any

import yaml

from collectors.kubernetes.catalog import DISCOVERY_URLS, DISCOVERY_VERB, LIST_VERB, all_resources

DEFAULT_ROLE_NAME = "segmentation-auditor-read"


def required_permissions() -> list[str]:
    """One `verb resource` line per permission, as the collector declares them (`permissions` dict)."""
    lines = [r.permission for r in all_resources()]
    lines += [f"{DISCOVERY_VERB} {url}" for url in DISCOVERY_URLS]
    return lines


def cluster_role_rules() -> list[dict[str, Any]]:
    """RBAC rules: one per API group, resources sorted, then the discovery URLs."""
    by_group: dict[str, set[str]] = {}
    for resource in all_resources():
        if resource.single is None:
            by_group.setdefault(resource.group, set()).add(resource.plural)
    rules: list[dict[str, Any]] = [
        {"apiGroups": [group], "resources": sorted(plurals), "verbs": [LIST_VERB]}
        for group, plurals in by_group.items()
    ]
    rules.append({"nonResourceURLs": list(DISCOVERY_URLS), "verbs": [DISCOVERY_VERB]})
    return rules


def cluster_role(name: str = DEFAULT_ROLE_NAME) -> dict[str, Any]:
    return {
        "apiVersion": "rbac.authorization.k8s.io/v1",
        "kind": "ClusterRole",
        "metadata": {
            "name": name,
            "labels": {"app.kubernetes.io/name": "segmentation-auditor"},
            "annotations": {
                "description": "Read-only: list the objects that show network segmentation, nothing else."
            },
        },
        "rules": cluster_role_rules(),
    }


def namespaced_roles(name: str = DEFAULT_ROLE_NAME) -> list[dict[str, Any]]:
    """One Role per namespace holding a single object the collector reads: `get` with `resourceNames`,
    so it grants that object only (a ClusterRole rule would grant the name in every namespace)."""
    by_namespace: dict[str, dict[tuple[str, str], list[str]]] = {}
    for resource in all_resources():
        if resource.single is not None:
            namespace, object_name = resource.single
            rules = by_namespace.setdefault(namespace, {})
            rules.setdefault((resource.group, resource.plural), []).append(object_name)
    return [
        {
            "apiVersion": "rbac.authorization.k8s.io/v1",
            "kind": "Role",
            "metadata": {
                "name": name,
                "namespace": namespace,
                "labels": {"app.kubernetes.io/name": "segmentation-auditor"},
                "annotations": {
                    "description": "Read-only: get the named objects only (the CoreDNS Corefile)."
                },
            },
            "rules": [
                {
                    "apiGroups": [group],
                    "resources": [plural],
                    "resourceNames": sorted(names),
                    "verbs": ["get"],
                }
                for (group, plural), names in rules.items()
            ],
        }
        for namespace, rules in by_namespace.items()
    ]


def _subject(service_account: str) -> dict[str, str]:
    namespace, _, name = service_account.partition("/")
    if not namespace or not name:
        raise ValueError(f"service account must be NAMESPACE/NAME, not {service_account!r}")
    return {"kind": "ServiceAccount", "namespace": namespace, "name": name}


def cluster_role_binding(role: str, service_account: str) -> dict[str, Any]:
    """Bind the role to `namespace/name` of a ServiceAccount."""
    return {
        "apiVersion": "rbac.authorization.k8s.io/v1",
        "kind": "ClusterRoleBinding",
        "metadata": {"name": role},
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": role},
        "subjects": [_subject(service_account)],
    }


def role_binding(role: dict[str, Any], service_account: str) -> dict[str, Any]:
    """Bind a namespaced Role (in its namespace) to `namespace/name` of a ServiceAccount."""
    metadata = role["metadata"]
    return {
        "apiVersion": "rbac.authorization.k8s.io/v1",
        "kind": "RoleBinding",
        "metadata": {"name": metadata["name"], "namespace": metadata["namespace"]},
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": metadata["name"]},
        "subjects": [_subject(service_account)],
    }


def rbac_yaml(name: str = DEFAULT_ROLE_NAME, service_account: str | None = None) -> str:
    """The manifest to `kubectl apply -f -`: the ClusterRole and the namespaced Roles, and their
    bindings when a subject is given."""
    roles = namespaced_roles(name)
    docs = [cluster_role(name), *roles]
    if service_account is not None:
        docs.append(cluster_role_binding(name, service_account))
        docs += [role_binding(role, service_account) for role in roles]
    return yaml.safe_dump_all(docs, sort_keys=False, explicit_start=True, width=120)
