"""Normalize Kubernetes manifests (`k8s.manifest`) into namespace and network-policy facts.

Reads what `kubectl get -o yaml|json` prints and what people keep in git: single documents,
multi-document YAML, `kind: List` and `*List` objects. Kubernetes NetworkPolicies are parsed rule by
rule; Cilium, Calico and AdminNetworkPolicy objects keep their whole spec for a later analysis, with
the selector and policy types filled where the flavor has them. One bad document or object becomes a
Problem naming its line; the rest of the file is still used. It never raises.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from auditor.capture import RawCapture
from auditor.enums import FactKind
from auditor.facts.base import FactRecord
from auditor.facts.kubernetes import K8sDnsConfig, K8sNamespace, K8sNetworkPolicy, LabelSelector, PolicyFlavor
from auditor.normalize import NormalizeResult, Problem
from collectors.normalizers.kubernetes_docs import Document, load_documents
from collectors.normalizers.kubernetes_spec import (
    PolicyType,
    ShapeError,
    label_selector,
    mapping,
    network_policy_parts,
    sequence,
    string,
    string_map,
)
from collectors.normalizers.kubernetes_workloads import NAMESPACED, WORKLOAD_COVERS, workload_handler

DEFAULT_CLUSTER = "offline"
DEFAULT_NAMESPACE = "default"  # where `kubectl apply` puts a namespaced object that names none
# The API server sets this immutable label on every namespace (GA in 1.22); policies select on it.
NAMESPACE_NAME_LABEL = "kubernetes.io/metadata.name"

_K8S_GROUPS = ("networking.k8s.io", "extensions")
_CALICO_GROUPS = ("projectcalico.org", "crd.projectcalico.org")
_CILIUM_GROUP = "cilium.io"
_ANP_GROUP = "policy.networking.k8s.io"
_NAMESPACED_KINDS = frozenset({"NetworkPolicy", "CiliumNetworkPolicy", *NAMESPACED})
_READ_KINDS = frozenset(
    {
        "Namespace",
        "NetworkPolicy",
        "GlobalNetworkPolicy",
        "CiliumNetworkPolicy",
        "CiliumClusterwideNetworkPolicy",
        "AdminNetworkPolicy",
        "BaselineAdminNetworkPolicy",
        "ClusterNetworkPolicy",
    }
)


@dataclass(frozen=True)
class _Object:
    """One API object with where it was found, for problems a human can act on."""

    line: int
    where: str  # "" for a top-level document, "items[3]" inside a list
    api_version: str
    kind: str
    body: dict[str, Any]


def normalize_manifest(capture: RawCapture) -> NormalizeResult:
    """Namespaces, network policies of every flavor, pods, services and ingresses in one manifest.

    Coverage: a live list page says in `meta.covers` which kinds its whole listing proves (the collector
    knows whether every list behind a kind was read); a file covers namespaces and policies, and the
    workload kinds it holds objects (or a typed list) of.
    """
    result = NormalizeResult(covers={FactKind.K8S_NAMESPACE, FactKind.K8S_NETWORK_POLICY})
    cluster = capture.meta.get("cluster") or DEFAULT_CLUSTER
    try:
        for document in load_documents(capture.content, capture.origin, result.problems):
            _cover_typed_list(document, result)
            for obj in _objects(document, capture.origin, result.problems):
                if obj.kind in WORKLOAD_COVERS:
                    result.covers.add(WORKLOAD_COVERS[obj.kind])
                _normalize_object(obj, cluster, capture.origin, result)
    except Exception as exc:  # last resort: a normalizer never takes the run down
        result.problems.append(Problem(capture.origin, f"could not read the manifest: {exc!r}"))
    if "covers" in capture.meta:
        result.covers = _declared_covers(capture, result.problems)
    return result


def _cover_typed_list(document: Document, result: NormalizeResult) -> None:
    """An empty PodList/ServiceList/IngressList still proves that kind was listed."""
    kind = document.data.get("kind") if isinstance(document.data, dict) else None
    if isinstance(kind, str) and kind.endswith("List") and kind[: -len("List")] in WORKLOAD_COVERS:
        result.covers.add(WORKLOAD_COVERS[kind[: -len("List")]])


def _declared_covers(capture: RawCapture, problems: list[Problem]) -> set[FactKind]:
    covers: set[FactKind] = set()
    for value in filter(None, (v.strip() for v in capture.meta["covers"].split(","))):
        try:
            covers.add(FactKind(value))
        except ValueError:
            problems.append(Problem(capture.origin, f"meta.covers names an unknown fact kind {value!r}"))
    return covers


def _objects(document: Document, origin: str, problems: list[Problem]) -> Iterator[_Object]:
    data = document.data
    if data is None:  # an empty document, e.g. a trailing `---`
        return
    if not isinstance(data, dict):
        problems.append(
            Problem(origin, f"document is not a mapping but a {type(data).__name__}", document.line)
        )
        return
    kind = data.get("kind")
    api_version = data.get("apiVersion")
    if not isinstance(kind, str) or not kind.endswith("List"):
        yield _Object(document.line, "", _text(api_version), _text(kind), data)
        return
    if "items" not in data:
        if kind == "List" or kind[: -len("List")] in _READ_KINDS:
            problems.append(Problem(origin, f"{kind} has no `items` field", document.line))
        return
    items = data["items"]
    if items is None:
        return
    if not isinstance(items, list):
        problems.append(Problem(origin, f"{kind}.items is not a list", document.line))
        return
    # A typed list (NamespaceList, NetworkPolicyList) may omit kind/apiVersion on its items.
    item_kind = kind[: -len("List")]
    lines = document.item_lines
    for index, item in enumerate(items):
        line = lines[index] if lines is not None else document.line
        where = f"items[{index}]"
        if not isinstance(item, dict):
            problems.append(Problem(origin, f"{kind} {where} is not a mapping", line))
            continue
        item_api = item.get("apiVersion") or (api_version if item_kind else None)
        yield _Object(line, where, _text(item_api), _text(item.get("kind") or item_kind), item)


def _text(value: object) -> str:
    return value if isinstance(value, str) else ""


def _normalize_object(obj: _Object, cluster: str, origin: str, result: NormalizeResult) -> None:
    group = obj.api_version.rsplit("/", 1)[0] if "/" in obj.api_version else ""
    handler = _handler(group, obj.kind)
    if handler is None:
        if obj.kind == "NetworkPolicy":
            label = f"{obj.where} " if obj.where else ""
            message = f"{label}NetworkPolicy of unsupported apiVersion {obj.api_version!r} was not read"
            result.problems.append(Problem(origin, message, obj.line, hint="audit this policy by hand"))
        return
    try:
        fact = handler(obj, cluster)
        if fact is not None:
            result.add(fact)
            if isinstance(fact, K8sDnsConfig):
                result.covers.add(FactKind.K8S_DNS_CONFIG)
    except (ShapeError, ValidationError, TypeError, ValueError) as exc:
        detail = str(exc) if isinstance(exc, ShapeError) else _short(exc)
        result.problems.append(Problem(origin, f"{_describe(obj)}: {detail}", obj.line))


def _short(exc: Exception) -> str:
    if isinstance(exc, ValidationError):
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        return f"{where}: {first['msg']}" if where else str(first["msg"])
    return str(exc)


def _describe(obj: _Object) -> str:
    """`kind namespace/name` as `kubectl` would show it, for problem messages."""
    metadata = obj.body.get("metadata")
    name = namespace = None
    if isinstance(metadata, dict):
        name, namespace = metadata.get("name"), metadata.get("namespace")
    if not isinstance(namespace, str) and obj.kind in _NAMESPACED_KINDS:
        namespace = DEFAULT_NAMESPACE
    who = f"{namespace}/{name}" if isinstance(namespace, str) else str(name)
    prefix = f"{obj.where} " if obj.where else ""
    return f"{prefix}{obj.kind} {who}"


_Handler = Callable[[_Object, str], FactRecord | None]


def _handler(group: str, kind: str) -> _Handler | None:
    workload = workload_handler(group, kind)
    if workload is not None:
        return lambda obj, cluster: workload(obj.body, cluster)
    if kind == "Namespace" and group == "":
        return _namespace
    if kind == "NetworkPolicy" and (group in _K8S_GROUPS or group == ""):
        return _kubernetes_policy
    if kind in ("NetworkPolicy", "GlobalNetworkPolicy") and group in _CALICO_GROUPS:
        return _calico_policy
    if kind in _CALICO_OBJECTS and group in _CALICO_GROUPS:
        return _calico_object
    if kind in ("CiliumNetworkPolicy", "CiliumClusterwideNetworkPolicy") and group == _CILIUM_GROUP:
        return _cilium_policy
    if kind == "CiliumCIDRGroup" and group == _CILIUM_GROUP:
        return _cilium_cidr_group
    if kind in ("AdminNetworkPolicy", "BaselineAdminNetworkPolicy", "ClusterNetworkPolicy") and (
        group == _ANP_GROUP
    ):
        return _admin_policy
    if _unsupported(group, kind):
        return _unsupported_policy
    return None


# Kinds that change which connections are allowed and that the engine does not evaluate: read as
# UNSUPPORTED so the findings they may affect are NOT_ASSESSED (never read as if absent).
_POLICY_GROUPS = (
    "networking.k8s.io",
    "policy.networking.k8s.io",
    "cilium.io",
    "projectcalico.org",
    "crd.projectcalico.org",
    "network.openshift.io",
    "k8s.ovn.org",
    "k8s.cni.cncf.io",
    "security.istio.io",
    "networking.gke.io",
    "vpcresources.k8s.aws",
)
_OTHER_TRAFFIC_KINDS = frozenset({"EgressFirewall", "HostEndpoint", "MultiNetworkPolicy"})
_CALICO_OBJECTS = {
    "NetworkSet": PolicyFlavor.CALICO_NETWORK_SET,
    "GlobalNetworkSet": PolicyFlavor.CALICO_GLOBAL_NETWORK_SET,
    "Profile": PolicyFlavor.CALICO_PROFILE,
    "Tier": PolicyFlavor.CALICO_TIER,
}


# Cilium kinds named "...Policy" that steer traffic but allow or deny nothing: egress gateways (SNAT
# through chosen nodes), local redirects (node-local DNS and the like: redirected traffic is still
# subject to the endpoints' policies), BGP and L2 announcements. Read as absent, not as a gap.
_NOT_FILTERING = frozenset(
    {
        "CiliumEgressGatewayPolicy",
        "CiliumLocalRedirectPolicy",
        "CiliumBGPPeeringPolicy",
        "CiliumL2AnnouncementPolicy",
    }
)


def _unsupported(group: str, kind: str) -> bool:
    if kind in _OTHER_TRAFFIC_KINDS:
        return True
    if kind in _NOT_FILTERING:
        return False
    if kind.startswith("Staged") or group.startswith("gateway."):  # previews and L7 policies: no effect here
        return False
    return group.endswith(_POLICY_GROUPS) and kind.endswith("Policy") and kind not in _READ_KINDS


def _unsupported_policy(obj: _Object, cluster: str) -> K8sNetworkPolicy:
    metadata = mapping(obj.body.get("metadata"), "metadata")
    name = metadata.get("name")
    if not isinstance(name, str) or not name:
        raise ShapeError("metadata.name is missing")
    namespace = metadata.get("namespace")
    spec = obj.body.get("spec")
    return K8sNetworkPolicy(
        cluster=cluster,
        namespace=namespace if isinstance(namespace, str) and namespace else None,
        name=name,
        flavor=PolicyFlavor.UNSUPPORTED,
        api_kind=obj.kind,
        spec=spec if isinstance(spec, dict) else {},
        labels=string_map(metadata.get("labels"), "metadata.labels"),
    )


def _calico_object(obj: _Object, cluster: str) -> K8sNetworkPolicy:
    """NetworkSet (namespaced), GlobalNetworkSet, Profile and Tier: what Calico policies resolve against."""
    flavor = _CALICO_OBJECTS[obj.kind]
    name, namespace = _metadata(obj, namespaced=obj.kind == "NetworkSet")
    metadata = mapping(obj.body.get("metadata"), "metadata")
    return K8sNetworkPolicy(
        cluster=cluster,
        namespace=namespace,
        name=name,
        flavor=flavor,
        api_kind=obj.kind,
        spec=mapping(obj.body.get("spec"), "spec"),
        labels=string_map(metadata.get("labels"), "metadata.labels"),
    )


def _cilium_cidr_group(obj: _Object, cluster: str) -> K8sNetworkPolicy:
    """CiliumCIDRGroup (cluster-scoped): the CIDRs a policy's `cidrGroupRef`/`cidrGroupSelector` names."""
    name, _ = _metadata(obj, namespaced=False)
    metadata = mapping(obj.body.get("metadata"), "metadata")
    spec = mapping(obj.body.get("spec"), "spec")
    for i, cidr in enumerate(sequence(spec.get("externalCIDRs"), "spec.externalCIDRs")):
        string(cidr, f"spec.externalCIDRs[{i}]")
    return K8sNetworkPolicy(
        cluster=cluster,
        namespace=None,
        name=name,
        flavor=PolicyFlavor.CILIUM_CIDR_GROUP,
        api_kind=obj.kind,
        spec=spec,
        labels=string_map(metadata.get("labels"), "metadata.labels"),
    )


