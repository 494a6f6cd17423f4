"""What the Kubernetes collector reads: one declared list of API resources, grouped by the fact kind
they prove.

Everything else derives from this table: the paths the read-only guard lets through, the ClusterRole
that `auditor permissions k8s` prints, and which lists must all succeed before a fact kind counts as
looked at. A resource that is not declared here cannot be requested.
"""

from __future__ import annotations

from dataclasses import dataclass

from auditor.enums import FactKind

LIST_VERB = "list"  # the verb used on resource collections (with limit/continue paging)
GET_VERB = "get"  # only on the few single objects named in the catalog (the CoreDNS ConfigMap)
DISCOVERY_VERB = "get"  # on the discovery documents, which are non-resource URLs
DISCOVERY_URLS = ("/apis", "/apis/*")


@dataclass(frozen=True)
class ApiResource:
    """One listable resource. `builtin` ones ship with Kubernetes, so a 404 on them is an error; the
    others come from CRDs or aggregated API servers, and their absence means the kind is not in use.

    With `single` = (namespace, name) it is instead that one object, read by GET and never listed: a kind
    such as ConfigMap may hold secrets elsewhere, so only the named object is requested (and granted)."""

    group: str  # "" for the core group
    version: str
    plural: str
    kind: str
    namespaced: bool
    builtin: bool = False
    single: tuple[str, str] | None = None

    @property
    def verb(self) -> str:
        return GET_VERB if self.single is not None else LIST_VERB

    @property
    def group_version(self) -> str:
        return f"{self.group}/{self.version}" if self.group else self.version

    @property
    def path(self) -> str:
        """The collection path at cluster scope (all namespaces), or the one object's path."""
        base = f"/api/{self.version}" if not self.group else f"/apis/{self.group}/{self.version}"
        if self.single is not None:
            namespace, name = self.single
            return f"{base}/namespaces/{namespace}/{self.plural}/{name}"
        return f"{base}/{self.plural}"

    @property
    def qualified(self) -> str:
        """`plural.group` as RBAC and `kubectl get` name it (`pods`, `networkpolicies.networking.k8s.io`)."""
        return f"{self.plural}.{self.group}" if self.group else self.plural

    @property
    def permission(self) -> str:
        """`verb resource` as `auditor permissions k8s --lines` prints it; a single object is named
        `resource namespace/name`."""
        if self.single is not None:
            return f"{self.verb} {self.qualified} {'/'.join(self.single)}"
        return f"{self.verb} {self.qualified}"


@dataclass(frozen=True)
class Choice:
    """One thing to list, served by the first of `alternatives` the server has (Calico's projectcalico.org
    API server, else its crd.projectcalico.org CRDs: the same objects, so only one is read)."""

    alternatives: tuple[ApiResource, ...]

    @property
    def name(self) -> str:
        return " or ".join(r.qualified for r in self.alternatives)


@dataclass(frozen=True)
class ResourceGroup:
    """The lists that together prove one fact kind was looked at: all must be read (or be absent)."""

    covers: FactKind
    choices: tuple[Choice, ...]


def _one(*resources: ApiResource) -> tuple[Choice, ...]:
    return tuple(Choice((r,)) for r in resources)


_CALICO_V3, _CALICO_CRD = "projectcalico.org", "crd.projectcalico.org"


def _calico(plural: str, kind: str, namespaced: bool) -> Choice:
    """One Calico kind: from the projectcalico.org API server if installed, else its CRD."""
    return Choice(
        (
            ApiResource(_CALICO_V3, "v3", plural, kind, namespaced),
            ApiResource(_CALICO_CRD, "v1", plural, kind, namespaced),
        )
    )


COREDNS_CONFIGMAP = ("kube-system", "coredns")

GROUPS: tuple[ResourceGroup, ...] = (
    ResourceGroup(
        FactKind.K8S_NAMESPACE, _one(ApiResource("", "v1", "namespaces", "Namespace", False, builtin=True))
    ),
    ResourceGroup(FactKind.K8S_POD, _one(ApiResource("", "v1", "pods", "Pod", True, builtin=True))),
    ResourceGroup(
        FactKind.K8S_SERVICE, _one(ApiResource("", "v1", "services", "Service", True, builtin=True))
    ),
    ResourceGroup(
        FactKind.K8S_INGRESS,
        (
            *_one(
                ApiResource("networking.k8s.io", "v1", "ingresses", "Ingress", True, builtin=True),
                ApiResource("route.openshift.io", "v1", "routes", "Route", True),  # OpenShift only
            ),
            # Gateway API Gateways (their listeners): v1 since Gateway API 1.0, v1beta1 before
            Choice(
                (
                    ApiResource("gateway.networking.k8s.io", "v1", "gateways", "Gateway", True),
                    ApiResource("gateway.networking.k8s.io", "v1beta1", "gateways", "Gateway", True),
                )
            ),
        ),
    ),
    ResourceGroup(
        FactKind.K8S_NETWORK_POLICY,
        (
            *_one(
                ApiResource(
                    "networking.k8s.io", "v1", "networkpolicies", "NetworkPolicy", True, builtin=True
                ),
                ApiResource(
                    "policy.networking.k8s.io",
                    "v1alpha1",
                    "adminnetworkpolicies",
                    "AdminNetworkPolicy",
                    False,
                ),
                ApiResource(
                    "policy.networking.k8s.io",
                    "v1alpha1",
                    "baselineadminnetworkpolicies",
                    "BaselineAdminNetworkPolicy",
                    False,
                ),
                ApiResource(
                    "policy.networking.k8s.io",
                    "v1alpha2",
                    "clusternetworkpolicies",
                    "ClusterNetworkPolicy",
                    False,
                ),
                ApiResource("cilium.io", "v2", "ciliumnetworkpolicies", "CiliumNetworkPolicy", True),
                ApiResource(
                    "cilium.io",
                    "v2",
                    "ciliumclusterwidenetworkpolicies",
                    "CiliumClusterwideNetworkPolicy",
                    False,
                ),
            ),
            # the CIDRs policies name by cidrGroupRef/cidrGroupSelector (v2 since Cilium 1.18)
            Choice(
                (
                    ApiResource("cilium.io", "v2", "ciliumcidrgroups", "CiliumCIDRGroup", False),
                    ApiResource("cilium.io", "v2alpha1", "ciliumcidrgroups", "CiliumCIDRGroup", False),
                )
            ),
            _calico("networkpolicies", "NetworkPolicy", True),
            _calico("globalnetworkpolicies", "GlobalNetworkPolicy", False),
            _calico("networksets", "NetworkSet", True),
            _calico("globalnetworksets", "GlobalNetworkSet", False),
            _calico("profiles", "Profile", False),
            _calico("tiers", "Tier", False),
        ),
    ),
    # The Corefile: only this one ConfigMap, by name (a missing one is read as "no CoreDNS Corefile").
    ResourceGroup(
        FactKind.K8S_DNS_CONFIG,
        _one(ApiResource("", "v1", "configmaps", "ConfigMap", True, single=COREDNS_CONFIGMAP)),
    ),
)


def all_resources() -> list[ApiResource]:
    """Every resource the collector may list, in the order it lists them."""
    return [r for g in GROUPS for c in g.choices for r in c.alternatives]


def discovered_group_versions() -> list[str]:
    """The non-core group/versions whose discovery document tells whether their resources exist."""
    seen: dict[str, None] = {}
    for r in all_resources():
        if r.group:
            seen.setdefault(r.group_version, None)
    return list(seen)
