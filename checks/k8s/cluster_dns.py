"""The cluster DNS (kube-dns / CoreDNS) as the evidence shows it: the approved in-cluster resolver path.

Tenant pods resolve names through the cluster DNS Service; its pods forward what they cannot answer.
So traffic to that Service's cluster IP and to the pods its selector picks is the approved resolver
path, and the cluster DNS itself is judged on where its Corefile forwards. The Service is the one the
intent names (`frontend.cluster_dns.service`, default kube-system/kube-dns, with kube-system/coredns
as the usual alternative when the default is absent). Without the Service in the evidence, its pods
are the ones carrying the conventional `k8s-app: kube-dns` label in its namespace.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from auditor.facts import K8sService
from auditor.store.reader import StoredFact
from checks.k8s.cluster import ClusterModel
from checks.k8s.workloads import Workload
from checks.lateral.addresses import IPSet

DEFAULT_SERVICE = "kube-system/kube-dns"
CONVENTIONAL_LABELS = {"k8s-app": "kube-dns"}  # what kubeadm, EKS, GKE, AKS and k3s give CoreDNS pods
_ALTERNATIVES = ("kube-system/coredns",)


@dataclass
class ClusterDns:
    namespace: str
    name: str
    services: list[StoredFact[K8sService]] = field(default_factory=list)  # empty: not in the evidence
    addresses: IPSet = field(default_factory=IPSet)  # the Service's cluster IPs and its pods' addresses
    selectors: list[dict[str, str]] = field(default_factory=list)

    @property
    def found(self) -> bool:
        return bool(self.services)

    def text(self) -> str:
        where = f"{self.namespace}/{self.name}"
        return f"cluster DNS {where}" + ("" if self.found else " (Service not in the evidence)")

    def is_dns_pod(self, pod: Workload) -> bool:
        """A pod of the cluster DNS: in its namespace, or carrying the labels its Service selects."""
        if pod.namespace == self.namespace:
            return True
        labels = pod.label_map
        return any(sel and all(labels.get(k) == v for k, v in sel.items()) for sel in self.selectors)


def find_cluster_dns(model: ClusterModel, declared: str | None = None) -> ClusterDns:
    wanted = [declared or DEFAULT_SERVICE]
    if declared in (None, DEFAULT_SERVICE):
        wanted += list(_ALTERNATIVES)
    by_name = {f"{s.record.namespace}/{s.record.name}": s for s in model.services}
    for ref in wanted:
        svc = by_name.get(ref)
        if svc is not None:
            return _with_service(model, svc)
    namespace, _, name = wanted[0].partition("/")
    return ClusterDns(
        namespace, name, selectors=[dict(CONVENTIONAL_LABELS)]
    )  # the Service is not in the evidence


def _with_service(model: ClusterModel, svc: StoredFact[K8sService]) -> ClusterDns:
    rec = svc.record
    out = ClusterDns(rec.namespace, rec.name, [svc], selectors=[dict(rec.selector)] if rec.selector else [])
    ips: list[str] = [rec.cluster_ip] if rec.cluster_ip and rec.cluster_ip != "None" else []
    pods: Sequence[Workload] = [w for w, _, _ in model.actual(rec.namespace)]
    for pod in pods:
        if rec.selector and all(pod.label_map.get(k) == v for k, v in rec.selector.items()):
            out.addresses = out.addresses.union(pod.ips)
    out.addresses = out.addresses.union(IPSet.parse(*ips)) if ips else out.addresses
    return out
