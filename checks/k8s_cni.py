"""Cilium (CNP/CCNP) and Calico (NetworkPolicy/GlobalNetworkPolicy) specs read into PolicyViews.

Cilium (docs.cilium.io "Policy Enforcement Modes", "Deny Policies"): a rule selecting an endpoint
with a non-empty ingress/ingressDeny (egress/egressDeny) list puts it in default deny for that
direction unless `enableDefaultDeny` says otherwise; an empty rule `{}` allows nothing; a rule with
ports but no L3 peer allows any peer on those ports; deny rules win over allow rules. Labels carry
source prefixes (`k8s:`, `any:`); the namespace is `io.kubernetes.pod.namespace` and namespace labels
are `io.cilium.k8s.namespace.labels.<key>`. In a CNP, an endpoint selector without a namespace label
is confined to the policy's namespace; in a CCNP it spans every namespace.

Calico (docs.tigera.io "NetworkPolicy", "GlobalNetworkPolicy"): policies apply by ascending `order`
(none = last); rule actions Allow/Deny/Pass/Log; `nets` match any address, pods included. Pods carry
`projectcalico.org/namespace` and their namespace's labels as `pcns.<key>`; namespace selectors see
the namespace's labels and `projectcalico.org/name`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, cast

from auditor.facts import K8sNetworkPolicy, LabelSelector, PolicyFlavor
from auditor.store.reader import StoredFact
from checks import calico_selector as cs
from checks.k8s_flavors import (
    NETPOL_ORDER,
    SpecError,
    cidr_is_everything,
    port_range,
    selector_from,
    selector_text,
    tri_match,
)
from checks.k8s_semantics import (
    Action,
    Direction,
    Layer,
    NamespaceScope,
    Peer,
    PeerKind,
    PolicyView,
    PortRange,
    Rule,
    Tri,
)

# --- Cilium ----------------------------------------------------------------------------------------

CILIUM_NS = "io.kubernetes.pod.namespace"
CILIUM_NS_LABELS = "io.cilium.k8s.namespace.labels."
_CILIUM_SOURCES = ("k8s:", "any:", "container:", "unspec:")
_WORLD = frozenset({"world", "world-ipv4", "world-ipv6"})
_HOSTS = frozenset({"host", "remote-node", "kube-apiserver", "health", "init", "ingress", "unmanaged"})


def _ckey(key: str) -> str:
    for prefix in _CILIUM_SOURCES:
        if key.startswith(prefix):
            return key[len(prefix) :]
    return key


def _is_ns_key(key: str) -> bool:
    return key == CILIUM_NS or key.startswith(CILIUM_NS_LABELS)


def _ns_labels(name: str, labels: Mapping[str, str]) -> dict[str, str]:
    return {CILIUM_NS: name, **{CILIUM_NS_LABELS + k: v for k, v in labels.items()}}


def _has_ns_key(sel: LabelSelector) -> bool:
    return any(_is_ns_key(k) for k in sel.match_labels) or any(
        _is_ns_key(r.key) for r in sel.match_expressions
    )


def _cilium_endpoints(sel: LabelSelector, own: str | None, path: str) -> Peer:
    reserved = [k for k in sel.match_labels if k.startswith("reserved:")]
    if reserved:
        entity = reserved[0].split(":", 1)[1]
        kind = PeerKind.WORLD if entity in _WORLD else PeerKind.CLUSTER_HOSTS
        return Peer(kind, f"{path} reserved:{entity}")
    pod_part = LabelSelector(
        match_labels={k: v for k, v in sel.match_labels.items() if not _is_ns_key(k)},
        match_expressions=[r for r in sel.match_expressions if not _is_ns_key(r.key)],
    )
    every = pod_part.is_empty()
    pods = "all pods" if every else f"pods {selector_text(pod_part)}"
    if _has_ns_key(sel):
        scope = NamespaceScope(
            f"namespaces {selector_text(sel)}",
            predicate=lambda n, labels: tri_match(sel, _ns_labels(n, labels), _is_ns_key),
        )
    elif own is not None:
        scope = NamespaceScope(f"namespace {own}", same=own)
    else:
        scope = NamespaceScope("every namespace", everything=True)
    return Peer(PeerKind.PODS, f"{path} {pods} in {scope.text}", namespaces=scope, all_pods=every)


def _cilium_entities(values: list[Any], path: str) -> list[Peer]:
    out = []
    for value in values:
        e = str(value)
        if e == "all":
            out.append(Peer(PeerKind.ANY, f"{path} all"))
        elif e in _WORLD:
            out.append(Peer(PeerKind.WORLD, f"{path} {e}"))
        elif e == "cluster":
            scope = NamespaceScope("every namespace", everything=True)
            out.append(Peer(PeerKind.PODS, f"{path} cluster", namespaces=scope))
            out.append(Peer(PeerKind.CLUSTER_HOSTS, f"{path} cluster (nodes)"))
        else:
            out.append(Peer(PeerKind.CLUSTER_HOSTS, f"{path} {e}"))
    return out


def _cilium_peers(rule: dict[str, Any], side: str, own: str | None) -> list[Peer]:
    peers: list[Peer] = []
    for i, sel in enumerate(rule.get(f"{side}Endpoints") or []):
        path = f"{side}Endpoints[{i}]"
        peers.append(_cilium_endpoints(selector_from(sel, path, _ckey), own, f"{side}Endpoints"))
    peers += _cilium_entities(list(rule.get(f"{side}Entities") or []), f"{side}Entities")
    peers += [Peer(PeerKind.CIDR, f"{side}CIDR {c}", cidr=str(c)) for c in rule.get(f"{side}CIDR") or []]
    for item in rule.get(f"{side}CIDRSet") or []:
        if not isinstance(item, dict) or not item.get("cidr"):
            ref = item.get("cidrGroupRef") if isinstance(item, dict) else item
            peers.append(Peer(PeerKind.EXTERNAL, f"{side}CIDRSet group {ref}"))
            continue
        exc = tuple(str(x) for x in item.get("except") or [])
        extra = f" except {', '.join(exc)}" if exc else ""
        peers.append(
            Peer(PeerKind.CIDR, f"{side}CIDRSet {item['cidr']}{extra}", cidr=str(item["cidr"]), except_=exc)
        )
    if rule.get(f"{side}Groups"):
        peers.append(Peer(PeerKind.EXTERNAL, f"{side}Groups (cloud groups)"))
    if rule.get(f"{side}Nodes"):
        peers.append(Peer(PeerKind.CLUSTER_HOSTS, f"{side}Nodes"))
    if side == "to":
        for svc in rule.get("toServices") or []:
            ref = (
                (svc.get("k8sService") or svc.get("k8sServiceSelector") or {})
                if isinstance(svc, dict)
                else {}
            )
            ns = ref.get("namespace") or own
            scope = (
                NamespaceScope(f"namespace {ns}", same=ns) if ns else NamespaceScope("any", everything=True)
            )
            peers.append(Peer(PeerKind.SERVICE, f"toServices {ref or svc} in {scope.text}", namespaces=scope))
        for fq in rule.get("toFQDNs") or []:
            name = fq.get("matchName") or fq.get("matchPattern") if isinstance(fq, dict) else fq
            peers.append(Peer(PeerKind.FQDN, f"toFQDNs {name}"))
    return peers


def _cilium_ports(rule: dict[str, Any]) -> tuple[PortRange, ...] | None:
    out: list[PortRange] = []
    for tp in rule.get("toPorts") or []:
        ports = tp.get("ports") if isinstance(tp, dict) else None
        if not ports:
            return None  # a toPorts entry without ports: every port
        out += [port_range(p.get("protocol"), p.get("port"), p.get("endPort")) for p in ports]
    for icmp in rule.get("icmps") or []:
        out.append(PortRange("ICMP"))
        del icmp
    return tuple(out) if out else None


def _cilium_rule(rule: object, key: str, i: int, own: str | None) -> Rule | None:
    direction: Direction = "Ingress" if key.startswith("ingress") else "Egress"
    action = Action.DENY if key.endswith("Deny") else Action.ALLOW
    if not isinstance(rule, dict):
        raise SpecError(f"{key}[{i}] is not a rule")
    side = "from" if direction == "Ingress" else "to"
    peers = _cilium_peers(rule, side, own)
    has_ports = bool(rule.get("toPorts") or rule.get("icmps"))
    if not peers and not has_ports:
        return Rule(direction, action, (), (), f"{key}[{i}]")  # `{}`: selects nothing
    ports = _cilium_ports(rule) if has_ports else None
    if not peers:
        peers = [Peer(PeerKind.ANY, "any peer")]
    kinds = {p.kind for p in peers}
    every = ports is None and (
        PeerKind.ANY in kinds
        or (PeerKind.WORLD in kinds and any(p.namespaces and p.namespaces.everything for p in peers))
    )
    return Rule(direction, action, tuple(peers), ports, f"{key}[{i}]", everything=every)


def cilium(fact: StoredFact[K8sNetworkPolicy]) -> list[PolicyView]:
    rec = fact.record
    own = rec.namespace if rec.flavor == PolicyFlavor.CILIUM else None
    specs = rec.spec["specs"] if set(rec.spec) == {"specs"} else [rec.spec]
    views = []
    for n, spec in enumerate(specs):
        prefix = f"specs[{n}]." if len(specs) > 1 else ""
        views.append(_cilium_view(fact, spec if isinstance(spec, dict) else {}, own, prefix))
    return views


def _cilium_view(
    fact: StoredFact[K8sNetworkPolicy], spec: dict[str, Any], own: str | None, prefix: str
) -> PolicyView:
    problems: list[str] = []
    sel: LabelSelector | None = None
    if "nodeSelector" not in spec:  # a host policy selects nodes, never pods: it applies to no namespace
        try:
            sel = selector_from(spec.get("endpointSelector"), f"{prefix}endpointSelector", _ckey)
        except SpecError as exc:
            problems.append(str(exc))
    found_sel = sel

    def applies(name: str, labels: Mapping[str, str]) -> Tri:
        if found_sel is None or (own is not None and name != own):
            return False
        return tri_match(found_sel, _ns_labels(name, labels), _is_ns_key)

    rules: list[Rule] = []
    isolates: set[Direction] = set()
    raw_enable = spec.get("enableDefaultDeny")
    enable: dict[str, Any] = raw_enable if isinstance(raw_enable, dict) else {}
    for key in ("ingress", "ingressDeny", "egress", "egressDeny"):
        items = spec.get(key) or []
        direction: Direction = "Ingress" if key.startswith("ingress") else "Egress"
        if items and enable.get(direction.lower(), True) is not False:
            isolates.add(direction)
        for i, raw in enumerate(items):
            try:
                rule = _cilium_rule(raw, key, i, own)
            except (SpecError, AttributeError, TypeError) as exc:
                problems.append(f"{prefix}{key}[{i}]: {exc}")
                continue
            if rule is not None:
                rules.append(
                    Rule(
                        rule.direction,
                        rule.action,
                        rule.peers,
                        rule.ports,
                        prefix + rule.where,
                        rule.everything,
                    )
                )
    return PolicyView(
        fact, Layer.NETPOL, NETPOL_ORDER, tuple(rules), frozenset(isolates), applies, tuple(problems)
    )


# --- Calico ----------------------------------------------------------------------------------------

CALICO_NS = "projectcalico.org/namespace"
CALICO_NS_NAME = "projectcalico.org/name"
_CALICO_ACTIONS = {"Allow": Action.ALLOW, "Deny": Action.DENY, "Pass": Action.PASS}


def _pod_known(key: str) -> bool:
    return key == CALICO_NS or key.startswith("pcns.")


def _pod_view(name: str, labels: Mapping[str, str]) -> dict[str, str]:
    return {CALICO_NS: name, **{f"pcns.{k}": v for k, v in labels.items()}}


def _ns_view(name: str, labels: Mapping[str, str]) -> dict[str, str]:
    return {**labels, CALICO_NS_NAME: name}


def _calico_scope(entity: dict[str, Any], own: str | None) -> NamespaceScope | None:
    """None: the namespaceSelector is `global()` (host endpoints and network sets, no pods)."""
    raw = entity.get("namespaceSelector")
    if raw is None:
        if own is not None:
            return NamespaceScope(f"namespace {own}", same=own)
        return NamespaceScope("every namespace", everything=True)
    expr = cs.parse(str(raw))
    if isinstance(expr, cs.Term) and expr.op == "all":
        return NamespaceScope(f"namespaceSelector {raw!r} (every namespace)", everything=True)
    if isinstance(expr, cs.Term) and expr.op == "global":
        return None
    return NamespaceScope(
        f"namespaceSelector {raw!r}", predicate=lambda n, labels: cs.evaluate(expr, _ns_view(n, labels))
    )


def _calico_peers(entity: dict[str, Any], own: str | None) -> list[Peer]:
    peers: list[Peer] = []
    pods = entity.get("selector") is not None or entity.get("namespaceSelector") is not None
    pods = pods or entity.get("serviceAccounts") is not None
    if pods:
        scope = _calico_scope(entity, own)
        sel = entity.get("selector")
        if sel is not None:
            cs.parse(str(sel))  # validate: a malformed selector is reported, not guessed at
        if scope is None:
            peers.append(Peer(PeerKind.CLUSTER_HOSTS, "namespaceSelector global() (hosts, network sets)"))
        else:
            every = sel is None or str(sel).strip() in ("", "all()")
            what = "all pods" if every else f"pods {sel!r}"
            peers.append(Peer(PeerKind.PODS, f"{what} in {scope.text}", namespaces=scope, all_pods=every))
    elif entity.get("nets"):
        peers += [Peer(PeerKind.CIDR, f"nets {n}", cidr=str(n)) for n in entity["nets"]]
    service = entity.get("services")
    if isinstance(service, dict):
        ns = service.get("namespace") or own
        scope = NamespaceScope(f"namespace {ns}", same=ns) if ns else NamespaceScope("any", everything=True)
        peers.append(Peer(PeerKind.SERVICE, f"service {ns}/{service.get('name')}", namespaces=scope))
    for d in entity.get("domains") or []:
        peers.append(Peer(PeerKind.FQDN, f"domain {d}"))
    if not peers:
        nots = [k for k in ("notNets", "notSelector") if entity.get(k)]
        extra = f" (except {', '.join(f'{k} {entity[k]}' for k in nots)})" if nots else ""
        peers.append(Peer(PeerKind.ANY, f"any peer{extra}"))
    return peers


def _calico_ports(raw: dict[str, Any], dest: dict[str, Any]) -> tuple[PortRange, ...] | None:
    proto = raw.get("protocol")
    ports = dest.get("ports")
    if not ports:
        return None if proto is None else (port_range(proto, None),)
    out = []
    for p in ports:
        text = str(p)
        if ":" in text:
            lo, hi = text.split(":", 1)
            out.append(port_range(proto, int(lo), int(hi)))
        else:
            out.append(port_range(proto, p))
    return tuple(out)


def calico(fact: StoredFact[K8sNetworkPolicy]) -> list[PolicyView]:
    rec = fact.record
    spec = rec.spec
    own = rec.namespace if rec.flavor == PolicyFlavor.CALICO else None
    problems: list[str] = []
    try:
        selector = cs.parse(spec.get("selector"))
        ns_expr = cs.parse(spec.get("namespaceSelector")) if spec.get("namespaceSelector") else None
    except cs.SelectorError as exc:
        problems.append(f"spec.selector: {exc}")
        selector, ns_expr = cs.Term("global"), None  # selects no pod: reported, not guessed at
    subset = spec.get("serviceAccountSelector") is not None

    def applies(name: str, labels: Mapping[str, str]) -> Tri:
        if own is not None and name != own:
            return False
        if ns_expr is not None and not cs.evaluate(ns_expr, _ns_view(name, labels)):
            return False
        result = cs.evaluate(selector, _pod_view(name, labels), _pod_known)
        return None if subset and result else result

    rules: list[Rule] = []
    for direction, key in (("Ingress", "ingress"), ("Egress", "egress")):
        for i, raw in enumerate(spec.get(key) or []):
            where = f"{key}[{i}]"
            try:
                action = _CALICO_ACTIONS.get(str(raw.get("action")))
                if action is None:
                    continue  # Log: no verdict
                peer_side = raw.get("source" if direction == "Ingress" else "destination") or {}
                peers = _calico_peers(peer_side, own)
                ports = _calico_ports(raw, raw.get("destination") or {})
            except (cs.SelectorError, AttributeError, TypeError, ValueError) as exc:
                problems.append(f"{where}: {exc}")
                continue
            plain = not any(peer_side.get(k) for k in ("notNets", "notSelector", "notPorts")) and not raw.get(
                "notProtocol"
            )
            every = (
                plain
                and ports is None
                and any(
                    p.kind == PeerKind.ANY or (p.kind == PeerKind.CIDR and cidr_is_everything(p.cidr))
                    for p in peers
                )
            )
            rules.append(
                Rule(cast(Direction, direction), action, tuple(peers), ports, where, everything=every)
            )
    order_raw = spec.get("order")
    order = float(order_raw) if isinstance(order_raw, int | float) else float("inf")
    isolates = frozenset(rec.policy_types)
    return [PolicyView(fact, Layer.NETPOL, order, tuple(rules), isolates, applies, tuple(problems))]
