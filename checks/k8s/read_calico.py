"""Calico (projectcalico.org/v3) NetworkPolicy, GlobalNetworkPolicy, NetworkSet, GlobalNetworkSet and
Profile read into Policies, network sets and profiles.

Semantics (docs.tigera.io "NetworkPolicy", "GlobalNetworkPolicy", "Rule", "Selectors", "Profile"):
policies apply by ascending `order` (none: last), rules in order, the first Allow or Deny is final, Pass
skips to the next tier, Log records and goes on; an endpoint that some policy of a tier selects is denied
whatever no rule of the tier decided. A rule's source/destination entity matches when every criterion
given holds: `selector` (pods, and network sets), `namespaceSelector` (`global()`: non-namespaced
endpoints and GlobalNetworkSets), `serviceAccounts`, `nets`; and no negated one (`notSelector`,
`notNets`); in a namespaced policy a selector without namespaceSelector stays in the policy's namespace.
`nets` match any address, pods included. Pods carry `projectcalico.org/namespace`,
`projectcalico.org/serviceaccount` and their namespace's labels as `pcns.<key>`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from auditor.facts.kubernetes import K8sNetworkPolicy, K8sService, PolicyFlavor
from checks.k8s import calico_selector as cs
from checks.k8s.ir import (
    Action,
    Direction,
    Layer,
    NetworkSet,
    NsLabels,
    Peer,
    PeerKind,
    Policy,
    PortSpec,
    Profile,
    Rule,
)
from checks.k8s.read_cilium import service_peer
from checks.k8s.selectors import SpecError, covers_everything
from checks.k8s.workloads import Workload, with_service_account
from checks.lateral.addresses import NO_ADDRESSES, IPSet

CALICO_NS = "projectcalico.org/namespace"
CALICO_SA = "projectcalico.org/serviceaccount"
CALICO_NAME = "projectcalico.org/name"
_ACTIONS = {"Allow": Action.ALLOW, "Deny": Action.DENY, "Pass": Action.PASS, "Log": Action.LOG}
_PROTOCOLS = {"6": "TCP", "17": "UDP", "132": "SCTP", "1": "ICMP", "58": "ICMPV6"}


def pod_view(pod: Workload, ns_labels: NsLabels, extra: Mapping[str, str] | None = None) -> dict[str, str]:
    view = {**(extra or {}), **pod.label_map}
    view[CALICO_NS] = pod.namespace
    view[CALICO_SA] = pod.service_account
    view["projectcalico.org/orchestrator"] = "k8s"
    for k, v in ns_labels(pod.namespace).items():
        view[f"pcns.{k}"] = v
    return view


def ns_view(name: str, labels: Mapping[str, str]) -> dict[str, str]:
    return {**labels, CALICO_NAME: name}


@dataclass(frozen=True)
class CalicoContext:
    """What Calico rules resolve against: network sets, services, and the labels profiles add."""

    network_sets: Sequence[NetworkSet] = ()
    services: Sequence[K8sService] = ()
    profile_labels: Callable[[Workload], Mapping[str, str]] = lambda _pod: {}


def _expr(raw: object, path: str) -> cs.Expr | None:
    if raw is None:
        return None
    try:
        return cs.parse(str(raw))
    except cs.SelectorError as exc:
        raise SpecError(f"{path}: {exc}") from exc


def _is_all(expr: cs.Expr | None) -> bool:
    return expr is None or (isinstance(expr, cs.Term) and expr.op == "all")


def _is_global(expr: cs.Expr | None) -> bool:
    return isinstance(expr, cs.Term) and expr.op == "global"


class _Entity:
    """One rule side (source or destination), without its ports."""

    def __init__(self, raw: Mapping[str, Any], own: str | None, ctx: CalicoContext, path: str) -> None:
        self.raw = raw
        self.own = own
        self.ctx = ctx
        self.path = path
        self.sel = _expr(raw.get("selector"), f"{path}.selector")
        self.not_sel = _expr(raw.get("notSelector"), f"{path}.notSelector")
        self.ns_sel = _expr(raw.get("namespaceSelector"), f"{path}.namespaceSelector")
        sa = raw.get("serviceAccounts")
        if sa is not None and not isinstance(sa, dict):
            raise SpecError(f"{path}.serviceAccounts is not a mapping")
        self.sa_names = tuple(str(n) for n in (sa or {}).get("names") or [])
        self.sa_sel = _expr((sa or {}).get("selector"), f"{path}.serviceAccounts.selector")
        self.has_sa = sa is not None
        self.nets = IPSet.parse(*[str(n) for n in raw.get("nets") or []]) if raw.get("nets") else None
        self.not_nets = IPSet.parse(*[str(n) for n in raw.get("notNets") or []])

    @property
    def endpoint_criteria(self) -> bool:
        return self.sel is not None or self.ns_sel is not None or self.has_sa

    @property
    def any_criteria(self) -> bool:
        return (
            self.endpoint_criteria or self.nets is not None or self.not_sel is not None or bool(self.not_nets)
        )

    def pod_matches(self, pod: Workload, ns_labels: NsLabels) -> bool:
        if self.ns_sel is not None:
            if _is_global(self.ns_sel) or not cs.evaluate(
                self.ns_sel, ns_view(pod.namespace, ns_labels(pod.namespace))
            ):
                return False
        elif self.own is not None and self.endpoint_criteria and pod.namespace != self.own:
            return False
        view = pod_view(pod, ns_labels, self.ctx.profile_labels(pod))
        if self.sel is not None and not cs.evaluate(self.sel, view):
            return False
        if self.has_sa:
            if self.sa_names and pod.service_account not in self.sa_names:
                return False
            if self.sa_sel is not None and not cs.evaluate(self.sa_sel, {CALICO_NAME: pod.service_account}):
                return False
        if self.nets is not None and not pod.inside(self.nets):
            return False
        if self.not_sel is not None and cs.evaluate(self.not_sel, view):
            return False
        return not pod.excluded_by(self.not_nets)

    def in_namespace(self, name: str, labels: Mapping[str, str]) -> bool:
        if self.ns_sel is not None:
            return not _is_global(self.ns_sel) and bool(cs.evaluate(self.ns_sel, ns_view(name, labels)))
        return self.own is None or not self.endpoint_criteria or name == self.own

    def set_block(self) -> IPSet:
        """The addresses of the network sets these criteria select."""
        if self.has_sa:
            return NO_ADDRESSES
        out = IPSet()
        for ns in self.ctx.network_sets:
            if self.ns_sel is not None:
                if _is_global(self.ns_sel):
                    if ns.namespace is not None:
                        continue
                elif ns.namespace is None or not _is_all(self.ns_sel):
                    continue
            elif self.own is not None and ns.namespace != self.own:
                continue
            labels = dict(ns.labels)
            if self.sel is not None and not cs.evaluate(self.sel, labels):
                continue
            if self.not_sel is not None and cs.evaluate(self.not_sel, labels):
                continue
            out = out.union(ns.block)
        return out

    def peers(self, direction: Direction) -> tuple[Peer, ...] | None:
        """The peer this side stands for; None: every peer (no criteria at all)."""
        out: list[Peer] = []
        svc = self.raw.get("services")
        if isinstance(svc, dict):
            ns = svc.get("namespace") or self.own
            chosen = [
                s
                for s in self.ctx.services
                if s.name == svc.get("name") and (ns is None or s.namespace == ns)
            ]
            out.append(service_peer(chosen, f"services {ns}/{svc.get('name')}"))
        domains = tuple(str(d) for d in self.raw.get("domains") or [])
        if domains:
            out.append(
                Peer(PeerKind.FQDN, f"domains {', '.join(domains)}", names=domains, key=f"fqdn {domains}")
            )
        if out and not self.any_criteria:
            return tuple(out)
        if not self.any_criteria:
            return None
        text = self._text()
        if self.endpoint_criteria:
            block = self.set_block()
            if self.nets is not None:
                block = block.intersect(self.nets)
            out.append(
                Peer(
                    PeerKind.PODS,
                    text,
                    pods=self.pod_matches,
                    all_namespaces=(self.ns_sel is not None and _is_all(self.ns_sel))
                    or (self.ns_sel is None and self.own is None),
                    all_pods=_is_all(self.sel)
                    and not self.has_sa
                    and self.not_sel is None
                    and self.nets is None,
                    namespace=self.own if self.ns_sel is None else None,
                    block=block.subtract(self.not_nets),
                    not_block=self.not_nets,
                    witness=self._witness(),
                    key=text,
                    in_namespace=self.in_namespace,
                )
            )
        elif self.nets is not None:
            out.append(
                Peer(
                    PeerKind.ADDRESSES,
                    text,
                    pods=self.pod_matches if self.not_sel is not None else None,
                    block=self.nets.subtract(self.not_nets),
                    selects_pods=True,
                    not_block=self.not_nets,
                    key=text,
                )
            )
        else:
            out.append(
                Peer(
                    PeerKind.ANY,
                    text,
                    pods=self.pod_matches if self.not_sel is not None else None,
                    not_block=self.not_nets,
                    key=text,
                )
            )
        return tuple(out)

    def _witness(self) -> tuple[tuple[str, str], ...] | None:
        account = self.sa_names[0] if self.sa_names else None
        if self.sel is None:
            return with_service_account((), account)
        found = cs.witness(self.sel)
        if found is None:
            return None
        return with_service_account(_labels_of(found), account or found.get(CALICO_SA))

    def _text(self) -> str:
        parts = []
        for key in ("selector", "notSelector", "namespaceSelector", "nets", "notNets", "serviceAccounts"):
            if self.raw.get(key) is not None:
                parts.append(
                    f"{key} {self.raw[key]!r}" if isinstance(self.raw[key], str) else f"{key} {self.raw[key]}"
                )
        where = (
            f" in namespace {self.own}" if self.own and self.ns_sel is None and self.endpoint_criteria else ""
        )
        return " ".join(parts) + where if parts else "any peer"


def _labels_of(found: Mapping[str, str]) -> tuple[tuple[str, str], ...]:
    """A Calico witness's pod labels (namespace labels and Calico's own keys are not pod labels)."""
    return tuple(
        sorted((k, v) for k, v in found.items() if not k.startswith(("pcns.", "projectcalico.org/")))
    )


def _protocol(raw: object) -> str:
    text = str(raw).upper()
    return _PROTOCOLS.get(text, text)


def _port_specs(protocol: str | None, ports: object, path: str) -> tuple[PortSpec, ...]:
    if protocol in ("ICMP", "ICMPV6") or (protocol is not None and protocol not in ("TCP", "UDP", "SCTP")):
        if ports:
            raise SpecError(f"{path}: ports with protocol {protocol}")
        return (PortSpec(protocol, other=True),)
    if not ports:
        return (PortSpec(protocol),)
    if not isinstance(ports, list):
        raise SpecError(f"{path} is not a list")
    out = []
    for p in ports:
        text = str(p)
        if ":" in text:
            lo, hi = text.split(":", 1)
            out.append(PortSpec(protocol, int(lo), int(hi)))
        elif text.isdigit():
            out.append(PortSpec(protocol, int(text), int(text)))
        else:
            out.append(PortSpec(protocol, name=text))
    return tuple(out)


def calico_rules(
    raws: object, key: str, own: str | None, ctx: CalicoContext, prefix: str = ""
) -> tuple[Rule, ...]:
    direction: Direction = "Ingress" if key == "ingress" else "Egress"
    if raws is None:
        return ()
    if not isinstance(raws, list):
        raise SpecError(f"{prefix}{key} is not a list")
    out = []
    for i, raw in enumerate(raws):
        path = f"{prefix}{key}[{i}]"
        if not isinstance(raw, dict):
            raise SpecError(f"{path} is not a rule")
        action = _ACTIONS.get(str(raw.get("action")))
        if action is None:
            raise SpecError(f"{path}.action {raw.get('action')!r} is not Allow, Deny, Pass or Log")
        source = raw.get("source") or {}
        dest = raw.get("destination") or {}
        if not isinstance(source, dict) or not isinstance(dest, dict):
            raise SpecError(f"{path}: source/destination must be mappings")
        if source.get("ports") or source.get("notPorts"):
            raise SpecError(f"{path}.source.ports: rules on source ports are not evaluated")
        peer_raw, local_raw = (source, dest) if direction == "Ingress" else (dest, source)
        side = "source" if direction == "Ingress" else "destination"
        peer = _Entity(
            {k: v for k, v in peer_raw.items() if k not in ("ports", "notPorts")}, own, ctx, f"{path}.{side}"
        )
        local = _Entity(
            {k: v for k, v in local_raw.items() if k not in ("ports", "notPorts", "services")}, own, ctx, path
        )
        protocol = _protocol(raw["protocol"]) if raw.get("protocol") is not None else None
        ports: tuple[PortSpec, ...] | None = None
        if protocol is not None or dest.get("ports"):
            ports = _port_specs(protocol, dest.get("ports"), f"{path}.destination.ports")
        not_ports: tuple[PortSpec, ...] = ()
        if dest.get("notPorts"):
            not_ports += _port_specs(protocol, dest.get("notPorts"), f"{path}.destination.notPorts")
        if raw.get("notProtocol") is not None:
            not_ports += _port_specs(_protocol(raw["notProtocol"]), None, f"{path}.notProtocol")
        peers = peer.peers(direction)
        out.append(
            Rule(
                action,
                peers,
                ports,
                path,
                not_ports=not_ports,
                local=local.pod_matches if local.any_criteria else None,
                everything_peers=peers is None or covers_everything(peers),
            )
        )
    return tuple(out)


def calico_policy(rec: K8sNetworkPolicy, ref: object, ctx: CalicoContext) -> Policy:
    spec = rec.spec
    own = rec.namespace if rec.flavor == PolicyFlavor.CALICO else None
    selector = _expr(spec.get("selector"), "spec.selector") or cs.Term("all")
    ns_sel = _expr(spec.get("namespaceSelector"), "spec.namespaceSelector")
    sa_sel = _expr(spec.get("serviceAccountSelector"), "spec.serviceAccountSelector")
    host_only = bool(spec.get("doNotTrack") or spec.get("preDNAT"))

    def selects(pod: Workload, ns_labels: NsLabels) -> bool:
        if host_only:
            return False
        if ns_sel is not None and not cs.evaluate(ns_sel, ns_view(pod.namespace, ns_labels(pod.namespace))):
            return False
        if sa_sel is not None and not cs.evaluate(sa_sel, {CALICO_NAME: pod.service_account}):
            return False
        return cs.evaluate(selector, pod_view(pod, ns_labels, ctx.profile_labels(pod))) is True

    order_raw = spec.get("order")
    order = (
        float(order_raw)
        if isinstance(order_raw, int | float) and not isinstance(order_raw, bool)
        else float("inf")
    )
    tier = str(spec.get("tier") or "default")
    found = cs.witness(selector)
    wit = None if found is None else with_service_account(_labels_of(found), found.get(CALICO_SA))
    kind = "NetworkPolicy" if own is not None else "GlobalNetworkPolicy"
    where = f"{own}/" if own else ""
    return Policy(
        label=f"Calico {kind} {where}{rec.name}",
        kind=f"projectcalico.org {kind}",
        layer=Layer.NETPOL,
        order=order,
        namespace=own,
        selects=selects,
        isolates=frozenset(rec.policy_types),
        ingress=calico_rules(spec.get("ingress"), "ingress", own, ctx),
        egress=calico_rules(spec.get("egress"), "egress", own, ctx),
        witnesses=(wit,) if wit is not None else (),
        ref=ref,
        flavor="calico",
        tier=tier,
    )


def network_set(rec: K8sNetworkPolicy) -> NetworkSet:
    nets = rec.spec.get("nets") or []
    if not isinstance(nets, list):
        raise SpecError("spec.nets is not a list")
    return NetworkSet(rec.name, rec.namespace, dict(rec.labels), IPSet.parse(*[str(n) for n in nets]))


def profile(rec: K8sNetworkPolicy, ref: object, ctx: CalicoContext) -> Profile:
    spec = rec.spec
    labels = spec.get("labelsToApply") or {}
    if not isinstance(labels, dict):
        raise SpecError("spec.labelsToApply is not a mapping")
    return Profile(
        rec.name,
        calico_rules(spec.get("ingress"), "ingress", None, ctx),
        calico_rules(spec.get("egress"), "egress", None, ctx),
        {str(k): str(v) for k, v in labels.items()},
        ref,
    )
