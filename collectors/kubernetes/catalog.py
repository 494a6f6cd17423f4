"""What the Kubernetes collector reads: one declared list of API resources, grouped by the fact kind
they prove.

Everything else derives from this table: the paths the read-only guard lets through, the ClusterRole
that `auditor permissions k8s` prints, and which lists must all succeed before a fact kind counts as
looked at. A resource that is not declared here cannot be requested.
"""

from __future__ import annotations

from dataclasses import dataclass

from auditor.enums import FactKind

LIST_VERB = "list"  # the only Kubernetes verb used on resources (with limit/continue paging)
DISCOVERY_VERB = "get"  # on the discovery documents, which are non-resource URLs
DISCOVERY_URLS = ("/apis", "/apis/*")


@dataclass(frozen=True)
class ApiResource:
    """One listable resource. `builtin` ones ship with Kubernetes, so a 404 on them is an error; the
    others come from CRDs or aggregated API servers, and their absence means the kind is not in use."""

    group: str  # "" for the core group
    version: str
    plural: str
    kind: str
    namespaced: bool
    builtin: bool = False

    @property
    def group_version(self) -> str:
        return f"{self.group}/{self.version}" if self.group else self.version

    @property
    def path(self) -> str:
        """The collection path at cluster scope (all namespaces)."""
        if not self.group:
            return f"/api/{self.version}/{self.plural}"
        return f"/apis/{self.group}/{self.version}/{self.plural}"

    @property
    def qualified(self) -> str:
        """`plural.group` as RBAC and `kubectl get` name it (`pods`, `networkpolicies.networking.k8s.io`)."""
        return f"{self.plural}.{self.group}" if self.group else self.plural


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
        _one(ApiResource("networking.k8s.io", "v1", "ingresses", "Ingress", True, builtin=True)),
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
            Choice(
                (
                    ApiResource(_CALICO_V3, "v3", "networkpolicies", "NetworkPolicy", True),
                    ApiResource(_CALICO_CRD, "v1", "networkpolicies", "NetworkPolicy", True),
                )
            ),
            Choice(
                (
                    ApiResource(_CALICO_V3, "v3", "globalnetworkpolicies", "GlobalNetworkPolicy", False),
                    ApiResource(_CALICO_CRD, "v1", "globalnetworkpolicies", "GlobalNetworkPolicy", False),
                )
            ),
        ),
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
