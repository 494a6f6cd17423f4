"""The test cluster's contents: real public manifests (tests/fixtures), placed in the resources a real
API server would serve them from, with what the API server adds on create (namespace `default` for a
namespaced object that names none, uid, resourceVersion)."""

from __future__ import annotations

import copy
import functools
import json
import uuid
from pathlib import Path
from typing import Any

import yaml

from tests.k8s_live.apiserver import Served

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
K8S, LIVE = FIXTURES / "k8s", FIXTURES / "k8s_live"
CILIUM = K8S / "cilium-connectivity-manifests/cilium-cli/connectivity/builder/manifests"
WEBSITE = LIVE / "kubernetes-website/content/en/examples/service/networking"
NPG, NPG_LIVE = K8S / "np-guard-netpol-analyzer/tests", LIVE / "np-guard-netpol-analyzer/tests"

SOURCES = [
    NPG / "test_with_named_ports/ns_list.json",
    NPG / "minikube_resources/ns.yaml",
    NPG / "onlineboutique_workloads/ns.yaml",
    NPG / "minikube_resources/pods.yaml",
    NPG_LIVE / "with_end_port_example/pods_list.yaml",
    NPG_LIVE / "onlineboutique_workloads/kubernetes-manifests.yaml",
    NPG_LIVE / "acs_security_frontend_demos/webapp_deployment.yaml",
    NPG_LIVE / "acs_security_frontend_demos/asset_cache_deployment.yaml",
    *sorted(WEBSITE.glob("*.yaml")),
    NPG / "onlineboutique_workloads/netpols.yaml",
    NPG / "test_with_named_ports/policies.yaml",
    *sorted(K8S.glob("k8s-network-policy-recipes/*.yaml")),
    K8S / "network-policy-api/core-anp-np-banp.yaml",
    *sorted(p for p in CILIUM.glob("*.yaml") if "{{" not in p.read_text()),  # rendered ones only
    *sorted(K8S.glob("calico/*.yaml")),
]

# (group, version, plural, kind, namespaced); the group of an object picks its resource.
BUILTIN = [
    ("", "v1", "namespaces", "Namespace", False),
    ("", "v1", "pods", "Pod", True),
    ("", "v1", "services", "Service", True),
    ("networking.k8s.io", "v1", "ingresses", "Ingress", True),
    ("networking.k8s.io", "v1", "networkpolicies", "NetworkPolicy", True),
]
ANP = [
    ("policy.networking.k8s.io", "v1alpha1", "adminnetworkpolicies", "AdminNetworkPolicy", False),
    (
        "policy.networking.k8s.io",
        "v1alpha1",
        "baselineadminnetworkpolicies",
        "BaselineAdminNetworkPolicy",
        False,
    ),
    ("policy.networking.k8s.io", "v1alpha2", "clusternetworkpolicies", "ClusterNetworkPolicy", False),
]
CILIUM_CRDS = [
    ("cilium.io", "v2", "ciliumnetworkpolicies", "CiliumNetworkPolicy", True),
    ("cilium.io", "v2", "ciliumclusterwidenetworkpolicies", "CiliumClusterwideNetworkPolicy", False),
    ("cilium.io", "v2", "ciliumcidrgroups", "CiliumCIDRGroup", False),
    ("gateway.networking.k8s.io", "v1", "gateways", "Gateway", True),  # Cilium's Gateway API
]


def calico(group: str) -> list[tuple[str, str, str, str, bool]]:
    version = "v3" if group == "projectcalico.org" else "v1"
    return [
        (group, version, "networkpolicies", "NetworkPolicy", True),
        (group, version, "globalnetworkpolicies", "GlobalNetworkPolicy", False),
        (group, version, "networksets", "NetworkSet", True),
        (group, version, "globalnetworksets", "GlobalNetworkSet", False),
        (group, version, "profiles", "Profile", False),
        (group, version, "tiers", "Tier", False),
    ]


OPENSHIFT = [("route.openshift.io", "v1", "routes", "Route", True)]
CONFIGMAPS = [("", "v1", "configmaps", "ConfigMap", True)]  # served; the collector GETs one by name


_Loader: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def _documents(path: Path) -> list[Any]:
    text = path.read_text()
    return [json.loads(text)] if path.suffix == ".json" else list(yaml.load_all(text, Loader=_Loader))


