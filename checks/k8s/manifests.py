"""Read a directory of Kubernetes manifests into namespaces, policies, workloads, Services and
Ingress/Route objects.

Everything but workloads goes through the project's own `k8s.manifest` normalizer, so `auditor reach
k8s` and an audit read a policy the same way. Workloads (Pod, Deployment, StatefulSet, DaemonSet,
ReplicaSet, ReplicationController, Job, CronJob) are read here as netpol-analyzer does: one node per
owner, named after it; a Pod names its controlling owner (not a Node, and not an owner without a kind,
which names nothing a reader could find), else itself.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from auditor.capture import RawCapture
from auditor.facts.kubernetes import K8sIngress, K8sNamespace, K8sNetworkPolicy, K8sService
from auditor.normalize import Problem
from checks.k8s.workloads import DEFAULT_SERVICE_ACCOUNT, NamedPort, Workload, freeze
from collectors.normalizers.kubernetes import normalize_manifest
from collectors.normalizers.kubernetes_docs import load_documents

SUFFIXES = (".yaml", ".yml", ".json")
_TEMPLATE_KINDS = frozenset(
    {"Deployment", "StatefulSet", "DaemonSet", "ReplicaSet", "ReplicationController", "Job", "CronJob"}
)


@dataclass
class ManifestSet:
    namespaces: dict[str, dict[str, str]] = field(default_factory=dict)
    policies: list[K8sNetworkPolicy] = field(default_factory=list)
    workloads: list[Workload] = field(default_factory=list)
    services: list[K8sService] = field(default_factory=list)
    ingresses: list[K8sIngress] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    files: int = 0


def read_directory(root: Path) -> ManifestSet:
    """Every manifest file under `root` (recursively, in name order); bad files become problems."""
    out = ManifestSet()
    paths = [root] if root.is_file() else sorted(p for p in root.rglob("*") if p.suffix.lower() in SUFFIXES)
    seen: dict[str, Workload] = {}
    for path in paths:
        if not path.is_file():
            continue
        out.files += 1
        content = path.read_bytes()
        capture = RawCapture(
            target="reach",
            format="k8s.manifest",
            source=f"file {path}",
            origin=str(path),
            collected_at=datetime.now(UTC),
            content=content,
        )
        result = normalize_manifest(capture)
        for fact in result.facts:
            if isinstance(fact, K8sNamespace):
                out.namespaces[fact.name] = dict(fact.labels)
            elif isinstance(fact, K8sNetworkPolicy):
                out.policies.append(fact)
            elif isinstance(fact, K8sService):
                out.services.append(fact)
            elif isinstance(fact, K8sIngress):
                out.ingresses.append(fact)
        out.problems.extend(result.problems)
        for obj in _objects(content, str(path)):
            workload = workload_of(obj)
            if workload is not None:
                seen.setdefault(workload.node_id(), workload)  # replicas of one owner: one node
    out.workloads = sorted(seen.values(), key=Workload.node_id)
    return out


def _objects(content: bytes, origin: str) -> Iterator[dict[str, Any]]:
    for document in load_documents(content, origin, []):
        data = document.data
        if not isinstance(data, dict):
            continue
        kind = data.get("kind")
        if isinstance(kind, str) and kind.endswith("List") and isinstance(data.get("items"), list):
            item_kind = kind[: -len("List")]
            for item in data["items"]:
                if isinstance(item, dict):
                    yield {"kind": item_kind, **item} if "kind" not in item and item_kind else item
        else:
            yield data


def _map(value: object) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _labels(value: object) -> dict[str, str]:
    return {str(k): str(v) for k, v in _map(value).items()}


def workload_of(obj: dict[str, Any]) -> Workload | None:
    """The workload node a Pod or controller object stands for, or None for other kinds."""
    kind = obj.get("kind")
    metadata = _map(obj.get("metadata"))
    name = metadata.get("name")
    if not isinstance(name, str) or not name:
        return None
    namespace = metadata.get("namespace") or "default"
    if kind == "Pod":
        owner_kind, owner_name = "Pod", name
        for ref in obj.get("metadata", {}).get("ownerReferences") or []:
            if not isinstance(ref, dict) or ref.get("controller") is not True:
                continue
            kind_of, name_of = ref.get("kind"), ref.get("name")
            if (
                isinstance(kind_of, str)
                and kind_of
                and kind_of != "Node"
                and isinstance(name_of, str)
                and name_of
            ):
                owner_kind, owner_name = kind_of, name_of
            break
        return Workload(
            namespace=str(namespace),
            name=owner_name,
            kind=owner_kind,
            labels=freeze(_labels(metadata.get("labels"))),
            ports=_ports(_map(obj.get("spec"))),
            service_account=_service_account(_map(obj.get("spec"))),
            ref=obj,
        )
    if kind not in _TEMPLATE_KINDS:
        return None
    spec = _map(obj.get("spec"))
    if kind == "CronJob":
        spec = _map(_map(_map(spec.get("jobTemplate")).get("spec")))
    template = _map(spec.get("template"))
    return Workload(
        namespace=str(namespace),
        name=name,
        kind=str(kind),
        labels=freeze(_labels(_map(template.get("metadata")).get("labels"))),
        ports=_ports(_map(template.get("spec"))),
        service_account=_service_account(_map(template.get("spec"))),
        ref=obj,
    )


def _service_account(pod_spec: dict[str, Any]) -> str:
    name = pod_spec.get("serviceAccountName") or pod_spec.get("serviceAccount")
    return name if isinstance(name, str) and name else DEFAULT_SERVICE_ACCOUNT


def _ports(pod_spec: dict[str, Any]) -> tuple[NamedPort, ...]:
    ports: list[NamedPort] = []
    for container in pod_spec.get("containers") or []:
        for raw in _map(container).get("ports") or []:
            port = _map(raw)
            number = port.get("containerPort")
            if isinstance(number, int) and not isinstance(number, bool):
                name = port.get("name")
                ports.append(
                    NamedPort(
                        port=number,
                        protocol=str(port.get("protocol") or "TCP").upper(),
                        name=str(name) if name else None,
                    )
                )
    return tuple(ports)
