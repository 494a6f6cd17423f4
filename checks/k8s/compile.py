"""Every policy fact of one cluster compiled once: the input of the engine, of `reach k8s`, of the
tier-2 checks and of the lateral-movement model alike.

A part that cannot be read, or an object of a kind the engine does not evaluate, becomes a `Gap` naming
the kind and the namespaces it may affect (None: all of them). Findings on those namespaces are then
NOT_ASSESSED and `reach k8s` exits 3: a policy that is not understood must never read as allow-all.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from auditor.facts.kubernetes import K8sNetworkPolicy, K8sService, PolicyFlavor
from checks.k8s.ir import Layer, NetworkSet, Policy, Profile
from checks.k8s.read_calico import CalicoContext, calico_policy, network_set, profile
from checks.k8s.read_cilium import CidrGroup, cidr_group, cilium_policies
from checks.k8s.read_kubernetes import admin_policy, network_policy
from checks.k8s.selectors import SpecError
from checks.k8s.workloads import Workload

DEFAULT_TIER_ORDER = 1_000_000.0  # Calico's `default` tier (docs.tigera.io "Tier")
_CALICO = frozenset(
    {
        PolicyFlavor.CALICO,
        PolicyFlavor.CALICO_GLOBAL,
        PolicyFlavor.CALICO_NETWORK_SET,
        PolicyFlavor.CALICO_GLOBAL_NETWORK_SET,
        PolicyFlavor.CALICO_PROFILE,
        PolicyFlavor.CALICO_TIER,
    }
)
_CILIUM = frozenset({PolicyFlavor.CILIUM, PolicyFlavor.CILIUM_CLUSTERWIDE})


@dataclass(frozen=True)
class Gap:
    """Something the engine cannot evaluate, and where its effect lies."""

    kind: str  # the API kind, e.g. "EgressFirewall" or "CiliumNetworkPolicy"
    namespace: str | None  # None: every namespace of the cluster
    text: str
    ref: object = field(default=None, compare=False, hash=False)


@dataclass
class ClusterPolicies:
    admins: list[Policy] = field(default_factory=list)  # by priority
    netpols: list[Policy] = field(default_factory=list)
    baselines: list[Policy] = field(default_factory=list)
    network_sets: list[NetworkSet] = field(default_factory=list)
    profiles: dict[str, Profile] = field(default_factory=dict)
    tiers: dict[str, float] = field(default_factory=lambda: {"default": DEFAULT_TIER_ORDER})
    mode: str = "kubernetes"  # how the NetworkPolicy layer combines: kubernetes, cilium or calico
    gaps: list[Gap] = field(default_factory=list)
    cidr_groups: dict[str, CidrGroup] = field(default_factory=dict)  # CiliumCIDRGroups by name

    def all(self) -> list[Policy]:
        return [*self.admins, *self.netpols, *self.baselines]

    def gaps_for(self, namespaces: Iterable[str]) -> list[Gap]:
        """The gaps that may change verdicts about pods of these namespaces."""
        names = set(namespaces)
        return [g for g in self.gaps if g.namespace is None or g.namespace in names]

    def profile_labels(self, pod: Workload) -> dict[str, str]:
        out: dict[str, str] = {}
        for name in (f"kns.{pod.namespace}", f"ksa.{pod.namespace}.{pod.service_account}"):
            prof = self.profiles.get(name)
            if prof is not None:
                out.update(prof.labels_to_apply)
        return out


def _kind(rec: K8sNetworkPolicy) -> str:
    return rec.api_kind or {
        PolicyFlavor.KUBERNETES: "NetworkPolicy",
        PolicyFlavor.CILIUM: "CiliumNetworkPolicy",
        PolicyFlavor.CILIUM_CLUSTERWIDE: "CiliumClusterwideNetworkPolicy",
        PolicyFlavor.CALICO: "NetworkPolicy (projectcalico.org)",
        PolicyFlavor.CALICO_GLOBAL: "GlobalNetworkPolicy",
        PolicyFlavor.ADMIN: "AdminNetworkPolicy",
        PolicyFlavor.BASELINE_ADMIN: "BaselineAdminNetworkPolicy",
        PolicyFlavor.CALICO_NETWORK_SET: "NetworkSet",
        PolicyFlavor.CALICO_GLOBAL_NETWORK_SET: "GlobalNetworkSet",
        PolicyFlavor.CALICO_PROFILE: "Profile",
        PolicyFlavor.CALICO_TIER: "Tier",
        PolicyFlavor.CILIUM_CIDR_GROUP: "CiliumCIDRGroup",
    }.get(rec.flavor, rec.flavor.value)


def compile_policies(
    facts: Iterable[tuple[K8sNetworkPolicy, object]], services: Sequence[K8sService] = ()
) -> ClusterPolicies:
    """(fact, ref) pairs -> compiled policies; `ref` is carried so findings can cite the fact."""
    items = list(facts)
    out = ClusterPolicies()
    flavors = {rec.flavor for rec, _ in items}
    if flavors & _CALICO and flavors & _CILIUM:
        out.gaps.append(
            Gap(
                "CiliumNetworkPolicy",
                None,
                "both Calico and Cilium policies are present: which CNI enforces them is not known",
            )
        )
    out.mode = "calico" if flavors & _CALICO else "cilium" if flavors & _CILIUM else "kubernetes"
    for rec, ref in items:  # network sets, profiles and tiers first: policies resolve against them
        try:
            if rec.flavor in (PolicyFlavor.CALICO_NETWORK_SET, PolicyFlavor.CALICO_GLOBAL_NETWORK_SET):
                out.network_sets.append(network_set(rec))
            elif rec.flavor == PolicyFlavor.CILIUM_CIDR_GROUP:
                out.cidr_groups[rec.name] = cidr_group(rec)
            elif rec.flavor == PolicyFlavor.CALICO_TIER:
                order = rec.spec.get("order")
                out.tiers[rec.name] = float(order) if isinstance(order, int | float) else float("inf")
        except (SpecError, ValueError, TypeError) as exc:
            out.gaps.append(Gap(_kind(rec), rec.namespace, f"{rec.subject()}: not evaluated: {exc}", ref))
    ctx = CalicoContext(out.network_sets, services, out.profile_labels)
    forwarded = any(_on_forward(rec) for rec, _ in items)
    for rec, ref in items:
        if _host_endpoint(rec) and not forwarded:
            continue  # filters the node's own traffic only: no pod verdict depends on it
        try:
            _compile_one(rec, ref, out, ctx, services)
        except (SpecError, ValueError, TypeError, KeyError, AttributeError) as exc:
            out.gaps.append(Gap(_kind(rec), rec.namespace, f"{rec.subject()}: not evaluated: {exc}", ref))
    out.admins.sort(key=lambda p: (p.order, p.label))
    if len(out.baselines) > 1:
        out.gaps.append(
            Gap("BaselineAdminNetworkPolicy", None, "more than one BaselineAdminNetworkPolicy (a singleton)")
        )
    for p in out.netpols:
        if p.flavor == "calico" and p.tier not in out.tiers:
            out.gaps.append(
                Gap(
                    "Tier",
                    p.namespace,
                    f"{p.label}: tier {p.tier!r} is not in the evidence (its order is unknown)",
                    p.ref,
                )
            )
    return out


def _host_endpoint(rec: K8sNetworkPolicy) -> bool:
    return rec.flavor == PolicyFlavor.UNSUPPORTED and rec.api_kind == "HostEndpoint"


def _on_forward(rec: K8sNetworkPolicy) -> bool:
    """A Calico policy that also applies to traffic a host endpoint forwards (a pod's, leaving or
    entering the node): `applyOnForward` (required by preDNAT and doNotTrack policies too). Without one,
    host endpoints filter only the node's own traffic (docs.tigera.io "Host endpoints": forwarded traffic
    is allowed unless a policy with applyOnForward applies), so they change no pod verdict."""
    if rec.flavor not in (PolicyFlavor.CALICO, PolicyFlavor.CALICO_GLOBAL):
        return False
    return any(rec.spec.get(k) is True for k in ("applyOnForward", "preDNAT", "doNotTrack"))


def _compile_one(
    rec: K8sNetworkPolicy,
    ref: object,
    out: ClusterPolicies,
    ctx: CalicoContext,
    services: Sequence[K8sService],
) -> None:
    flavor = rec.flavor
    if flavor == PolicyFlavor.KUBERNETES:
        out.netpols.append(network_policy(rec, ref))
    elif flavor in (PolicyFlavor.ADMIN, PolicyFlavor.BASELINE_ADMIN):
        policy = admin_policy(rec, ref)
        (out.admins if policy.layer == Layer.ADMIN else out.baselines).append(policy)
    elif flavor in _CILIUM:
        policies, problems = cilium_policies(rec, ref, services, out.cidr_groups)
        out.netpols.extend(policies)
        out.gaps.extend(
            Gap(_kind(rec), rec.namespace, f"{rec.subject()}: not evaluated: {p}", ref) for p in problems
        )
    elif flavor in (PolicyFlavor.CALICO, PolicyFlavor.CALICO_GLOBAL):
        out.netpols.append(calico_policy(rec, ref, ctx))
    elif flavor == PolicyFlavor.CALICO_PROFILE:
        out.profiles[rec.name] = profile(rec, ref, ctx)
    elif flavor == PolicyFlavor.UNSUPPORTED:
        out.gaps.append(
            Gap(_kind(rec), rec.namespace, f"{_kind(rec)} {rec.subject()}: this kind is not evaluated", ref)
        )