@functools.cache
def manifest_objects() -> list[dict[str, Any]]:
    """Every object of the fixture files, Lists flattened, each with its kind and apiVersion (parsed
    once per session; `build` copies what it serves)."""
    objects = []
    for path in SOURCES:
        for doc in _documents(path):
            if not isinstance(doc, dict):
                continue
            kind = doc.get("kind", "")
            if kind.endswith("List") and isinstance(doc.get("items"), list):
                for item in doc["items"]:
                    objects.append(
                        {"apiVersion": doc.get("apiVersion"), "kind": kind[: -len("List")], **item}
                    )
            else:
                objects.append(doc)
    return objects


def build(
    *,
    cilium: bool = True,
    anp: bool = True,
    calico_group: str | None = "projectcalico.org",
    openshift: bool = False,
    extra: tuple[dict[str, Any], ...] = (),
) -> list[Served]:
    """The served resources of one cluster layout: which CRDs (or Calico API, OpenShift routes) are
    installed; `extra` objects are served besides the fixtures (ConfigMaps make configmaps served)."""
    layout = list(BUILTIN)
    if any(o.get("kind") == "ConfigMap" for o in extra):
        layout += CONFIGMAPS
    if openshift:
        layout += OPENSHIFT
    if anp:
        layout += ANP
    if cilium:
        layout += CILIUM_CRDS
    if calico_group is not None:
        layout += calico(calico_group)
    served = {(g, kind): Served(g, v, plural, kind, ns) for g, v, plural, kind, ns in layout}
    seen: set[tuple[str, str, str | None, str]] = set()
    serial = 0
    for obj in [*manifest_objects(), *extra]:
        group = obj["apiVersion"].rsplit("/", 1)[0] if "/" in obj["apiVersion"] else ""
        if group in ("projectcalico.org", "crd.projectcalico.org"):
            group = calico_group or group
        resource = served.get((group, obj["kind"]))
        if resource is None:
            continue  # a kind this cluster does not serve (Deployments, CIDR groups, absent CRDs)
        body = copy.deepcopy(obj)
        body["apiVersion"] = resource.group_version
        metadata = body.setdefault("metadata", {})
        if resource.namespaced and not metadata.get("namespace"):
            metadata["namespace"] = "default"
        key = (resource.plural, resource.group, metadata.get("namespace"), metadata["name"])
        if key in seen:
            continue  # the same object in two fixture files: the API server holds it once
        seen.add(key)
        serial += 1
        metadata["uid"] = str(uuid.UUID(int=serial))
        metadata["resourceVersion"] = str(100 + serial)
        resource.objects.append(body)
    return list(served.values())


# A Calico GlobalNetworkSet (docs.tigera.io "Global network set") naming public resolvers, a Calico policy
# that lets pods of `default` reach it on DNS, and kubeadm's CoreDNS ConfigMap forwarding to one of them.
PUBLIC_RESOLVERS: dict[str, Any] = {
    "apiVersion": "projectcalico.org/v3",
    "kind": "GlobalNetworkSet",
    "metadata": {"name": "public-resolvers", "labels": {"role": "public-dns"}},
    "spec": {"nets": ["8.8.8.8/32", "8.8.4.4/32"]},
}
DNS_TO_NETWORK_SET: dict[str, Any] = {
    "apiVersion": "projectcalico.org/v3",
    "kind": "NetworkPolicy",
    "metadata": {"name": "dns-to-public-resolvers", "namespace": "default"},
    "spec": {
        "selector": "all()",
        "types": ["Egress"],
        "egress": [
            {
                "action": "Allow",
                "protocol": "UDP",
                "destination": {
                    "selector": "role == 'public-dns'",
                    "namespaceSelector": "global()",  # a namespaced policy reaches global sets so
                    "ports": [53],
                },
            }
        ],
    },
}
COREDNS: dict[str, Any] = {
    "apiVersion": "v1",
    "kind": "ConfigMap",
    "metadata": {"name": "coredns", "namespace": "kube-system"},
    "data": {
        "Corefile": (
            ".:53 {\n    errors\n    health {\n       lameduck 5s\n    }\n    ready\n"
            "    kubernetes cluster.local in-addr.arpa ip6.arpa {\n       pods insecure\n"
            "       fallthrough in-addr.arpa ip6.arpa\n       ttl 30\n    }\n"
            "    prometheus :9153\n    forward . 8.8.8.8\n    cache 30\n    loop\n    reload\n"
            "    loadbalance\n}\n"
        )
    },
}
DNS_SCENARIO = (PUBLIC_RESOLVERS, DNS_TO_NETWORK_SET, COREDNS)