def _metadata(obj: _Object, *, namespaced: bool) -> tuple[str, str | None]:
    metadata = mapping(obj.body.get("metadata"), "metadata")
    name = metadata.get("name")
    if not isinstance(name, str) or not name:
        raise ShapeError("metadata.name is missing")
    if not namespaced:
        return name, None
    namespace = metadata.get("namespace")
    if namespace is None or namespace == "":
        return name, DEFAULT_NAMESPACE
    return name, string(namespace, "metadata.namespace")


def _namespace(obj: _Object, cluster: str) -> K8sNamespace:
    name, _ = _metadata(obj, namespaced=False)
    metadata = mapping(obj.body.get("metadata"), "metadata")
    labels = string_map(metadata.get("labels"), "metadata.labels")
    labels.setdefault(NAMESPACE_NAME_LABEL, name)
    return K8sNamespace(cluster=cluster, name=name, labels=labels)


def _kubernetes_policy(obj: _Object, cluster: str) -> K8sNetworkPolicy:
    name, namespace = _metadata(obj, namespaced=True)
    spec = mapping(obj.body.get("spec"), "spec")
    selector, types, ingress, egress = network_policy_parts(spec)
    return K8sNetworkPolicy(
        cluster=cluster,
        namespace=namespace,
        name=name,
        flavor=PolicyFlavor.KUBERNETES,
        pod_selector=selector,
        policy_types=types,
        ingress=ingress,
        egress=egress,
        spec=spec,
    )


