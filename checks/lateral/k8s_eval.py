"""Kubernetes policy semantics: which connections a workload or address block may open to another.

One direction at a time, as the API specifies (and as netpol-analyzer computes it):
1. AdminNetworkPolicies, by ascending priority, rules in order, first match wins per port: Allow and
   Deny are final; Pass (and anything no ANP rule matched) goes on to step 2.
2. NetworkPolicies selecting the pod for that direction isolate it: what their rules allow (a union)
   is allowed, the rest denied.
3. If no NetworkPolicy selects the pod: the BaselineAdminNetworkPolicy's first-matching Deny rules
   deny, everything else is allowed (the cluster default).
A connection is allowed when the source's egress and the destination's ingress both allow it.
Address blocks are never selected by policies (only pods are), so their own side allows everything.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass

from auditor.facts.kubernetes import LabelSelector
from checks.lateral.addresses import IPSet
from checks.lateral.conns import ConnSet
from checks.lateral.k8s_model import (
    NAMESPACE_NAME_LABEL,
    AdminPol,
    NetPol,
    PeerSpec,
    PortSpec,
    RuleSpec,
    Workload,
)
from checks.lateral.k8s_policies import CompiledPolicies

Endpoint = Workload | IPSet


@dataclass(frozen=True)
class Verdict:
    """The allowed connections and the policies whose rules allowed them (for evidence)."""

    conns: ConnSet
    because: tuple[object, ...] = ()  # NetPol / AdminPol objects


class PolicyEngine:
    def __init__(self, namespaces: Mapping[str, Mapping[str, str]], compiled: CompiledPolicies) -> None:
        self._namespaces = namespaces
        self._by_namespace: dict[str, list[NetPol]] = defaultdict(list)
        for policy in compiled.netpols:
            self._by_namespace[policy.namespace].append(policy)
        self._admins = compiled.admins
        self._baseline = compiled.baseline
        self._cache: dict[tuple[object, object], Verdict] = {}

    def namespace_labels(self, namespace: str) -> Mapping[str, str]:
        return self._namespaces.get(namespace) or {NAMESPACE_NAME_LABEL: namespace}

    def allowed(self, src: Endpoint, dst: Endpoint) -> Verdict:
        key = (_key(src), _key(dst))
        hit = self._cache.get(key)
        if hit is not None:
            return hit
        egress = self.direction(src, dst, ingress=False)
        if not egress.conns:
            verdict = egress
        else:
            ingress = self.direction(src, dst, ingress=True)
            verdict = Verdict(egress.conns.intersect(ingress.conns), _merge(egress.because, ingress.because))
        self._cache[key] = verdict
        return verdict

    def isolating(self, workload: Workload, *, ingress: bool) -> list[NetPol]:
        """The NetworkPolicies that select this workload for the direction."""
        return [
            p
            for p in self._by_namespace.get(workload.namespace, ())
            if (p.ingress_isolated if ingress else p.egress_isolated)
            and p.selector.matches(workload.label_map)
        ]

    # --- one direction ---------------------------------------------------------------------------

    def direction(self, src: Endpoint, dst: Endpoint, *, ingress: bool) -> Verdict:
        """What one side allows: the destination's ingress (ingress=True) or the source's egress."""
        subject, other = (dst, src) if ingress else (src, dst)
        if not isinstance(subject, Workload):
            return Verdict(ConnSet.everything())
        allowed, denied, decided = ConnSet(), ConnSet(), ConnSet()
        because: list[object] = []
        for admin in self._admins:
            if not self._subject(admin, subject):
                continue
            for rule in admin.ingress if ingress else admin.egress:
                if not self._rule_peer(rule, other):
                    continue
                conns = _rule_conns(rule, dst).subtract(decided)
                if not conns:
                    continue
                decided = decided.union(conns)
                if rule.action == "Allow":
                    allowed = allowed.union(conns)
                    because.append(admin)
                elif rule.action == "Deny":
                    denied = denied.union(conns)
        delegated = ConnSet.everything().subtract(allowed).subtract(denied)  # passed or unmatched
        policies = self.isolating(subject, ingress=ingress)
        if policies:
            permitted = ConnSet()
            for policy in policies:
                for rule in policy.ingress if ingress else policy.egress:
                    if self._rule_peer(rule, other):
                        conns = _rule_conns(rule, dst)
                        if conns:
                            permitted = permitted.union(conns)
                            because.append(policy)
            return Verdict(allowed.union(delegated.intersect(permitted)), tuple(because))
        denied = self._baseline_denied(subject, other, dst, ingress)
        return Verdict(allowed.union(delegated.subtract(denied)), tuple(because))

    def _baseline_denied(self, subject: Workload, other: Endpoint, dst: Endpoint, ingress: bool) -> ConnSet:
        banp = self._baseline
        if banp is None or not self._subject(banp, subject):
            return ConnSet()
        denied, decided = ConnSet(), ConnSet()
        for rule in banp.ingress if ingress else banp.egress:
            if not self._rule_peer(rule, other):
                continue
            conns = _rule_conns(rule, dst).subtract(decided)
            decided = decided.union(conns)
            if rule.action == "Deny":
                denied = denied.union(conns)
        return denied

    # --- selection ---------------------------------------------------------------------------------

    def _subject(self, admin: AdminPol, workload: Workload) -> bool:
        if not admin.subject_namespaces.matches(dict(self.namespace_labels(workload.namespace))):
            return False
        return admin.subject_pods is None or admin.subject_pods.matches(workload.label_map)

    def _rule_peer(self, rule: RuleSpec, other: Endpoint) -> bool:
        if rule.peers is None:
            return True
        return any(self._peer(p, other) for p in rule.peers)

    def _peer(self, peer: PeerSpec, other: Endpoint) -> bool:
        if isinstance(other, IPSet):
            return peer.kind == "ip" and bool(other) and other.issubset(peer.block)
        if peer.kind != "pods":
            return False  # an ipBlock never selects a pod (netpol-analyzer's reading); nodes are unknown
        if peer.same_namespace_as is not None:
            if other.namespace != peer.same_namespace_as:
                return False
        elif peer.namespaces is not None and not peer.namespaces.matches(
            dict(self.namespace_labels(other.namespace))
        ):
            return False
        return peer.pods is None or _matches(peer.pods, other)


def _matches(selector: LabelSelector, workload: Workload) -> bool:
    return selector.matches(workload.label_map)


def _rule_conns(rule: RuleSpec, dst: Endpoint) -> ConnSet:
    if rule.ports is None:
        return ConnSet.everything()
    out = ConnSet()
    for spec in rule.ports:
        out = out.union(_port_conns(spec, dst))
    return out


def _port_conns(spec: PortSpec, dst: Endpoint) -> ConnSet:
    if spec.name is None:
        return ConnSet.ports(spec.protocol or "TCP", spec.lo, spec.hi)
    if not isinstance(dst, Workload):
        return ConnSet()  # named ports are defined by pods, not by address blocks
    port = dst.resolve(spec.name)
    if port is None or (spec.protocol is not None and port.protocol.upper() != spec.protocol):
        return ConnSet()
    return ConnSet.ports(port.protocol, port.port, port.port)


def _key(endpoint: Endpoint) -> object:
    return endpoint.class_key() if isinstance(endpoint, Workload) else endpoint


def _merge(a: tuple[object, ...], b: tuple[object, ...]) -> tuple[object, ...]:
    seen: dict[int, object] = {}
    for item in (*a, *b):
        seen.setdefault(id(item), item)
    return tuple(seen.values())
