"""Pods, Services, Ingresses, OpenShift Routes and the CoreDNS ConfigMap of a `k8s.manifest` capture.

Pods resolve what policies select (labels, service account) and which numbers their named ports stand
for; Services, Ingresses and Routes show what is exposed and whether TLS ends at the ingress; the
CoreDNS Corefile says where the cluster DNS forwards. Only names of TLS Secrets are read, never their
content, and of ConfigMaps only a `Corefile`. Strict like the policy parser: a field of the wrong type
is a ShapeError naming it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from auditor.enums import FactKind
from auditor.facts.base import FactRecord
from auditor.facts.kubernetes import (
    ANY_TLS_HOST,
    ContainerPort,
    DnsForward,
    IngressBackend,
    K8sDnsConfig,
    K8sIngress,
    K8sPod,
    K8sService,
    ServicePort,
)
from collectors.normalizers.kubernetes_spec import ShapeError, mapping, sequence, string, string_map

DEFAULT_NAMESPACE = "default"
_INGRESS_GROUPS = ("networking.k8s.io", "extensions")
_INGRESS_CLASS_ANNOTATION = "kubernetes.io/ingress.class"
# The fact kind each workload kind (and its typed list) proves was looked at.
WORKLOAD_COVERS = {
    "Pod": FactKind.K8S_POD,
    "Service": FactKind.K8S_SERVICE,
    "Ingress": FactKind.K8S_INGRESS,
    "Route": FactKind.K8S_INGRESS,
    "Gateway": FactKind.K8S_INGRESS,
}
NAMESPACED = frozenset({*WORKLOAD_COVERS, "ConfigMap"})
_ROUTE_GROUP = "route.openshift.io"
_GATEWAY_GROUP = "gateway.networking.k8s.io"
_WEB_LISTENERS = frozenset({"HTTP", "HTTPS", "TLS"})

WorkloadHandler = Callable[[dict[str, Any], str], FactRecord | None]


def workload_handler(group: str, kind: str) -> WorkloadHandler | None:
    if kind == "Pod" and group == "":
        return pod
    if kind == "Service" and group == "":
        return service
    if kind == "Ingress" and group in _INGRESS_GROUPS:
        return ingress
    if kind == "Route" and group == _ROUTE_GROUP:
        return route
    if kind == "Gateway" and group == _GATEWAY_GROUP:
        return gateway
    if kind == "ConfigMap" and group == "":
        return dns_config
    return None


def _identity(body: dict[str, Any]) -> tuple[dict[str, Any], str, str]:
    metadata = mapping(body.get("metadata"), "metadata")
    name = metadata.get("name")
    if not isinstance(name, str) or not name:
        raise ShapeError("metadata.name is missing")
    namespace = metadata.get("namespace")
    if namespace is None or namespace == "":
        return metadata, DEFAULT_NAMESPACE, name
    return metadata, string(namespace, "metadata.namespace"), name


def _int(value: object, path: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ShapeError(f"{path} must be a number, not {type(value).__name__}")
    return value


def _int_or_name(value: object, path: str) -> int | str:
    if isinstance(value, str):
        return value
    return _int(value, path)


def _optional_string(value: object, path: str) -> str | None:
    return None if value is None or value == "" else string(value, path)


# --- Pod -------------------------------------------------------------------------------------------


def pod(body: dict[str, Any], cluster: str) -> K8sPod:
    metadata, namespace, name = _identity(body)
    labels = string_map(metadata.get("labels"), "metadata.labels")
    spec = mapping(body.get("spec"), "spec")
    status = mapping(body.get("status"), "status")
    host_network = spec.get("hostNetwork")
    if host_network is not None and not isinstance(host_network, bool):
        raise ShapeError(f"spec.hostNetwork must be true or false, not {type(host_network).__name__}")
    return K8sPod(
        cluster=cluster,
        namespace=namespace,
        name=name,
        labels=labels,
        ip=_optional_string(status.get("podIP"), "status.podIP"),
        ips=_pod_ips(status),
        node=_optional_string(spec.get("nodeName"), "spec.nodeName"),
        host_network=bool(host_network),
        owner=_owner(metadata, labels),
        phase=_optional_string(status.get("phase"), "status.phase"),
        ports=_container_ports(spec),
        service_account=_optional_string(
            spec.get("serviceAccountName", spec.get("serviceAccount")), "spec.serviceAccountName"
        )
        or "default",
    )


def _pod_ips(status: dict[str, Any]) -> list[str]:
    ips = []
    for index, item in enumerate(sequence(status.get("podIPs"), "status.podIPs")):
        entry = mapping(item, f"status.podIPs[{index}]", allow_none=False)
        ips.append(string(entry.get("ip"), f"status.podIPs[{index}].ip"))
    return ips


def _owner(metadata: dict[str, Any], labels: dict[str, str]) -> str | None:
    """`Kind/name` of the controlling owner; a ReplicaSet named `<deployment>-<pod-template-hash>` is
    shown as the Deployment that made it (the hash is the pod's own label), as `kubectl` users think."""
    references = [
        mapping(r, f"metadata.ownerReferences[{i}]", allow_none=False)
        for i, r in enumerate(sequence(metadata.get("ownerReferences"), "metadata.ownerReferences"))
    ]
    if not references:
        return None
    chosen = next((r for r in references if r.get("controller") is True), references[0])
    if not chosen.get("kind") or not chosen.get("name"):
        return None  # an owner without a kind (or name) names nothing: the pod is its own workload
    kind = string(chosen.get("kind"), "metadata.ownerReferences.kind")
    name = string(chosen.get("name"), "metadata.ownerReferences.name")
    template_hash = labels.get("pod-template-hash")
    if kind == "ReplicaSet" and template_hash and name.endswith(f"-{template_hash}"):
        return f"Deployment/{name[: -len(template_hash) - 1]}"
    return f"{kind}/{name}"


def _container_ports(spec: dict[str, Any]) -> list[ContainerPort]:
    """Ports of the app containers and of sidecars (init containers that keep running), which are the
    ones a named port in a policy or a Service can mean."""
    containers = [
        (f"spec.containers[{i}]", mapping(c, f"spec.containers[{i}]", allow_none=False))
        for i, c in enumerate(sequence(spec.get("containers"), "spec.containers"))
    ]
    for i, c in enumerate(sequence(spec.get("initContainers"), "spec.initContainers")):
        init = mapping(c, f"spec.initContainers[{i}]", allow_none=False)
        if init.get("restartPolicy") == "Always":
            containers.append((f"spec.initContainers[{i}]", init))
    ports = []
    for where, container in containers:
        for j, item in enumerate(sequence(container.get("ports"), f"{where}.ports")):
            path = f"{where}.ports[{j}]"
            entry = mapping(item, path, allow_none=False)
            protocol = entry.get("protocol")
            ports.append(
                ContainerPort(
                    name=_optional_string(entry.get("name"), f"{path}.name"),
                    port=_int(entry.get("containerPort"), f"{path}.containerPort"),
                    protocol="TCP" if protocol is None else string(protocol, f"{path}.protocol"),
                )
            )
    return ports


# --- Service ---------------------------------------------------------------------------------------


def service(body: dict[str, Any], cluster: str) -> K8sService:
    _, namespace, name = _identity(body)
    spec = mapping(body.get("spec"), "spec")
    status = mapping(body.get("status"), "status")
    load_balancer = mapping(status.get("loadBalancer"), "status.loadBalancer")
    ingress_points = []
    for index, item in enumerate(sequence(load_balancer.get("ingress"), "status.loadBalancer.ingress")):
        entry = mapping(item, f"status.loadBalancer.ingress[{index}]", allow_none=False)
        point = entry.get("ip") or entry.get("hostname")
        ingress_points.append(string(point, f"status.loadBalancer.ingress[{index}].ip"))
    kind = spec.get("type")
    return K8sService(
        cluster=cluster,
        namespace=namespace,
        name=name,
        type="ClusterIP" if kind is None else string(kind, "spec.type"),
        selector=string_map(spec.get("selector"), "spec.selector"),
        cluster_ip=_optional_string(spec.get("clusterIP"), "spec.clusterIP"),
        ports=[
            _service_port(p, f"spec.ports[{i}]")
            for i, p in enumerate(sequence(spec.get("ports"), "spec.ports"))
        ],
        external_ips=[
            string(ip, "spec.externalIPs") for ip in sequence(spec.get("externalIPs"), "spec.externalIPs")
        ],
        load_balancer_ingress=ingress_points,
        external_name=_optional_string(spec.get("externalName"), "spec.externalName"),
        load_balancer_source_ranges=[
            string(r, "spec.loadBalancerSourceRanges")
            for r in sequence(spec.get("loadBalancerSourceRanges"), "spec.loadBalancerSourceRanges")
        ],
    )


def _service_port(value: object, path: str) -> ServicePort:
    entry = mapping(value, path, allow_none=False)
    target = entry.get("targetPort")
    node_port = entry.get("nodePort")
    protocol = entry.get("protocol")
    return ServicePort(
        name=_optional_string(entry.get("name"), f"{path}.name"),
        port=_int(entry.get("port"), f"{path}.port"),
        target_port=None if target is None else _int_or_name(target, f"{path}.targetPort"),
        protocol="TCP" if protocol is None else string(protocol, f"{path}.protocol"),
        node_port=None if node_port is None else _int(node_port, f"{path}.nodePort"),
    )


# --- Ingress ---------------------------------------------------------------------------------------


def ingress(body: dict[str, Any], cluster: str) -> K8sIngress:
    metadata, namespace, name = _identity(body)
    spec = mapping(body.get("spec"), "spec")
    annotations = string_map(metadata.get("annotations"), "metadata.annotations")
    ingress_class = _optional_string(spec.get("ingressClassName"), "spec.ingressClassName")
    hosts: list[str] = []
    backends: list[IngressBackend] = []
    default = spec.get("defaultBackend", spec.get("backend"))  # `backend` before networking.k8s.io/v1
    if default is not None:
        backends.append(_backend(default, None, None, "spec.defaultBackend"))
    for i, item in enumerate(sequence(spec.get("rules"), "spec.rules")):
        rule = mapping(item, f"spec.rules[{i}]", allow_none=False)
        host = _optional_string(rule.get("host"), f"spec.rules[{i}].host")
        if host is not None and host not in hosts:
            hosts.append(host)
        http = mapping(rule.get("http"), f"spec.rules[{i}].http")
        for j, raw in enumerate(sequence(http.get("paths"), f"spec.rules[{i}].http.paths")):
            where = f"spec.rules[{i}].http.paths[{j}]"
            entry = mapping(raw, where, allow_none=False)
            path = _optional_string(entry.get("path"), f"{where}.path")
            backends.append(_backend(entry.get("backend"), host, path, f"{where}.backend"))
    tls_hosts: list[str] = []
    tls_secrets: list[str] = []
    for i, item in enumerate(sequence(spec.get("tls"), "spec.tls")):
        tls = mapping(item, f"spec.tls[{i}]", allow_none=False)
        # an entry without hosts defaults to "the wildcard host setting for the loadbalancer controller
        # fulfilling this Ingress" (IngressTLS.hosts, networking.k8s.io/v1): every host, written `*`
        listed = sequence(tls.get("hosts"), f"spec.tls[{i}].hosts") or [ANY_TLS_HOST]
        for raw_host in listed:
            tls_host = string(raw_host, f"spec.tls[{i}].hosts")
            if tls_host not in tls_hosts:
                tls_hosts.append(tls_host)
        secret = _optional_string(tls.get("secretName"), f"spec.tls[{i}].secretName")
        if secret is not None and secret not in tls_secrets:
            tls_secrets.append(secret)
    return K8sIngress(
        cluster=cluster,
        namespace=namespace,
        name=name,
        ingress_class=ingress_class or annotations.get(_INGRESS_CLASS_ANNOTATION),
        hosts=hosts,
        tls_hosts=tls_hosts,
        tls_secrets=tls_secrets,
        backends=backends,
    )


def _backend(value: object, host: str | None, path: str | None, where: str) -> IngressBackend:
    """A v1 backend (`service: {name, port: {number|name}}` or `resource`), or the older
    `serviceName`/`servicePort` shape."""
    raw = mapping(value, where, allow_none=False)
    if raw.get("service") is not None:
        svc = mapping(raw["service"], f"{where}.service")
        port = mapping(svc.get("port"), f"{where}.service.port")
        number, port_name = port.get("number"), port.get("name")
        return IngressBackend(
            host=host,
            path=path,
            service=string(svc.get("name"), f"{where}.service.name"),
            port=_int(number, f"{where}.service.port.number")
            if number is not None
            else _optional_string(port_name, f"{where}.service.port.name"),
        )
    if raw.get("serviceName") is not None:
        port_value = raw.get("servicePort")
        return IngressBackend(
            host=host,
            path=path,
            service=string(raw["serviceName"], f"{where}.serviceName"),
            port=None if port_value is None else _int_or_name(port_value, f"{where}.servicePort"),
        )
    return IngressBackend(host=host, path=path)  # a `resource` backend (e.g. a storage bucket)


# --- OpenShift Route -------------------------------------------------------------------------------


def route(body: dict[str, Any], cluster: str) -> K8sIngress:
    """A Route exposes one host through the router (the ingress controller) to Services: `to` and up to
    three `alternateBackends`, on `port.targetPort` (all the Service's ports when unset)."""
    _, namespace, name = _identity(body)
    spec = mapping(body.get("spec"), "spec")
    host = _optional_string(spec.get("host"), "spec.host")
    port = mapping(spec.get("port"), "spec.port").get("targetPort")
    target = None if port is None else _int_or_name(port, "spec.port.targetPort")
    backends = []
    for where, raw in [
        ("spec.to", spec.get("to")),
        *(
            (f"spec.alternateBackends[{i}]", b)
            for i, b in enumerate(sequence(spec.get("alternateBackends"), "spec.alternateBackends"))
        ),
    ]:
        entry = mapping(raw, where, allow_none=False)
        kind = entry.get("kind") or "Service"
        if kind != "Service":
            continue  # netpol-analyzer ignores targets of other kinds too
        backends.append(
            IngressBackend(host=host, service=string(entry.get("name"), f"{where}.name"), port=target)
        )
    tls = mapping(spec.get("tls"), "spec.tls")
    termination = _optional_string(tls.get("termination"), "spec.tls.termination")
    hosts = [host] if host else []
    return K8sIngress(
        cluster=cluster,
        namespace=namespace,
        name=name,
        resource="Route",
        hosts=hosts,
        tls_hosts=hosts if termination else [],
        tls_secrets=[f"route tls ({termination})"] if termination else [],
        backends=backends,
    )


# --- Gateway API Gateway ---------------------------------------------------------------------------


def gateway(body: dict[str, Any], cluster: str) -> K8sIngress | None:
    """A Gateway exposes hosts through its listeners (gateway.networking.k8s.io, "Gateway"): an HTTPS
    listener terminates TLS for its `hostname` (none: every host, written `*`), a TLS listener carries
    TLS to the backend (Passthrough) or terminates it; an HTTP listener serves its hostname in clear
    text, and one without a hostname answers any host (a backend with no host, as an Ingress's default
    backend). TCP and UDP listeners are not web listeners; a Gateway with none of the others is left
    out. Which routes attach to a listener is not read: an HTTP listener beside HTTPS ones is judged
    as an Ingress whose hosts also have TLS (the usual redirect listener)."""
    _, namespace, name = _identity(body)
    spec = mapping(body.get("spec"), "spec")
    hosts: list[str] = []
    tls_hosts: list[str] = []
    secrets: list[str] = []
    backends: list[IngressBackend] = []
    web = False
    for i, raw in enumerate(sequence(spec.get("listeners"), "spec.listeners")):
        where = f"spec.listeners[{i}]"
        listener = mapping(raw, where, allow_none=False)
        protocol = string(listener.get("protocol"), f"{where}.protocol").upper()
        if protocol not in _WEB_LISTENERS:
            continue
        web = True
        hostname = _optional_string(listener.get("hostname"), f"{where}.hostname")
        if hostname is not None and hostname not in hosts:
            hosts.append(hostname)
        if protocol == "HTTP":
            if hostname is None:
                backends.append(IngressBackend(host=None, path=f"listener {listener.get('name')}"))
            continue
        covered = hostname or ANY_TLS_HOST
        if covered not in tls_hosts:
            tls_hosts.append(covered)
        tls = mapping(listener.get("tls"), f"{where}.tls")
        if tls.get("mode") == "Passthrough":
            secrets.append(f"listener {listener.get('name')} (TLS passthrough)")
        for j, ref in enumerate(sequence(tls.get("certificateRefs"), f"{where}.tls.certificateRefs")):
            secret = string(mapping(ref, f"{where}.tls.certificateRefs[{j}]").get("name"), f"{where}.name")
            if secret not in secrets:
                secrets.append(secret)
    if not web:
        return None
    return K8sIngress(
        cluster=cluster,
        namespace=namespace,
        name=name,
        resource="Gateway",
        ingress_class=_optional_string(spec.get("gatewayClassName"), "spec.gatewayClassName"),
        hosts=hosts,
        tls_hosts=tls_hosts,
        tls_secrets=secrets,
        backends=backends,
    )


# --- CoreDNS ConfigMap -----------------------------------------------------------------------------


def dns_config(body: dict[str, Any], cluster: str) -> K8sDnsConfig | None:
    """The ConfigMap holding a `Corefile` (CoreDNS's; kube-system/coredns on most clusters). Any other
    ConfigMap is not read at all: it may hold secrets-adjacent data the audit has no use for."""
    _, namespace, name = _identity(body)
    data = mapping(body.get("data"), "data")
    corefile = data.get("Corefile")
    if corefile is None:
        return None
    return K8sDnsConfig(
        cluster=cluster,
        namespace=namespace,
        name=name,
        forwards=corefile_forwards(string(corefile, "data.Corefile")),
    )


def corefile_forwards(text: str) -> list[DnsForward]:
    """The `forward` directives of each server block (coredns.io/plugins/forward): `forward FROM TO...`."""
    out: list[DnsForward] = []
    depth = 0
    zones: list[str] = []
    for raw in text.splitlines():
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        words = line.replace("{", " { ").replace("}", " } ").split()
        if depth == 0 and "{" in words:
            zones = [w.split("://", 1)[-1].rsplit(":", 1)[0] or "." for w in words[: words.index("{")]]
        if depth == 1 and words and words[0] == "forward" and len(words) >= 3:
            upstreams = [w for w in words[2:] if w not in ("{", "}")]
            stop = words.index("{") - 2 if "{" in words else len(upstreams)
            out.extend(DnsForward(zone=z, upstreams=upstreams[:stop]) for z in zones or ["."])
        depth += words.count("{") - words.count("}")
    return out