def _present(spec: dict[str, Any], *keys: str) -> bool:
    return any(spec.get(key) is not None for key in keys)


def _cilium_policy(obj: _Object, cluster: str) -> K8sNetworkPolicy:
    """A CNP/CCNP holds one rule in `spec` and/or several in `specs`; all of them apply."""
    clusterwide = obj.kind == "CiliumClusterwideNetworkPolicy"
    name, namespace = _metadata(obj, namespaced=not clusterwide)
    rules: list[dict[str, Any]] = []
    if obj.body.get("spec") is not None:
        rules.append(mapping(obj.body["spec"], "spec"))
    specs = sequence(obj.body.get("specs"), "specs")
    rules.extend(mapping(r, f"specs[{i}]", allow_none=False) for i, r in enumerate(specs))
    if not rules:
        raise ShapeError("has neither spec nor specs")
    spec = rules[0] if obj.body.get("spec") is not None and not specs else {"specs": rules}
    types: list[PolicyType] = []
    if any(_present(r, "ingress", "ingressDeny") for r in rules):
        types.append("Ingress")
    if any(_present(r, "egress", "egressDeny") for r in rules):
        types.append("Egress")
    return K8sNetworkPolicy(
        cluster=cluster,
        namespace=namespace,
        name=name,
        flavor=PolicyFlavor.CILIUM_CLUSTERWIDE if clusterwide else PolicyFlavor.CILIUM,
        pod_selector=_cilium_selector(rules),
        policy_types=types,
        spec=spec,
    )


