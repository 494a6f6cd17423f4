"""Pods, Services and Ingresses through the `k8s.manifest` normalizer, field by field against the
simplest reading of the raw YAML (the `_expected_*` helpers share no code with the normalizer), plus a
lab-style offline dump and the coverage rules."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
import yaml

from auditor.capture import RawCapture
from auditor.enums import FactKind, TargetStatus
from auditor.facts.kubernetes import K8sIngress, K8sPod, K8sService
from auditor.normalize import NormalizeResult
from collectors.normalizers.kubernetes import normalize_manifest
from tests.k8s_live.cluster import LIVE, NPG, WEBSITE
from tests.k8s_live.conftest import audit_config
from tests.k8s_live.runs import audit

REPO = Path(__file__).resolve().parents[2]
FILES = [
    NPG / "minikube_resources/pods.yaml",
    LIVE / "np-guard-netpol-analyzer/tests/with_end_port_example/pods_list.yaml",
    LIVE / "np-guard-netpol-analyzer/tests/onlineboutique_workloads/kubernetes-manifests.yaml",
    LIVE / "np-guard-netpol-analyzer/tests/acs_security_frontend_demos/webapp_deployment.yaml",
    LIVE / "np-guard-netpol-analyzer/tests/acs_security_frontend_demos/asset_cache_deployment.yaml",
    *sorted(WEBSITE.glob("*.yaml")),
    LIVE / "lab_workloads.yaml",
]


def _normalize(content: bytes, **meta: str) -> NormalizeResult:
    capture = RawCapture(
        target="c",
        format="k8s.manifest",
        source="test",
        origin="test.yaml",
        collected_at=datetime(2025, 1, 1, tzinfo=UTC),
        content=content,
        meta=meta,
    )
    return normalize_manifest(capture)


def _objects(path: Path) -> list[dict[str, Any]]:
    text = path.read_text()
    docs = [json.loads(text)] if path.suffix == ".json" else list(yaml.safe_load_all(text))
    out = []
    for doc in docs:
        if isinstance(doc, dict) and doc.get("kind", "").endswith("List"):
            out += [{"kind": doc["kind"][:-4], **i} for i in doc["items"]]
        elif isinstance(doc, dict):
            out.append(doc)
    return out


# --- the oracle ---------------------------------------------------------------------------------------


def _expected_pod(o: dict[str, Any]) -> dict[str, Any]:
    meta, spec, status = o["metadata"], o.get("spec") or {}, o.get("status") or {}
    labels = meta.get("labels") or {}
    owner = None
    refs = meta.get("ownerReferences") or []
    if refs:
        ref = (
            next(r for r in refs if r.get("controller"))
            if any(r.get("controller") for r in refs)
            else refs[0]
        )
        owner = f"{ref['kind']}/{ref['name']}"
        h = labels.get("pod-template-hash")
        if ref["kind"] == "ReplicaSet" and h and ref["name"].endswith("-" + h):
            owner = "Deployment/" + ref["name"][: -len(h) - 1]
    ports = []
    for c in (spec.get("containers") or []) + [
        i for i in spec.get("initContainers") or [] if i.get("restartPolicy") == "Always"
    ]:
        for p in c.get("ports") or []:
            ports.append(
                {"name": p.get("name"), "port": p["containerPort"], "protocol": p.get("protocol", "TCP")}
            )
    return {
        "cluster": "prod",
        "namespace": meta.get("namespace") or "default",
        "name": meta["name"],
        "labels": labels,
        "ip": status.get("podIP") or None,
        "ips": [i["ip"] for i in status.get("podIPs") or []],
        "node": spec.get("nodeName"),
        "host_network": spec.get("hostNetwork", False),
        "owner": owner,
        "phase": status.get("phase"),
        "ports": ports,
        "service_account": spec.get("serviceAccountName") or spec.get("serviceAccount") or "default",
    }


def _expected_service(o: dict[str, Any]) -> dict[str, Any]:
    meta, spec = o["metadata"], o.get("spec") or {}
    lb = ((o.get("status") or {}).get("loadBalancer") or {}).get("ingress") or []
    return {
        "cluster": "prod",
        "namespace": meta.get("namespace") or "default",
        "name": meta["name"],
        "type": spec.get("type", "ClusterIP"),
        "selector": spec.get("selector") or {},
        "cluster_ip": spec.get("clusterIP"),
        "ports": [
            {
                "name": p.get("name"),
                "port": p["port"],
                "target_port": p.get("targetPort"),
                "protocol": p.get("protocol", "TCP"),
                "node_port": p.get("nodePort"),
            }
            for p in spec.get("ports") or []
        ],
        "external_ips": spec.get("externalIPs") or [],
        "load_balancer_ingress": [i.get("ip") or i.get("hostname") for i in lb],
        "external_name": spec.get("externalName"),
        "load_balancer_source_ranges": spec.get("loadBalancerSourceRanges") or [],
    }


def _expected_ingress(o: dict[str, Any]) -> dict[str, Any]:
    meta, spec = o["metadata"], o.get("spec") or {}

    def backend(b: dict[str, Any], host: str | None, path: str | None) -> dict[str, Any]:
        svc = b.get("service")
        if svc is None:
            return {"host": host, "path": path, "service": None, "port": None}
        port = svc.get("port") or {}
        return {
            "host": host,
            "path": path,
            "service": svc["name"],
            "port": port.get("number", port.get("name")),
        }

    backends = [backend(spec["defaultBackend"], None, None)] if "defaultBackend" in spec else []
    hosts = []
    for rule in spec.get("rules") or []:
        if rule.get("host") and rule["host"] not in hosts:
            hosts.append(rule["host"])
        backends += [backend(p["backend"], rule.get("host"), p.get("path")) for p in rule["http"]["paths"]]
    tls = spec.get("tls") or []
    return {
        "cluster": "prod",
        "resource": "Ingress",
        "namespace": meta.get("namespace") or "default",
        "name": meta["name"],
        "ingress_class": spec.get("ingressClassName")
        or (meta.get("annotations") or {}).get("kubernetes.io/ingress.class"),
        "hosts": hosts,
        "tls_hosts": list(dict.fromkeys(h for t in tls for h in t.get("hosts") or ["*"])),  # no hosts: all
        "tls_secrets": [t["secretName"] for t in tls if t.get("secretName")],
        "backends": backends,
    }


ORACLE = {"Pod": _expected_pod, "Service": _expected_service, "Ingress": _expected_ingress}
FACTS = (K8sPod, K8sService, K8sIngress)


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_workloads_match_the_raw_objects(path: Path) -> None:
    result = _normalize(path.read_bytes(), cluster="prod")
    assert result.problems == []
    expected = [ORACLE[o["kind"]](o) for o in _objects(path) if o["kind"] in ORACLE]
    actual = [f.to_json() for f in result.facts if isinstance(f, FACTS)]
    assert expected  # every file here holds some
    assert actual == expected
    kinds = {FactKind.K8S_POD: "Pod", FactKind.K8S_SERVICE: "Service", FactKind.K8S_INGRESS: "Ingress"}
    present = {o["kind"] for o in _objects(path)}
    assert {k for k, name in kinds.items() if k in result.covers} == {
        k for k, n in kinds.items() if n in present
    }


def test_hand_checked_pods() -> None:
    result = _normalize((NPG / "minikube_resources/pods.yaml").read_bytes())
    pods = {f.name: f for f in result.facts if isinstance(f, K8sPod)}
    coredns = pods["coredns-64897985d-vgg4l"]
    assert isinstance(coredns, K8sPod)
    assert (coredns.namespace, coredns.owner, coredns.ip, coredns.node) == (
        "kube-system",
        "Deployment/coredns",
        "10.244.120.68",
        "minikube",
    )
    assert [(p.name, p.port, p.protocol) for p in coredns.ports] == [
        ("dns", 53, "UDP"),
        ("dns-tcp", 53, "TCP"),
        ("metrics", 9153, "TCP"),
    ]
    proxy = pods["kube-proxy-xkfr6"]
    assert isinstance(proxy, K8sPod)
    assert (proxy.host_network, proxy.ip, proxy.owner) == (True, "192.168.49.2", "DaemonSet/kube-proxy")
    etcd = pods["etcd-minikube"]
    assert isinstance(etcd, K8sPod)
    assert etcd.owner == "Node/minikube"  # a static pod's mirror
    job = pods["ingress-nginx-admission-create-hp47w"]
    assert isinstance(job, K8sPod)
    assert (job.owner, job.phase) == ("Job/ingress-nginx-admission-create", "Succeeded")


def test_tls_entry_without_hosts_covers_every_host() -> None:
    """IngressTLS.hosts defaults to the controller's wildcard host: an entry without hosts is `*`."""
    text = b"""apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: api, namespace: team-a}
spec:
  ingressClassName: nginx
  tls:
  - secretName: default-cert
  - hosts: []
    secretName: other-cert
  rules:
  - host: api.example.com
    http:
      paths:
      - {path: /, pathType: Prefix, backend: {service: {name: api, port: {number: 80}}}}
"""
    (ingress,) = _normalize(text).facts
    assert isinstance(ingress, K8sIngress)
    assert (ingress.hosts, ingress.tls_hosts, ingress.tls_secrets) == (
        ["api.example.com"],
        ["*"],
        ["default-cert", "other-cert"],
    )


