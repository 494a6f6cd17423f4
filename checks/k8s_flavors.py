"""Read each policy flavor into PolicyViews: Kubernetes NetworkPolicy and the admin policies here,
Cilium and Calico in k8s_cni. `read_policies` is the entry point the checks use.

A part of a spec that cannot be read becomes a problem string on the view (shown in findings), and
its rule is left out rather than guessed: a misread allow rule must not make a check pass.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, cast

from auditor.facts import K8sNetworkPolicy, LabelSelector, PolicyFlavor, PolicyPort, PolicyRule
from auditor.facts.kubernetes import SelectorRequirement
from auditor.store.reader import StoredFact
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
from checks.netutil import network

NETPOL_ORDER = 1000.0  # where Calico places Kubernetes NetworkPolicies among its own (docs.tigera.io)
_OPERATORS = ("In", "NotIn", "Exists", "DoesNotExist")


class SpecError(ValueError):
    """A part of a policy spec has a shape the API would not accept."""


# --- selectors -------------------------------------------------------------------------------------


def selector_from(raw: object, path: str, key_map: Any = None) -> LabelSelector:
    """A metav1.LabelSelector from its raw JSON form; `key_map` rewrites keys (Cilium prefixes)."""
    if raw is None:
        return LabelSelector()
    if not isinstance(raw, dict):
        raise SpecError(f"{path} is not a label selector")
    fix = key_map or (lambda k: k)
    labels = raw.get("matchLabels") or {}
    exprs = raw.get("matchExpressions") or []
    if not isinstance(labels, dict) or not isinstance(exprs, list):
        raise SpecError(f"{path} is not a label selector")
    reqs = []
    for i, e in enumerate(exprs):
        if (
            not isinstance(e, dict)
            or e.get("operator") not in _OPERATORS
            or not isinstance(e.get("key"), str)
        ):
            raise SpecError(f"{path}.matchExpressions[{i}] is not a selector requirement")
        reqs.append(
            SelectorRequirement(key=fix(e["key"]), operator=e["operator"], values=list(e.get("values") or []))
        )
    return LabelSelector(
        match_labels={fix(str(k)): str(v) for k, v in labels.items()}, match_expressions=reqs
    )


def selector_text(sel: LabelSelector) -> str:
    parts = [f"{k}={v}" for k, v in sorted(sel.match_labels.items())]
    for r in sel.match_expressions:
        vals = f" [{', '.join(r.values)}]" if r.values else ""
        parts.append(f"{r.key} {r.operator}{vals}")
    return "{" + ", ".join(parts) + "}"


def tri_match(sel: LabelSelector, known: Mapping[str, str], is_known: Any) -> Tri:
    """Three-valued match: requirements on keys `is_known` accepts are decided from `known`; any other
    requirement makes the result None (some pods) unless a decided one is already False."""
    result: Tri = True
    for key, value in sel.match_labels.items():
        if not is_known(key):
            result = None
        elif known.get(key) != value:
            return False
    for req in sel.match_expressions:
        if not is_known(req.key):
            result = None
        elif not LabelSelector(match_expressions=[req]).matches(dict(known)):
            return False
    return result


def namespace_scope(
    sel: LabelSelector | None, own: str | None, what: str = "namespaceSelector"
) -> NamespaceScope:
    """Kubernetes peer semantics: no namespaceSelector = the policy's own namespace; {} = every one."""
    if sel is None:
        return NamespaceScope(f"namespace {own}", same=own)
    if sel.is_empty():
        return NamespaceScope(f"{what} {{}} (every namespace)", everything=True)
    required = next(iter(sorted(sel.match_labels.items())), None)
    return NamespaceScope(
        f"{what} {selector_text(sel)}",
        predicate=lambda _n, labels: sel.matches(dict(labels)),
        required=required,
    )


# --- ports -----------------------------------------------------------------------------------------


def port_range(protocol: object, port: object, end: object = None) -> PortRange:
    proto = str(protocol).upper() if protocol not in (None, "", "ANY") else None
    if port is None or port in (0, "0", ""):
        return PortRange(proto)
    if isinstance(port, int) or (isinstance(port, str) and port.isdigit()):
        start = int(port)
        stop = int(end) if isinstance(end, int) or (isinstance(end, str) and end.isdigit()) else start
        return PortRange(proto, start, stop)
    return PortRange(proto, name=str(port))


def _k8s_port(p: PolicyPort) -> PortRange:
    return port_range(p.protocol, p.port, p.end_port)


# --- Kubernetes NetworkPolicy ----------------------------------------------------------------------


