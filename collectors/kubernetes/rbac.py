"""The least-privilege ClusterRole the Kubernetes collector needs, built from its resource catalog.

Read-only by construction: `list` on the declared resources and `get` on the discovery documents,
nothing else (no `get` of single objects, no `watch`, no Secrets, no subresources).
"""

from __future__ import annotations

from typing import Any

import yaml

from collectors.kubernetes.catalog import DISCOVERY_URLS, DISCOVERY_VERB, LIST_VERB, all_resources

DEFAULT_ROLE_NAME = "segmentation-auditor-read"


def required_permissions() -> list[str]:
    """One `verb resource` line per permission, as the collector declares them (`permissions` dict)."""
    lines = [f"{LIST_VERB} {r.qualified}" for r in all_resources()]
    lines += [f"{DISCOVERY_VERB} {url}" for url in DISCOVERY_URLS]
    return lines


def cluster_role_rules() -> list[dict[str, Any]]:
    """RBAC rules: one per API group, resources sorted, then the discovery URLs."""
    by_group: dict[str, set[str]] = {}
    for resource in all_resources():
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


def cluster_role_binding(role: str, service_account: str) -> dict[str, Any]:
    """Bind the role to `namespace/name` of a ServiceAccount."""
    namespace, _, name = service_account.partition("/")
    if not namespace or not name:
        raise ValueError(f"service account must be NAMESPACE/NAME, not {service_account!r}")
    return {
        "apiVersion": "rbac.authorization.k8s.io/v1",
        "kind": "ClusterRoleBinding",
        "metadata": {"name": role},
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": role},
        "subjects": [{"kind": "ServiceAccount", "namespace": namespace, "name": name}],
    }


def rbac_yaml(name: str = DEFAULT_ROLE_NAME, service_account: str | None = None) -> str:
    """The manifest to `kubectl apply -f -`: the ClusterRole, and its binding when a subject is given."""
    docs = [cluster_role(name)]
    if service_account is not None:
        docs.append(cluster_role_binding(name, service_account))
    return yaml.safe_dump_all(docs, sort_keys=False, explicit_start=True, width=120)