GATEWAYS = b"""apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: web, namespace: infra}
spec:
  gatewayClassName: cilium
  listeners:
  - {name: http, protocol: HTTP, port: 80}
  - name: https
    protocol: HTTPS
    port: 443
    hostname: "*.example.com"
    tls: {mode: Terminate, certificateRefs: [{kind: Secret, name: wildcard-tls}]}
  - {name: db, protocol: TCP, port: 5432}
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: demo, namespace: team-a}
spec:
  gatewayClassName: cilium
  listeners:
  - {name: http, protocol: HTTP, port: 80, hostname: demo.example.org}
  - name: tls
    protocol: TLS
    port: 443
    hostname: db.example.org
    tls: {mode: Passthrough}
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: tcp-only, namespace: team-a}
spec:
  gatewayClassName: cilium
  listeners:
  - {name: redis, protocol: TCP, port: 6379}
"""


def test_gateway_listeners_read_as_what_they_expose() -> None:
    """HTTPS/TLS listeners carry TLS for their hostname (none: `*`); an HTTP listener without hostname
    answers any host; TCP listeners are not web listeners (a Gateway of them only is no fact)."""
    result = _normalize(GATEWAYS)
    web, demo = result.facts
    assert isinstance(web, K8sIngress) and isinstance(demo, K8sIngress)
    assert (web.resource, web.ingress_class, web.hosts, web.tls_hosts, web.tls_secrets) == (
        "Gateway",
        "cilium",
        ["*.example.com"],
        ["*.example.com"],
        ["wildcard-tls"],
    )
    assert [b.host for b in web.backends] == [None]  # the HTTP listener without hostname
    assert (demo.hosts, demo.tls_hosts, demo.tls_secrets) == (
        ["demo.example.org", "db.example.org"],
        ["db.example.org"],
        ["listener tls (TLS passthrough)"],
    )
    assert FactKind.K8S_INGRESS in result.covers and not result.problems