def _k8s_peer(rec: K8sNetworkPolicy, peer: Any) -> Peer:
    if peer.ip_block is not None:
        excepts = tuple(peer.ip_block.except_)
        extra = f" except {', '.join(excepts)}" if excepts else ""
        return Peer(
            PeerKind.CIDR, f"ipBlock {peer.ip_block.cidr}{extra}", cidr=peer.ip_block.cidr, except_=excepts
        )
    scope = namespace_scope(peer.namespace_selector, rec.namespace)
    every = peer.pod_selector is None or peer.pod_selector.is_empty()
    pods = "all pods" if every else f"pods {selector_text(peer.pod_selector)}"
    return Peer(PeerKind.PODS, f"{pods} in {scope.text}", namespaces=scope, all_pods=every)


def _k8s_rules(rec: K8sNetworkPolicy, direction: Direction, rules: list[PolicyRule]) -> list[Rule]:
    out = []
    key = direction.lower()
    for i, r in enumerate(rules):
        peers = tuple(_k8s_peer(rec, p) for p in r.peers) or (Peer(PeerKind.ANY, "any peer"),)
        ports = tuple(_k8s_port(p) for p in r.ports) or None
        out.append(
            Rule(direction, Action.ALLOW, peers, ports, f"{key}[{i}]", everything=r.allows_everything())
        )
    return out


def _kubernetes(fact: StoredFact[K8sNetworkPolicy]) -> list[PolicyView]:
    rec = fact.record
    selects_all = rec.pod_selector.is_empty()

    def applies(name: str, _labels: Mapping[str, str]) -> Tri:
        if name != rec.namespace:
            return False
        return True if selects_all else None

    rules = _k8s_rules(rec, "Ingress", rec.ingress) + _k8s_rules(rec, "Egress", rec.egress)
    return [PolicyView(fact, Layer.NETPOL, NETPOL_ORDER, tuple(rules), frozenset(rec.policy_types), applies)]


# --- AdminNetworkPolicy / BaselineAdminNetworkPolicy (v1alpha1) and ClusterNetworkPolicy (v1alpha2) --

_ANP_ACTIONS = {"Allow": Action.ALLOW, "Accept": Action.ALLOW, "Deny": Action.DENY, "Pass": Action.PASS}


def _anp_peer(raw: object, path: str) -> list[Peer]:
    if not isinstance(raw, dict):
        raise SpecError(f"{path} is not a peer")
    if "namespaces" in raw:
        scope = namespace_scope(selector_from(raw["namespaces"], f"{path}.namespaces"), None, "namespaces")
        return [Peer(PeerKind.PODS, f"all pods in {scope.text}", namespaces=scope)]
    if "pods" in raw:
        pods = raw["pods"] if isinstance(raw["pods"], dict) else {}
        ns_sel = selector_from(pods.get("namespaceSelector"), f"{path}.pods.namespaceSelector")
        pod_sel = selector_from(pods.get("podSelector"), f"{path}.pods.podSelector")
        scope = namespace_scope(ns_sel, None)
        every = pod_sel.is_empty()
        text = "all pods" if every else f"pods {selector_text(pod_sel)}"
        return [Peer(PeerKind.PODS, f"{text} in {scope.text}", namespaces=scope, all_pods=every)]
    if "nodes" in raw:
        return [Peer(PeerKind.CLUSTER_HOSTS, "nodes")]
    if "networks" in raw:
        nets = raw["networks"] if isinstance(raw["networks"], list) else []
        return [Peer(PeerKind.CIDR, f"network {n}", cidr=str(n)) for n in nets]
    if "domainNames" in raw:
        names = raw["domainNames"] if isinstance(raw["domainNames"], list) else []
        return [Peer(PeerKind.FQDN, f"domain {n}") for n in names]
    raise SpecError(f"{path} has no peer this auditor reads ({', '.join(raw) or 'empty'})")


def _anp_ports(rule: dict[str, Any], path: str) -> tuple[PortRange, ...] | None:
    if "ports" in rule and rule["ports"] is not None:
        out = []
        for i, p in enumerate(rule["ports"] or []):
            if not isinstance(p, dict):
                raise SpecError(f"{path}.ports[{i}] is not a port")
            if "portNumber" in p:
                out.append(port_range(p["portNumber"].get("protocol", "TCP"), p["portNumber"].get("port")))
            elif "namedPort" in p:
                out.append(PortRange(None, name=str(p["namedPort"])))
            elif "portRange" in p:
                r = p["portRange"]
                out.append(port_range(r.get("protocol", "TCP"), r.get("start"), r.get("end")))
            else:
                raise SpecError(f"{path}.ports[{i}] is not a port this auditor reads")
        return tuple(out) or None
    if "protocols" in rule and rule["protocols"] is not None:  # v1alpha2
        out = []
        for p in rule["protocols"] or []:
            for proto in ("tcp", "udp", "sctp"):
                if isinstance(p, dict) and isinstance(p.get(proto), dict):
                    dest = p[proto].get("destinationPort") or {}
                    rng = dest.get("range") or {}
                    out.append(port_range(proto, dest.get("number", rng.get("start")), rng.get("end")))
            if isinstance(p, dict) and "destinationNamedPort" in p:
                out.append(PortRange(None, name=str(p["destinationNamedPort"])))
        return tuple(out) or None
    return None


