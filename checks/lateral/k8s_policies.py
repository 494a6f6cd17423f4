"""Compile K8sNetworkPolicy facts into NetPol / AdminPol rule forms.

Kubernetes NetworkPolicies come parsed rule by rule from the normalizer. AdminNetworkPolicy and
BaselineAdminNetworkPolicy (policy.networking.k8s.io v1alpha1, and the v1alpha2 ClusterNetworkPolicy
the normalizer maps onto them) keep their raw `spec`, read here. Cilium and Calico policies are not
evaluated: `compile_policies` returns them as `unsupported` so callers can say so instead of guessing.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, cast

from auditor.facts.kubernetes import (
    K8sNetworkPolicy,
    LabelSelector,
    PolicyFlavor,
    PolicyPeer,
    PolicyPort,
    PolicyRule,
)
from checks.lateral.addresses import IPSet
from checks.lateral.k8s_model import Action, AdminPol, NetPol, PeerSpec, PortSpec, RuleSpec
from collectors.normalizers.kubernetes_spec import ShapeError, label_selector

_ACTIONS: dict[str, Action] = {"Allow": "Allow", "Accept": "Allow", "Deny": "Deny", "Pass": "Pass"}


@dataclass
class CompiledPolicies:
    netpols: list[NetPol] = field(default_factory=list)
    admins: list[AdminPol] = field(default_factory=list)  # sorted by priority
    baseline: AdminPol | None = None
    unsupported: list[K8sNetworkPolicy] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


def compile_policies(policies: Iterable[tuple[K8sNetworkPolicy, object]]) -> CompiledPolicies:
    """(fact, ref) pairs -> compiled policies; `ref` is carried so findings can cite the fact."""
    out = CompiledPolicies()
    for policy, ref in policies:
        try:
            if policy.flavor == PolicyFlavor.KUBERNETES:
                out.netpols.append(_netpol(policy, ref))
            elif policy.flavor in (PolicyFlavor.ADMIN, PolicyFlavor.BASELINE_ADMIN):
                admin = _admin(policy, ref)
                if not admin.baseline:
                    out.admins.append(admin)
                elif out.baseline is None:
                    out.baseline = admin
                else:
                    out.problems.append(
                        f"second BaselineAdminNetworkPolicy {policy.name} ignored (a singleton)"
                    )
            else:
                out.unsupported.append(policy)
        except (ShapeError, ValueError, TypeError) as exc:
            out.problems.append(f"{policy.subject()}: not evaluated: {exc}")
    out.admins.sort(key=lambda a: (a.priority, a.name))
    return out


# --- NetworkPolicy ------------------------------------------------------------------------------


def _netpol(policy: K8sNetworkPolicy, ref: object) -> NetPol:
    namespace = policy.namespace or "default"
    return NetPol(
        namespace=namespace,
        name=policy.name,
        selector=policy.pod_selector,
        ingress_isolated="Ingress" in policy.policy_types,
        egress_isolated="Egress" in policy.policy_types,
        ingress=tuple(_np_rule(r, namespace) for r in policy.ingress),
        egress=tuple(_np_rule(r, namespace) for r in policy.egress),
        ref=ref,
    )


def _np_rule(rule: PolicyRule, namespace: str) -> RuleSpec:
    peers = tuple(_np_peer(p, namespace) for p in rule.peers) if rule.peers else None
    ports = tuple(_np_port(p) for p in rule.ports) if rule.ports else None
    return RuleSpec(peers=peers, ports=ports)


def _np_peer(peer: PolicyPeer, namespace: str) -> PeerSpec:
    if peer.ip_block is not None:
        block = IPSet.parse(peer.ip_block.cidr).subtract(IPSet.parse(*peer.ip_block.except_))
        return PeerSpec(kind="ip", block=block)
    return PeerSpec(
        kind="pods",
        namespaces=peer.namespace_selector,
        pods=peer.pod_selector,
        same_namespace_as=namespace if peer.namespace_selector is None else None,
    )


def _np_port(port: PolicyPort) -> PortSpec:
    protocol = port.protocol.upper()
    if port.port is None:
        return PortSpec(protocol=protocol)
    if isinstance(port.port, str):
        if port.port.isdigit():
            number = int(port.port)
            return PortSpec(protocol=protocol, lo=number, hi=port.end_port or number)
        return PortSpec(protocol=protocol, name=port.port)
    return PortSpec(protocol=protocol, lo=port.port, hi=port.end_port or port.port)


# --- AdminNetworkPolicy / BaselineAdminNetworkPolicy ---------------------------------------------


def _admin(policy: K8sNetworkPolicy, ref: object) -> AdminPol:
    spec = policy.spec
    baseline = policy.flavor == PolicyFlavor.BASELINE_ADMIN
    priority = spec.get("priority", 0 if baseline else None)
    if not isinstance(priority, int) or isinstance(priority, bool):
        raise ValueError("spec.priority must be a number")
    subject = _mapping(spec.get("subject"), "spec.subject")
    subject_ns, subject_pods = _subject(subject)
    return AdminPol(
        name=policy.name,
        baseline=baseline,
        priority=priority,
        subject_namespaces=subject_ns,
        subject_pods=subject_pods,
        ingress=tuple(_admin_rule(r, "from", i, "ingress") for i, r in enumerate(_list(spec.get("ingress")))),
        egress=tuple(_admin_rule(r, "to", i, "egress") for i, r in enumerate(_list(spec.get("egress")))),
        ref=ref,
    )


def _mapping(value: object, path: str) -> dict[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise ValueError(f"{path} must be a mapping")
    return cast(dict[str, Any], value)


def _list(value: object) -> list[Any]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise ValueError("rules must be a list")
    return value


def _subject(subject: dict[str, Any]) -> tuple[LabelSelector, LabelSelector | None]:
    if "namespaces" in subject:
        return label_selector(subject["namespaces"], "spec.subject.namespaces"), None
    if "pods" in subject:
        pods = _mapping(subject["pods"], "spec.subject.pods")
        return (
            label_selector(pods.get("namespaceSelector"), "spec.subject.pods.namespaceSelector"),
            label_selector(pods.get("podSelector"), "spec.subject.pods.podSelector"),
        )
    raise ValueError("spec.subject must select namespaces or pods")


def _admin_rule(raw: object, peers_key: str, index: int, direction: str) -> RuleSpec:
    rule = _mapping(raw, f"spec.{direction}[{index}]")
    action = _ACTIONS.get(str(rule.get("action")))
    if action is None:
        raise ValueError(
            f"spec.{direction}[{index}].action {rule.get('action')!r} is not Allow, Deny or Pass"
        )
    peers = tuple(p for p in (_admin_peer(x) for x in _list(rule.get(peers_key))) if p is not None)
    ports = rule.get("ports")
    return RuleSpec(
        peers=peers,
        ports=None if ports is None else tuple(_admin_port(p) for p in _list(ports)),
        action=action,
        name=str(rule.get("name") or f"{direction}[{index}]"),
    )


def _admin_peer(raw: object) -> PeerSpec | None:
    peer = _mapping(raw, "peer")
    if "namespaces" in peer:
        return PeerSpec(kind="pods", namespaces=label_selector(peer["namespaces"], "namespaces"))
    if "pods" in peer:
        pods = _mapping(peer["pods"], "pods")
        return PeerSpec(
            kind="pods",
            namespaces=label_selector(pods.get("namespaceSelector"), "pods.namespaceSelector"),
            pods=label_selector(pods.get("podSelector"), "pods.podSelector"),
        )
    if "networks" in peer:
        return PeerSpec(kind="ip", block=IPSet.parse(*(str(n) for n in _list(peer["networks"]))))
    if "nodes" in peer:
        return PeerSpec(kind="nodes")  # node addresses are not in the evidence: matches nothing
    return None


def _admin_port(raw: object) -> PortSpec:
    port = _mapping(raw, "port")
    if "portNumber" in port:
        number = _mapping(port["portNumber"], "portNumber")
        value = int(number["port"])
        return PortSpec(protocol=str(number.get("protocol") or "TCP").upper(), lo=value, hi=value)
    if "portRange" in port:
        span = _mapping(port["portRange"], "portRange")
        return PortSpec(
            protocol=str(span.get("protocol") or "TCP").upper(), lo=int(span["start"]), hi=int(span["end"])
        )
    if "namedPort" in port:
        return PortSpec(protocol=None, name=str(port["namedPort"]))
    raise ValueError("a port must be portNumber, portRange or namedPort")