def test_hand_checked_ingress_tls_names_only_the_secret() -> None:
    (ingress,) = _normalize((WEBSITE / "tls-example-ingress.yaml").read_bytes()).facts
    assert isinstance(ingress, K8sIngress)
    assert (ingress.hosts, ingress.tls_hosts, ingress.tls_secrets) == (
        ["https-example.foo.com"],
        ["https-example.foo.com"],
        ["testsecret-tls"],
    )
    (backend,) = ingress.backends
    assert (backend.host, backend.path, backend.service, backend.port) == (
        "https-example.foo.com",
        "/",
        "service1",
        80,
    )


def test_older_ingress_shape_and_bad_shapes() -> None:
    text = b"""apiVersion: extensions/v1beta1
kind: Ingress
metadata: {name: old, namespace: web}
spec:
  backend: {serviceName: fallback, servicePort: http}
  rules:
  - host: a.example
    http: {paths: [{path: /, backend: {serviceName: site, servicePort: 8080}}]}
---
apiVersion: v1
kind: Pod
metadata: {name: bad, namespace: x}
spec: {containers: [{ports: [{containerPort: "80"}]}]}
---
apiVersion: v1
kind: Service
metadata: {name: bad-svc}
spec: {ports: [{port: 80, nodePort: [1]}]}
"""
    result = _normalize(text)
    (old,) = result.facts
    assert isinstance(old, K8sIngress)
    assert [(b.host, b.service, b.port) for b in old.backends] == [
        (None, "fallback", "http"),
        ("a.example", "site", 8080),
    ]
    assert [(p.line, p.message) for p in result.problems] == [
        (10, "Pod x/bad: spec.containers[0].ports[0].containerPort must be a number, not str"),
        (15, "Service default/bad-svc: spec.ports[0].nodePort must be a number, not list"),
    ]