def _anp_everything(direction: Direction, peers: Iterable[Peer]) -> bool:
    """ANP `networks` match cluster addresses too; ingress peers can only be namespaces or pods, so
    `namespaces: {}` is the widest ingress an admin policy can write."""
    for p in peers:
        net = p.net()
        if p.kind == PeerKind.CIDR and net is not None and net.prefixlen == 0 and not p.except_:
            return True
        scope = p.namespaces
        if direction == "Ingress" and p.kind == PeerKind.PODS and scope and scope.everything and p.all_pods:
            return True
    return False


def _admin(fact: StoredFact[K8sNetworkPolicy]) -> list[PolicyView]:
    rec = fact.record
    spec = rec.spec
    problems: list[str] = []
    subject = spec.get("subject") or {}
    ns_sel: LabelSelector | None = None
    pod_sel = LabelSelector()
    try:
        if "namespaces" in subject:
            ns_sel = selector_from(subject["namespaces"], "spec.subject.namespaces")
        elif "pods" in subject:
            ns_sel = selector_from(
                subject["pods"].get("namespaceSelector"), "spec.subject.pods.namespaceSelector"
            )
            pod_sel = selector_from(subject["pods"].get("podSelector"), "spec.subject.pods.podSelector")
        else:
            problems.append("spec.subject selects nothing this auditor reads")
    except (SpecError, AttributeError) as exc:
        problems.append(str(exc))

    def applies(_name: str, labels: Mapping[str, str]) -> Tri:
        if ns_sel is None or not ns_sel.matches(dict(labels)):
            return False
        return True if pod_sel.is_empty() else None

    rules: list[Rule] = []
    for direction, key, peer_key in (("Ingress", "ingress", "from"), ("Egress", "egress", "to")):
        for i, raw in enumerate(spec.get(key) or []):
            where = f"{key}[{i}]" + (
                f" {raw.get('name')!r}" if isinstance(raw, dict) and raw.get("name") else ""
            )
            try:
                action = _ANP_ACTIONS.get(str(raw.get("action")))
                if action is None:
                    raise SpecError(
                        f"spec.{key}[{i}].action {raw.get('action')!r} is not Allow, Deny or Pass"
                    )
                peers = tuple(
                    p
                    for j, x in enumerate(raw.get(peer_key) or [])
                    for p in _anp_peer(x, f"{where}.{peer_key}[{j}]")
                )
                ports = _anp_ports(raw, f"spec.{key}[{i}]")
            except (SpecError, AttributeError, TypeError) as exc:
                problems.append(f"{where}: {exc}")
                continue
            d = cast(Direction, direction)
            every = ports is None and _anp_everything(d, peers)
            rules.append(Rule(d, action, peers, ports, where, everything=every))
    layer = Layer.ADMIN if rec.flavor == PolicyFlavor.ADMIN else Layer.BASELINE
    priority = spec.get("priority")
    order = float(priority) if isinstance(priority, int | float) else 0.0
    return [PolicyView(fact, layer, order, tuple(rules), frozenset(), applies, tuple(problems))]


# --- entry point -----------------------------------------------------------------------------------


def read_policy(fact: StoredFact[K8sNetworkPolicy]) -> list[PolicyView]:
    """One view per independent rule set (a Cilium `specs` list gives several)."""
    from checks.k8s_cni import calico, cilium  # noqa: PLC0415 (k8s_cni imports this module)

    flavor = fact.record.flavor
    if flavor == PolicyFlavor.KUBERNETES:
        return _kubernetes(fact)
    if flavor in (PolicyFlavor.CILIUM, PolicyFlavor.CILIUM_CLUSTERWIDE):
        return cilium(fact)
    if flavor in (PolicyFlavor.CALICO, PolicyFlavor.CALICO_GLOBAL):
        return calico(fact)
    return _admin(fact)


def read_policies(facts: Iterable[StoredFact[K8sNetworkPolicy]]) -> list[PolicyView]:
    return [view for fact in facts for view in read_policy(fact)]


def cidr_is_everything(cidr: str | None) -> bool:
    net = network(cidr) if cidr else None
    return net is not None and net.prefixlen == 0
