"""Facts about Kubernetes namespaces and network policies, whatever CNI wrote them."""

from __future__ import annotations

from enum import StrEnum
from typing import Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict

from auditor.enums import FactKind
from auditor.facts.base import FactRecord


class _Part(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


# In K8sIngress.tls_hosts: a tls entry that lists no host, whose hosts the API defaults to the
# controller's wildcard host (IngressTLS.hosts, networking.k8s.io/v1): it covers every host served.
ANY_TLS_HOST = "*"


class PolicyFlavor(StrEnum):
    KUBERNETES = "kubernetes"  # networking.k8s.io/v1 NetworkPolicy
    CILIUM = "cilium"  # CiliumNetworkPolicy
    CILIUM_CLUSTERWIDE = "cilium-clusterwide"
    CILIUM_CIDR_GROUP = "cilium-cidr-group"  # CiliumCIDRGroup: labelled CIDRs that cidrGroupRef names
    CALICO = "calico"  # projectcalico.org/v3 NetworkPolicy
    CALICO_GLOBAL = "calico-global"
    ADMIN = "admin"  # policy.networking.k8s.io AdminNetworkPolicy
    BASELINE_ADMIN = "baseline-admin"
    CALICO_NETWORK_SET = "calico-networkset"  # projectcalico.org/v3 NetworkSet: labelled addresses
    CALICO_GLOBAL_NETWORK_SET = "calico-global-networkset"
    CALICO_PROFILE = "calico-profile"  # rules for endpoints no policy decides
    CALICO_TIER = "calico-tier"  # the order of a policy tier
    UNSUPPORTED = "unsupported"  # a traffic-affecting kind the engine does not evaluate (`api_kind`)


class SelectorRequirement(_Part):
    key: str
    operator: Literal["In", "NotIn", "Exists", "DoesNotExist"]
    values: list[str] = []


class LabelSelector(_Part):
    """A Kubernetes label selector. The empty selector selects everything."""

    match_labels: dict[str, str] = {}
    match_expressions: list[SelectorRequirement] = []

    def is_empty(self) -> bool:
        return not self.match_labels and not self.match_expressions

    def matches(self, labels: dict[str, str]) -> bool:
        if any(labels.get(k) != v for k, v in self.match_labels.items()):
            return False
        for req in self.match_expressions:
            present = req.key in labels
            if req.operator == "In" and not (present and labels[req.key] in req.values):
                return False
            if req.operator == "NotIn" and present and labels[req.key] in req.values:
                return False
            if req.operator == "Exists" and not present:
                return False
            if req.operator == "DoesNotExist" and present:
                return False
        return True


class IpBlock(_Part):
    cidr: str
    except_: list[str] = []


class PolicyPeer(_Part):
    """One from/to entry. Both selectors None and no ip_block never occurs (the API forbids it)."""

    pod_selector: LabelSelector | None = None
    namespace_selector: LabelSelector | None = None
    ip_block: IpBlock | None = None


class PolicyPort(_Part):
    protocol: str = "TCP"
    port: int | str | None = None  # None: all ports; str: a named port
    end_port: int | None = None


class PolicyRule(_Part):
    """One ingress or egress rule. No peers means all peers; no ports means all ports."""

    peers: list[PolicyPeer] = []
    ports: list[PolicyPort] = []

    def allows_everything(self) -> bool:
        return not self.peers and not self.ports


class K8sNamespace(FactRecord):
    kind: ClassVar[FactKind] = FactKind.K8S_NAMESPACE
    cluster: str
    name: str
    labels: dict[str, str] = {}

    def subject(self) -> str:
        return f"{self.cluster}/ns {self.name}"


class K8sNetworkPolicy(FactRecord):
    """A network policy of any flavor. `ingress`/`egress` are filled for the flavors normalized so far;
    `spec` keeps the whole original spec so later analyses can read what is not modelled yet."""

    kind: ClassVar[FactKind] = FactKind.K8S_NETWORK_POLICY
    cluster: str
    namespace: str | None  # None for cluster-scoped policies
    name: str
    flavor: PolicyFlavor
    pod_selector: LabelSelector = LabelSelector()
    policy_types: list[Literal["Ingress", "Egress"]] = []
    ingress: list[PolicyRule] = []
    egress: list[PolicyRule] = []
    spec: dict[str, Any] = {}
    labels: dict[str, str] = {}  # metadata.labels (Calico network sets are selected by them)
    api_kind: str | None = None  # the object's kind, kept for kinds the flavor does not name alone

    def subject(self) -> str:
        where = self.namespace if self.namespace is not None else "cluster"
        return f"{self.cluster}/{where}/{self.flavor.value} {self.name}"


class ContainerPort(_Part):
    name: str | None = None
    port: int
    protocol: str = "TCP"


class K8sPod(FactRecord):
    """A workload instance: its labels resolve policy selectors; its ports resolve named ports."""

    kind: ClassVar[FactKind] = FactKind.K8S_POD
    cluster: str
    namespace: str
    name: str
    labels: dict[str, str] = {}
    ip: str | None = None
    node: str | None = None
    host_network: bool = False
    owner: str | None = None  # e.g. "Deployment/frontend" (through its ReplicaSet)
    ports: list[ContainerPort] = []
    ips: list[str] = []  # status.podIPs: both families on a dual-stack cluster
    phase: str | None = None  # Pending, Running, Succeeded, Failed: finished pods hold no address
    service_account: str = "default"  # spec.serviceAccountName: Calico and Cilium policies select on it

    def subject(self) -> str:
        return f"{self.cluster}/{self.namespace}/pod {self.name}"


class ServicePort(_Part):
    name: str | None = None
    port: int
    target_port: int | str | None = None
    protocol: str = "TCP"
    node_port: int | None = None


class K8sService(FactRecord):
    kind: ClassVar[FactKind] = FactKind.K8S_SERVICE
    cluster: str
    namespace: str
    name: str
    type: str = "ClusterIP"  # ClusterIP, NodePort, LoadBalancer, ExternalName
    selector: dict[str, str] = {}
    cluster_ip: str | None = None
    ports: list[ServicePort] = []
    external_ips: list[str] = []
    load_balancer_ingress: list[str] = []
    external_name: str | None = None  # type ExternalName: the DNS name it aliases
    load_balancer_source_ranges: list[str] = []  # CIDRs a LoadBalancer accepts; empty: any

    def subject(self) -> str:
        return f"{self.cluster}/{self.namespace}/svc {self.name}"


class IngressBackend(_Part):
    host: str | None = None
    path: str | None = None
    service: str | None = None
    port: int | str | None = None


class K8sIngress(FactRecord):
    """An Ingress, an OpenShift Route (`resource: Route`) or a Gateway API Gateway (`resource: Gateway`,
    its HTTP, HTTPS and TLS listeners): what the ingress controller exposes."""

    kind: ClassVar[FactKind] = FactKind.K8S_INGRESS
    cluster: str
    namespace: str
    name: str
    resource: Literal["Ingress", "Route", "Gateway"] = "Ingress"
    ingress_class: str | None = None
    hosts: list[str] = []
    tls_hosts: list[str] = []  # hosts covered by a tls entry; ANY_TLS_HOST: an entry naming none
    tls_secrets: list[str] = []  # secret names only, never their content
    backends: list[IngressBackend] = []

    def subject(self) -> str:
        return f"{self.cluster}/{self.namespace}/{self.resource.lower()} {self.name}"


class DnsForward(_Part):
    """One `forward FROM TO...` directive of a server block of the Corefile."""

    zone: str  # the server block's zone, e.g. "." or "corp.example"
    upstreams: list[str] = []  # addresses, `tls://addr`, or a resolv.conf path


class K8sDnsConfig(FactRecord):
    """The cluster DNS's configuration: where CoreDNS forwards (its Corefile ConfigMap)."""

    kind: ClassVar[FactKind] = FactKind.K8S_DNS_CONFIG
    cluster: str
    namespace: str
    name: str
    forwards: list[DnsForward] = []
    has_corefile: bool = True

    def subject(self) -> str:
        return f"{self.cluster}/{self.namespace}/configmap {self.name}"