def test_live_pages_declare_their_coverage() -> None:
    page = json.dumps({"kind": "PodList", "apiVersion": "v1", "metadata": {}, "items": []}).encode()
    assert _normalize(page).covers == {FactKind.K8S_NAMESPACE, FactKind.K8S_NETWORK_POLICY, FactKind.K8S_POD}
    assert _normalize(page, covers="k8s_pod").covers == {FactKind.K8S_POD}
    assert _normalize(page, covers="").covers == set()  # part of a listing that did not finish
    result = _normalize(page, covers="k8s_pod,bogus")
    assert result.covers == {FactKind.K8S_POD}
    assert result.problems[0].message == "meta.covers names an unknown fact kind 'bogus'"


def test_lab_style_offline_dump_with_workloads(tmp_path: Path) -> None:
    evidence = tmp_path / "k8s"
    evidence.mkdir()
    for source in (REPO / "examples/lab/evidence/k8s").glob("*.yaml"):
        (evidence / source.name).write_bytes(source.read_bytes())
    (evidence / "workloads.yaml").write_bytes((LIVE / "lab_workloads.yaml").read_bytes())
    run = audit(audit_config(tmp_path, {"sources": {"files": [{"path": "k8s", "cluster": "lab"}]}}))
    assert run.target("lab").status == TargetStatus.OK.value
    assert {
        FactKind.K8S_NAMESPACE,
        FactKind.K8S_NETWORK_POLICY,
        FactKind.K8S_POD,
        FactKind.K8S_SERVICE,
        FactKind.K8S_INGRESS,
    } <= run.covered("lab")
    facts = run.facts("lab")
    mine = {"inference-7d9c6b5f4-x2kq8", "node-exporter-5xk2p"}  # the lab may hold others
    pods = [p for p in map(json.loads, facts[FactKind.K8S_POD]) if p["name"] in mine]
    assert {(p["name"], p["owner"]) for p in pods} == {
        ("inference-7d9c6b5f4-x2kq8", "Deployment/inference"),
        ("node-exporter-5xk2p", "DaemonSet/node-exporter"),
    }
    (svc,) = (
        s
        for s in map(json.loads, facts[FactKind.K8S_SERVICE])
        if (s["namespace"], s["name"]) == ("team-a", "inference-lb")
    )
    assert (svc["type"], svc["load_balancer_ingress"], svc["load_balancer_source_ranges"]) == (
        "LoadBalancer",
        ["10.20.5.80"],
        ["10.20.0.0/16"],
    )
    (ingress,) = (
        i
        for i in map(json.loads, facts[FactKind.K8S_INGRESS])
        if (i["namespace"], i["name"]) == ("team-a", "inference-api")
    )
    assert (ingress["ingress_class"], ingress["tls_secrets"]) == ("nginx", ["infer-team-a-tls"])