def _cilium_selector(rules: list[dict[str, Any]]) -> LabelSelector:
    """The endpointSelector when every rule has the same one; a nodeSelector (host policy) or rules
    with different selectors cannot be one LabelSelector, so those leave it empty: read `spec`."""
    raw = [r.get("endpointSelector") for r in rules]
    if any(s is None for s in raw) or any(s != raw[0] for s in raw[1:]):
        return LabelSelector()
    return label_selector(raw[0], "spec.endpointSelector")


def _calico_policy(obj: _Object, cluster: str) -> K8sNetworkPolicy:
    """Calico selectors are expressions (`app == 'db'`), not label selectors: they stay in `spec`."""
    is_global = obj.kind == "GlobalNetworkPolicy"
    name, namespace = _metadata(obj, namespaced=not is_global)
    spec = mapping(obj.body.get("spec"), "spec")
    declared = sequence(spec.get("types"), "spec.types")
    types: list[PolicyType] = []
    for index, item in enumerate(declared):
        if item not in ("Ingress", "Egress"):
            raise ShapeError(f"spec.types[{index}] must be Ingress or Egress, not {item!r}")
        types.append("Ingress" if item == "Ingress" else "Egress")
    if not declared:  # Calico's documented default, from which rule lists are non-empty
        has_in = bool(sequence(spec.get("ingress"), "spec.ingress"))
        has_out = bool(sequence(spec.get("egress"), "spec.egress"))
        types = ["Ingress", "Egress"] if has_in and has_out else ["Egress"] if has_out else ["Ingress"]
    return K8sNetworkPolicy(
        cluster=cluster,
        namespace=namespace,
        name=name,
        flavor=PolicyFlavor.CALICO_GLOBAL if is_global else PolicyFlavor.CALICO,
        policy_types=types,
        spec=spec,
    )


def _admin_policy(obj: _Object, cluster: str) -> K8sNetworkPolicy:
    """ANP and BANP (v1alpha1), and their successor ClusterNetworkPolicy (v1alpha2, `tier`)."""
    name, _ = _metadata(obj, namespaced=False)
    spec = mapping(obj.body.get("spec"), "spec")
    if obj.kind == "ClusterNetworkPolicy":
        tier = spec.get("tier")
        if tier not in ("Admin", "Baseline"):
            raise ShapeError(f"spec.tier must be Admin or Baseline, not {tier!r}")
        flavor = PolicyFlavor.ADMIN if tier == "Admin" else PolicyFlavor.BASELINE_ADMIN
    else:
        flavor = PolicyFlavor.ADMIN if obj.kind == "AdminNetworkPolicy" else PolicyFlavor.BASELINE_ADMIN
    types: list[PolicyType] = []
    if _present(spec, "ingress"):
        types.append("Ingress")
    if _present(spec, "egress"):
        types.append("Egress")
    return K8sNetworkPolicy(
        cluster=cluster, namespace=None, name=name, flavor=flavor, policy_types=types, spec=spec
    )
