"""Kubernetes NetworkPolicy (networking.k8s.io/v1) and the admin policies (policy.networking.k8s.io:
AdminNetworkPolicy, BaselineAdminNetworkPolicy, and the v1alpha2 ClusterNetworkPolicy the normalizer
maps onto them) read into Policies.

NetworkPolicy semantics (kubernetes.io "Network Policies"): a policy selecting a pod isolates it in the
directions of its policyTypes; rules are a union of allows; a peer without namespaceSelector is in the
policy's namespace; `{}` selects every namespace or pod; ipBlock (minus `except`) matches addresses, read
as netpol-analyzer does: never the cluster's own pods. Ports: numbers, `endPort` ranges, named ports
(resolved on the destination pod), protocol TCP by default.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from auditor.facts.kubernetes import K8sNetworkPolicy, LabelSelector, PolicyFlavor, PolicyPeer, PolicyPort
from checks.k8s.ir import Action, Layer, NsLabels, Peer, PeerKind, Policy, PortSpec, Rule
from checks.k8s.selectors import SpecError, covers_everything, selector_from, selector_text, witness
from checks.k8s.workloads import Workload
from checks.lateral.addresses import IPSet

NETPOL_ORDER = 1000.0  # where Calico places Kubernetes NetworkPolicies among its own (docs.tigera.io)
_ANP_ACTIONS = {"Allow": Action.ALLOW, "Accept": Action.ALLOW, "Deny": Action.DENY, "Pass": Action.PASS}


def pods_peer(
    ns_sel: LabelSelector | None, pod_sel: LabelSelector | None, own: str | None, prefix: str = ""
) -> Peer:
    """Pods in the namespaces `ns_sel` picks (None: the namespace `own`), selected by `pod_sel` (None:
    all of them)."""
    every_pod = pod_sel is None or pod_sel.is_empty()
    pod_text = "all pods" if every_pod else f"pods {selector_text(pod_sel)}"  # type: ignore[arg-type]
    if ns_sel is None:
        ns_text = f"namespace {own}"
    elif ns_sel.is_empty():
        ns_text = "every namespace"
    else:
        ns_text = f"namespaces {selector_text(ns_sel)}"

    def match(pod: Workload, ns_labels: NsLabels) -> bool:
        if ns_sel is None:
            if pod.namespace != own:
                return False
        elif not ns_sel.matches(dict(ns_labels(pod.namespace))):
            return False
        return every_pod or pod_sel.matches(pod.label_map)  # type: ignore[union-attr]

    text = f"{prefix}{pod_text} in {ns_text}"

    def in_namespace(name: str, labels: Mapping[str, str]) -> bool:
        return name == own if ns_sel is None else ns_sel.matches(dict(labels))

    return Peer(
        PeerKind.PODS,
        text,
        pods=match,
        all_namespaces=ns_sel is not None and ns_sel.is_empty(),
        all_pods=every_pod,
        namespace=own if ns_sel is None else None,
        witness=() if every_pod else witness(pod_sel),  # type: ignore[arg-type]
        key=text,
        in_namespace=in_namespace,
    )


def _np_peer(peer: PolicyPeer, own: str) -> Peer:
    if peer.ip_block is not None:
        block = IPSet.parse(peer.ip_block.cidr).subtract(IPSet.parse(*peer.ip_block.except_))
        excepts = f" except {', '.join(peer.ip_block.except_)}" if peer.ip_block.except_ else ""
        text = f"ipBlock {peer.ip_block.cidr}{excepts}"
        return Peer(PeerKind.ADDRESSES, text, block=block, key=text)
    return pods_peer(peer.namespace_selector, peer.pod_selector, own)


def _np_port(port: PolicyPort) -> PortSpec:
    protocol = port.protocol.upper()
    if port.port is None:
        return PortSpec(protocol)
    if isinstance(port.port, str) and not port.port.isdigit():
        return PortSpec(protocol, name=port.port)
    number = int(port.port)
    return PortSpec(protocol, number, port.end_port or number)


def network_policy(rec: K8sNetworkPolicy, ref: object) -> Policy:
    own = rec.namespace or "default"
    selector = rec.pod_selector

    def selects(pod: Workload, _ns: NsLabels) -> bool:
        return selector.matches(pod.label_map)

    def rules(direction: str) -> tuple[Rule, ...]:
        out = []
        for i, r in enumerate(rec.ingress if direction == "ingress" else rec.egress):
            peers = tuple(_np_peer(p, own) for p in r.peers) or None
            ports = tuple(_np_port(p) for p in r.ports) or None
            every = peers is None or covers_everything(peers)
            out.append(Rule(Action.ALLOW, peers, ports, f"{direction}[{i}]", everything_peers=every))
        return tuple(out)

    wit = witness(selector)
    return Policy(
        label=f"NetworkPolicy {own}/{rec.name}",
        kind="NetworkPolicy",
        layer=Layer.NETPOL,
        order=NETPOL_ORDER,
        namespace=own,
        selects=selects,
        isolates=frozenset(rec.policy_types),
        ingress=rules("ingress"),
        egress=rules("egress"),
        witnesses=(wit,) if wit is not None else (),
        ref=ref,
        flavor="kubernetes",
    )


# --- AdminNetworkPolicy / BaselineAdminNetworkPolicy ----------------------------------------------


def _mapping(value: object, path: str) -> dict[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise SpecError(f"{path} must be a mapping")
    return value


def _list(value: object, path: str) -> list[Any]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise SpecError(f"{path} must be a list")
    return value


def _admin_peer(raw: object, path: str) -> list[Peer]:
    peer = _mapping(raw, path)
    if "namespaces" in peer:
        return [pods_peer(selector_from(peer["namespaces"], f"{path}.namespaces"), None, None)]
    if "pods" in peer:
        pods = _mapping(peer["pods"], f"{path}.pods")
        ns_sel = selector_from(pods.get("namespaceSelector"), f"{path}.pods.namespaceSelector")
        pod_sel = selector_from(pods.get("podSelector"), f"{path}.pods.podSelector")
        return [pods_peer(ns_sel, pod_sel, None)]
    if "networks" in peer:
        nets = [str(n) for n in _list(peer["networks"], f"{path}.networks")]
        text = f"networks {', '.join(nets)}"
        return [Peer(PeerKind.ADDRESSES, text, block=IPSet.parse(*nets), selects_pods=True, key=text)]
    if "nodes" in peer:
        return [Peer(PeerKind.NODES, "nodes", key="nodes")]
    if "domainNames" in peer:
        names = tuple(str(n) for n in _list(peer["domainNames"], f"{path}.domainNames"))
        return [Peer(PeerKind.FQDN, f"domainNames {', '.join(names)}", names=names, key=f"fqdn {names}")]
    raise SpecError(f"{path} has no peer this auditor reads ({', '.join(peer) or 'empty'})")


def _admin_ports(rule: dict[str, Any], path: str) -> tuple[PortSpec, ...] | None:
    if rule.get("ports") is not None:
        out = []
        for i, raw in enumerate(_list(rule["ports"], f"{path}.ports")):
            port = _mapping(raw, f"{path}.ports[{i}]")
            if "portNumber" in port:
                number = _mapping(port["portNumber"], f"{path}.ports[{i}].portNumber")
                value = int(number["port"])
                out.append(PortSpec(str(number.get("protocol") or "TCP").upper(), value, value))
            elif "portRange" in port:
                span = _mapping(port["portRange"], f"{path}.ports[{i}].portRange")
                out.append(
                    PortSpec(str(span.get("protocol") or "TCP").upper(), int(span["start"]), int(span["end"]))
                )
            elif "namedPort" in port:
                out.append(PortSpec(None, name=str(port["namedPort"])))
            else:
                raise SpecError(f"{path}.ports[{i}] is not portNumber, portRange or namedPort")
        return tuple(out)
    if rule.get("protocols") is not None:  # v1alpha2 ClusterNetworkPolicy
        out = []
        for raw in _list(rule["protocols"], f"{path}.protocols"):
            item = _mapping(raw, f"{path}.protocols[]")
            for proto in ("tcp", "udp", "sctp"):
                if isinstance(item.get(proto), dict):
                    dest = item[proto].get("destinationPort") or {}
                    rng = dest.get("range") or {}
                    lo = dest.get("number", rng.get("start"))
                    hi = rng.get("end", lo)
                    out.append(
                        PortSpec(
                            proto.upper(), None if lo is None else int(lo), None if hi is None else int(hi)
                        )
                    )
            if "destinationNamedPort" in item:
                out.append(PortSpec(None, name=str(item["destinationNamedPort"])))
        return tuple(out)
    return None


def admin_policy(rec: K8sNetworkPolicy, ref: object) -> Policy:
    """Raises SpecError for a spec the API would refuse (the caller reports it, never guesses)."""
    spec = rec.spec
    baseline = rec.flavor == PolicyFlavor.BASELINE_ADMIN
    priority = spec.get("priority", 0 if baseline else None)
    if isinstance(priority, bool) or not isinstance(priority, int | float):
        raise SpecError("spec.priority must be a number")
    subject = _mapping(spec.get("subject"), "spec.subject")
    if "namespaces" in subject:
        ns_sel = selector_from(subject["namespaces"], "spec.subject.namespaces")
        pod_sel = LabelSelector()
    elif "pods" in subject:
        pods = _mapping(subject["pods"], "spec.subject.pods")
        ns_sel = selector_from(pods.get("namespaceSelector"), "spec.subject.pods.namespaceSelector")
        pod_sel = selector_from(pods.get("podSelector"), "spec.subject.pods.podSelector")
    else:
        raise SpecError("spec.subject must select namespaces or pods")

    def selects(pod: Workload, ns_labels: NsLabels) -> bool:
        return ns_sel.matches(dict(ns_labels(pod.namespace))) and pod_sel.matches(pod.label_map)

    def rules(key: str, peers_key: str) -> tuple[Rule, ...]:
        out = []
        for i, raw in enumerate(_list(spec.get(key), f"spec.{key}")):
            rule = _mapping(raw, f"spec.{key}[{i}]")
            action = _ANP_ACTIONS.get(str(rule.get("action")))
            if action is None:
                raise SpecError(f"spec.{key}[{i}].action {rule.get('action')!r} is not Allow, Deny or Pass")
            where = f"{key}[{i}]" + (f" {rule['name']!r}" if rule.get("name") else "")
            peers = tuple(
                p
                for j, x in enumerate(_list(rule.get(peers_key), f"spec.{key}[{i}].{peers_key}"))
                for p in _admin_peer(x, f"spec.{key}[{i}].{peers_key}[{j}]")
            )
            # admin ingress peers can only be pods: `namespaces: {}` is the widest ingress one can write
            every = covers_everything(peers) or (
                key == "ingress"
                and any(p.kind == PeerKind.PODS and p.all_namespaces and p.all_pods for p in peers)
            )
            out.append(
                Rule(action, peers, _admin_ports(rule, f"spec.{key}[{i}]"), where, everything_peers=every)
            )
        return tuple(out)

    wit = witness(pod_sel)
    kind = "BaselineAdminNetworkPolicy" if baseline else "AdminNetworkPolicy"
    label = f"{kind} {rec.name}" if baseline else f"{kind} {rec.name} (priority {priority})"
    return Policy(
        label=label,
        kind=kind,
        layer=Layer.BASELINE if baseline else Layer.ADMIN,
        order=float(priority),
        namespace=None,
        selects=selects,
        ingress=rules("ingress", "from"),
        egress=rules("egress", "to"),
        witnesses=(wit,) if wit is not None else (),
        ref=ref,
        flavor="baseline" if baseline else "admin",
    )
