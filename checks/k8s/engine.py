"""The Kubernetes policy engine: which connections a pod may open to, or accept from, another endpoint.

One direction at a time, as the APIs specify (and as netpol-analyzer computes it for the Kubernetes
kinds):
1. AdminNetworkPolicies by ascending priority, rules in order, first match wins per connection: Allow
   and Deny are final; Pass (and what no admin rule matched) goes on.
2. The NetworkPolicy layer, as the cluster's CNI combines it:
   - Kubernetes and Cilium: policies selecting the pod for the direction isolate it; their allow rules
     are a union; Cilium deny rules beat every allow;
   - Calico: tiers by order, policies by `order`, rules in order, first Allow/Deny final, Pass to the
     next tier, an endpoint some policy of the tier selects is denied what the tier did not decide;
     Kubernetes NetworkPolicies sit in the default tier at order 1000.
3. For what no NetworkPolicy decided (the pod is not isolated, or a Calico Pass fell through): the
   BaselineAdminNetworkPolicy's first matching rule, then the cluster default: allow (Calico: the
   namespace's and service account's profiles, which allow unless a Profile in the evidence says more).
A connection is allowed when the source's egress and the destination's ingress both allow it; address
ranges outside the cluster are not subject to policies, so their own side allows everything.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from checks.k8s.compile import ClusterPolicies
from checks.k8s.ir import Action, Direction, Endpoint, Generic, Policy, Rule
from checks.k8s.workloads import NAMESPACE_NAME_LABEL, Workload
from checks.lateral.conns import ConnSet

NOTHING = ConnSet()
Because = tuple[tuple[Policy | None, Rule], ...]  # Policy None: a Calico Profile's rule


@dataclass(frozen=True)
class Verdict:
    """The allowed connections, the rules that allowed them, and the part allowed by default only
    (no policy isolates the pod for this direction, or a profile's default)."""

    conns: ConnSet
    because: Because = ()
    default: ConnSet = NOTHING

    @property
    def explicit(self) -> ConnSet:
        return self.conns.subtract(self.default)


class PolicyEngine:
    def __init__(self, namespaces: Mapping[str, Mapping[str, str]], compiled: ClusterPolicies) -> None:
        self._namespaces = namespaces
        self.compiled = compiled
        self._cache: dict[tuple[object, object, bool], Verdict] = {}
        self._tiers = sorted(compiled.tiers, key=lambda t: (compiled.tiers[t], t))
        # namespaced policies select pods of their own namespace only: index them by it
        self._by_namespace: dict[str | None, list[Policy]] = {}
        for policy in compiled.netpols:
            self._by_namespace.setdefault(policy.namespace, []).append(policy)

    def selecting(self, pod: Workload) -> list[Policy]:
        """Every policy of any layer that selects the pod."""
        ns = self.namespace_labels
        layers = (self.compiled.admins, self._netpols(pod), self.compiled.baselines)
        return [p for layer in layers for p in layer if p.applies(pod, ns)]

    def _netpols(self, pod: Workload) -> list[Policy]:
        """The NetworkPolicy-layer policies that may select the pod, in their compiled order."""
        return [*self._by_namespace.get(pod.namespace, ()), *self._by_namespace.get(None, ())]

    def namespace_labels(self, namespace: str) -> Mapping[str, str]:
        return self._namespaces.get(namespace) or {NAMESPACE_NAME_LABEL: namespace}

    def allowed(self, src: Endpoint, dst: Endpoint) -> Verdict:
        egress = self.direction(src, dst, ingress=False)
        if not egress.conns:
            return egress
        ingress = self.direction(src, dst, ingress=True)
        conns = egress.conns.intersect(ingress.conns)
        default = egress.default.intersect(ingress.default).intersect(conns)
        return Verdict(conns, _merge(egress.because, ingress.because), default)

    def isolating(self, pod: Workload, direction: Direction) -> list[Policy]:
        """The NetworkPolicy-layer policies that select this pod for the direction."""
        ns = self.namespace_labels
        return [p for p in self._netpols(pod) if direction in p.isolates and p.applies(pod, ns)]

    # --- one direction ---------------------------------------------------------------------------

    def direction(self, src: Endpoint, dst: Endpoint, *, ingress: bool) -> Verdict:
        """What one side allows: the destination's ingress (ingress=True) or the source's egress."""
        subject, other = (dst, src) if ingress else (src, dst)
        if not isinstance(subject, Workload):
            everything = ConnSet.everything()
            return Verdict(everything, (), everything)
        key = (subject.class_key(), _key(other), ingress)
        hit = self._cache.get(key)
        if hit is None:
            hit = self._direction(subject, other, dst, "Ingress" if ingress else "Egress")
            self._cache[key] = hit
        return hit

    def _direction(self, subject: Workload, other: Endpoint, dst: Endpoint, d: Direction) -> Verdict:
        ns = self.namespace_labels
        allowed, denied, decided = ConnSet(), ConnSet(), ConnSet()
        because: list[tuple[Policy | None, Rule]] = []
        for admin in self.compiled.admins:
            if not admin.applies(subject, ns):
                continue
            for rule in admin.rules(d):
                if not rule.matches(other, subject, ns):
                    continue
                conns = rule.conns(dst).subtract(decided)
                if not conns:
                    continue
                decided = decided.union(conns)
                if rule.action == Action.ALLOW:
                    allowed = allowed.union(conns)
                    because.append((admin, rule))
                elif rule.action == Action.DENY:
                    denied = denied.union(conns)
        pending = ConnSet.everything().subtract(allowed).subtract(denied)  # passed or unmatched
        if self.compiled.mode == "calico":
            layer_allowed, pending = self._calico(subject, other, dst, d, pending, because)
        else:
            layer_allowed, pending = self._union(subject, other, dst, d, pending, because)
        allowed = allowed.union(layer_allowed)
        if not pending:
            return Verdict(allowed, tuple(because))
        rest, explicit = self._baseline(subject, other, dst, d, pending, because)
        rest, default, explicit2 = self._profiles(subject, other, dst, d, rest, because)
        return Verdict(allowed.union(explicit).union(explicit2).union(rest), tuple(because), default)

    def _union(
        self,
        subject: Workload,
        other: Endpoint,
        dst: Endpoint,
        d: Direction,
        pending: ConnSet,
        because: list[tuple[Policy | None, Rule]],
    ) -> tuple[ConnSet, ConnSet]:
        """Kubernetes and Cilium: (allowed, what goes on to the baseline: all of it unless isolated)."""
        ns = self.namespace_labels
        permitted, denied = ConnSet(), ConnSet()
        isolated = False
        found: list[tuple[Policy | None, Rule]] = []
        for policy in self._netpols(subject):
            if not policy.applies(subject, ns):
                continue
            isolated = isolated or d in policy.isolates
            for rule in policy.rules(d):
                if not rule.matches(other, subject, ns):
                    continue
                conns = rule.conns(dst)
                if rule.action == Action.DENY:
                    denied = denied.union(conns)
                elif rule.action == Action.ALLOW and conns:
                    permitted = permitted.union(conns)
                    found.append((policy, rule))
        if isolated:
            result = pending.intersect(permitted).subtract(denied)
            if result:
                because.extend(found)
            return result, ConnSet()
        return ConnSet(), pending.subtract(denied)

    def _calico(
        self,
        subject: Workload,
        other: Endpoint,
        dst: Endpoint,
        d: Direction,
        pending: ConnSet,
        because: list[tuple[Policy | None, Rule]],
    ) -> tuple[ConnSet, ConnSet]:
        """Calico: (allowed, what passed every tier or no tier selected)."""
        ns = self.namespace_labels
        allowed = ConnSet()
        for tier in self._tiers:
            policies = sorted(
                (
                    p
                    for p in self._netpols(subject)
                    if p.tier == tier and d in p.isolates and p.applies(subject, ns)
                ),
                key=lambda p: (p.order, p.label),
            )
            if not policies:
                continue
            decided, passed = ConnSet(), ConnSet()
            for policy in policies:
                for rule in policy.rules(d):
                    if rule.action == Action.LOG or not rule.matches(other, subject, ns):
                        continue
                    conns = rule.conns(dst).intersect(pending).subtract(decided)
                    if not conns:
                        continue
                    decided = decided.union(conns)
                    if rule.action == Action.ALLOW:
                        allowed = allowed.union(conns)
                        because.append((policy, rule))
                    elif rule.action == Action.PASS:
                        passed = passed.union(conns)
            pending = passed  # the rest: allowed, denied, or denied at the end of the tier
            if not pending:
                break
        return allowed, pending

    def _baseline(
        self,
        subject: Workload,
        other: Endpoint,
        dst: Endpoint,
        d: Direction,
        pending: ConnSet,
        because: list[tuple[Policy | None, Rule]],
    ) -> tuple[ConnSet, ConnSet]:
        """(what the baseline leaves to the default, what it allows explicitly)."""
        ns = self.namespace_labels
        allowed, decided = ConnSet(), ConnSet()
        for banp in self.compiled.baselines:
            if not banp.applies(subject, ns):
                continue
            for rule in banp.rules(d):
                if not rule.matches(other, subject, ns):
                    continue
                conns = rule.conns(dst).intersect(pending).subtract(decided)
                if not conns:
                    continue
                decided = decided.union(conns)
                if rule.action == Action.ALLOW:
                    allowed = allowed.union(conns)
                    because.append((banp, rule))
        return pending.subtract(decided), allowed

    def _profiles(
        self,
        subject: Workload,
        other: Endpoint,
        dst: Endpoint,
        d: Direction,
        pending: ConnSet,
        because: list[tuple[Policy | None, Rule]],
    ) -> tuple[ConnSet, ConnSet, ConnSet]:
        """(allowed by default, of which by default only, allowed by a profile rule)."""
        if self.compiled.mode != "calico":
            return pending, pending, ConnSet()
        names = (f"kns.{subject.namespace}", f"ksa.{subject.namespace}.{subject.service_account}")
        profiles = [self.compiled.profiles[n] for n in names if n in self.compiled.profiles]
        if not profiles:
            return pending, pending, ConnSet()  # Calico's generated profiles allow everything
        ns = self.namespace_labels
        allowed, decided = ConnSet(), ConnSet()
        for prof in profiles:
            for rule in prof.rules(d):
                if rule.action == Action.LOG or not rule.matches(other, subject, ns):
                    continue
                conns = rule.conns(dst).intersect(pending).subtract(decided)
                if not conns:
                    continue
                decided = decided.union(conns)
                if rule.action == Action.ALLOW:
                    allowed = allowed.union(conns)
                    because.append((None, rule))
        return allowed, ConnSet(), allowed


def _key(endpoint: Endpoint) -> object:
    if isinstance(endpoint, Workload):
        return endpoint.class_key()
    if isinstance(endpoint, Generic):
        return "generic"
    return endpoint


def _merge(a: Because, b: Because) -> Because:
    seen: dict[tuple[int, int], tuple[Policy | None, Rule]] = {}
    for item in (*a, *b):
        seen.setdefault((id(item[0]), id(item[1])), item)
    return tuple(seen.values())
