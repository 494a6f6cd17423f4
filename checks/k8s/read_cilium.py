"""CiliumNetworkPolicy and CiliumClusterwideNetworkPolicy (cilium.io/v2) read into Policies.

Semantics (docs.cilium.io "Layer 3/4 policies", "Policy Enforcement Modes", "Deny Policies"): a rule set
selecting an endpoint with a non-empty ingress/ingressDeny (egress/egressDeny) list puts it in default
deny for that direction, unless `enableDefaultDeny` turns that off; the L3 fields of one rule
(fromEndpoints, fromEntities, fromCIDR, fromCIDRSet, ...) are alternatives; a rule with ports and no L3
field matches every peer on those ports; `{}` matches nothing; deny rules win over allow rules. Labels
carry source prefixes (`k8s:`, `any:`); pods carry `io.kubernetes.pod.namespace`, their namespace's
labels as `io.cilium.k8s.namespace.labels.<key>` and their service account as
`io.cilium.k8s.policy.serviceaccount`. In a CNP an endpoint selector without a namespace label is
confined to the policy's namespace; in a CCNP it spans every namespace. CIDR rules match addresses
outside the cluster only; entities: `world` (outside), `cluster` (every pod, and the nodes), `all`,
`host`/`remote-node`/`kube-apiserver`/... (nodes).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from auditor.facts.kubernetes import K8sNetworkPolicy, K8sService, LabelSelector, PolicyFlavor
from checks.k8s.ir import Action, Direction, Layer, NsLabels, Peer, PeerKind, Policy, PortSpec, Rule
from checks.k8s.selectors import SpecError, covers_everything, selector_from, selector_text, witness
from checks.k8s.workloads import Workload, with_service_account
from checks.lateral.addresses import IPSet

CILIUM_NS = "io.kubernetes.pod.namespace"
CILIUM_NS_LABELS = "io.cilium.k8s.namespace.labels."
CILIUM_SA = "io.cilium.k8s.policy.serviceaccount"
CILIUM_CLUSTER = "io.cilium.k8s.policy.cluster"
CLUSTER_NAME = "default"  # Cilium's cluster name unless cluster mesh names it
_SOURCES = ("k8s:", "any:", "container:", "unspec:")
_WORLD = frozenset({"world", "world-ipv4", "world-ipv6"})
_NODES = frozenset({"host", "remote-node", "kube-apiserver", "health", "init", "ingress", "unmanaged"})


def _key(key: str) -> str:
    for prefix in _SOURCES:
        if key.startswith(prefix):
            return key[len(prefix) :]
    return key


def _is_ns_key(key: str) -> bool:
    return key == CILIUM_NS or key.startswith(CILIUM_NS_LABELS)


def _is_meta_key(key: str) -> bool:
    return _is_ns_key(key) or key.startswith(("io.cilium.", "reserved:"))


def cilium_view(pod: Workload, ns_labels: NsLabels) -> dict[str, str]:
    """The labels Cilium gives a pod's endpoint."""
    view = pod.label_map
    view[CILIUM_NS] = pod.namespace
    view[CILIUM_SA] = pod.service_account
    view[CILIUM_CLUSTER] = CLUSTER_NAME
    for k, v in ns_labels(pod.namespace).items():
        view[CILIUM_NS_LABELS + k] = v
    return view


def _account(sel: LabelSelector) -> str | None:
    """The service account a selector requires (its serviceaccount label), for representatives."""
    if CILIUM_SA in sel.match_labels:
        return sel.match_labels[CILIUM_SA]
    for req in sel.match_expressions:
        if req.key == CILIUM_SA and req.operator == "In" and req.values:
            return req.values[0]
    return None


def _has_ns_key(sel: LabelSelector) -> bool:
    return any(_is_ns_key(k) for k in sel.match_labels) or any(
        _is_ns_key(r.key) for r in sel.match_expressions
    )


def _endpoints(sel: LabelSelector, own: str | None, path: str) -> Peer:
    reserved = [k for k in sel.match_labels if k.startswith("reserved:")]
    if reserved:
        return _entity(reserved[0].split(":", 1)[1], path)[0]
    confined = own if own is not None and not _has_ns_key(sel) else None
    pod_keys = [k for k in sel.match_labels if not _is_meta_key(k)] + [
        r.key for r in sel.match_expressions if not _is_meta_key(r.key)
    ]

    def match(pod: Workload, ns_labels: NsLabels) -> bool:
        if confined is not None and pod.namespace != confined:
            return False
        return sel.matches(cilium_view(pod, ns_labels))

    ns_part = LabelSelector(
        match_labels={k: v for k, v in sel.match_labels.items() if _is_ns_key(k)},
        match_expressions=[r for r in sel.match_expressions if _is_ns_key(r.key)],
    )

    def in_namespace(name: str, labels: Mapping[str, str]) -> bool:
        if confined is not None and name != confined:
            return False
        return ns_part.matches({CILIUM_NS: name, **{CILIUM_NS_LABELS + k: v for k, v in labels.items()}})

    where = f"namespace {confined}" if confined else ("every namespace" if not _has_ns_key(sel) else "")
    text = f"{path} {selector_text(sel)}" + (f" in {where}" if where else "")
    return Peer(
        PeerKind.PODS,
        text,
        pods=match,
        all_namespaces=confined is None and not _has_ns_key(sel),
        all_pods=not pod_keys,
        namespace=confined,
        witness=with_service_account(witness(sel, _is_meta_key), _account(sel)),
        key=text,
        in_namespace=in_namespace,
    )


def _entity(name: str, path: str) -> list[Peer]:
    text = f"{path} {name}"
    if name == "all":
        return [Peer(PeerKind.ANY, text, key=text)]
    if name in _WORLD:
        block = IPSet.all_v4() if name == "world-ipv4" else IPSet.everything()
        if name == "world-ipv6":
            block = IPSet.everything().subtract(IPSet.all_v4())
        return [
            Peer(PeerKind.WORLD if name != "world-ipv6" else PeerKind.ADDRESSES, text, block=block, key=text)
        ]
    if name == "cluster":
        every = Peer(
            PeerKind.PODS,
            text,
            pods=lambda _p, _n: True,
            all_namespaces=True,
            all_pods=True,
            witness=(),
            key=text,
        )
        return [every, Peer(PeerKind.NODES, f"{text} (nodes)", key=f"{text} nodes")]
    if name in _NODES:
        return [Peer(PeerKind.NODES, text, key=text)]
    raise SpecError(f"{path}: unknown entity {name!r}")


def _service_peer(ref: Mapping[str, Any], own: str | None, services: Sequence[K8sService], text: str) -> Peer:
    """toServices: the pods behind the Service (its selector) and its cluster IP."""
    if ref.get("selector"):
        raise SpecError(
            f"{text}: k8sServiceSelector is not evaluated (Service labels are not in the evidence)"
        )
    name = ref.get("serviceName")
    namespace = ref.get("namespace") or own
    chosen = [s for s in services if (namespace is None or s.namespace == namespace) and s.name == name]
    return service_peer(chosen, f"{text} {namespace or '*'}/{name}")


def service_peer(chosen: Sequence[K8sService], text: str) -> Peer:
    """A peer matching the pods the Services select and their cluster IPs."""
    selectors = [(s.namespace, dict(s.selector)) for s in chosen if s.selector]
    block = IPSet.parse(*[s.cluster_ip for s in chosen if s.cluster_ip and s.cluster_ip != "None"])

    def match(pod: Workload, _ns: NsLabels) -> bool:
        labels = pod.label_map
        return any(
            pod.namespace == ns and all(labels.get(k) == v for k, v in sel.items()) for ns, sel in selectors
        )

    return Peer(
        PeerKind.SERVICE, text, pods=match, block=block, names=tuple(s.name for s in chosen), key=text
    )


@dataclass(frozen=True)
class CidrGroup:
    """A CiliumCIDRGroup: the external CIDRs a `cidrGroupRef` or `cidrGroupSelector` names."""

    name: str
    labels: Mapping[str, str]
    block: IPSet


def cidr_group(rec: K8sNetworkPolicy) -> CidrGroup:
    cidrs = rec.spec.get("externalCIDRs") or []
    if not isinstance(cidrs, list):
        raise SpecError("spec.externalCIDRs is not a list")
    return CidrGroup(rec.name, dict(rec.labels), IPSet.parse(*[str(c) for c in cidrs]))


def _groups(item: object, groups: Mapping[str, CidrGroup], path: str) -> tuple[IPSet | None, str]:
    """The addresses of the CIDR groups a CIDR-set item names, or None when the evidence lacks them."""
    if not isinstance(item, dict):
        raise SpecError(f"{path} is not a CIDR rule")
    if item.get("cidrGroupRef"):
        ref = str(item["cidrGroupRef"])
        group = groups.get(ref)
        return (group.block if group else None), f"cidrGroupRef {ref}"
    if item.get("cidrGroupSelector") is not None:
        sel = selector_from(item["cidrGroupSelector"], f"{path}.cidrGroupSelector", _key)
        chosen = [g for g in groups.values() if sel.matches(dict(g.labels))]
        text = f"cidrGroupSelector {selector_text(sel)}"
        if not chosen:
            return None, text
        block = IPSet()
        for g in chosen:
            block = block.union(g.block)
        return block, f"{text} ({', '.join(g.name for g in chosen)})"
    raise SpecError(f"{path} names no cidr, cidrGroupRef or cidrGroupSelector")


def _peers(
    rule: dict[str, Any],
    side: str,
    own: str | None,
    services: Sequence[K8sService],
    path: str,
    groups: Mapping[str, CidrGroup],
) -> list[Peer]:
    peers: list[Peer] = []
    for i, raw in enumerate(rule.get(f"{side}Endpoints") or []):
        peers.append(
            _endpoints(selector_from(raw, f"{path}.{side}Endpoints[{i}]", _key), own, f"{side}Endpoints")
        )
    for name in rule.get(f"{side}Entities") or []:
        peers += _entity(str(name), f"{side}Entities")
    for cidr in rule.get(f"{side}CIDR") or []:
        text = f"{side}CIDR {cidr}"
        peers.append(Peer(PeerKind.ADDRESSES, text, block=IPSet.parse(str(cidr)), key=text))
    for j, item in enumerate(rule.get(f"{side}CIDRSet") or []):
        excepts = [str(x) for x in item.get("except") or []] if isinstance(item, dict) else []
        but = f" except {', '.join(excepts)}" if excepts else ""
        if isinstance(item, dict) and item.get("cidr"):
            block = IPSet.parse(str(item["cidr"])).subtract(IPSet.parse(*excepts))
            text = f"{side}CIDRSet {item['cidr']}{but}"
            peers.append(Peer(PeerKind.ADDRESSES, text, block=block, key=text))
            continue
        found, what = _groups(item, groups, f"{path}.{side}CIDRSet[{j}]")
        if found is None:
            peers.append(Peer(PeerKind.UNKNOWN, f"{side}CIDRSet {what}", key=f"group {what}"))
            continue
        text = f"{side}CIDRSet {what}{but}"
        peers.append(Peer(PeerKind.ADDRESSES, text, block=found.subtract(IPSet.parse(*excepts)), key=text))
    if rule.get(f"{side}Groups"):
        peers.append(Peer(PeerKind.UNKNOWN, f"{side}Groups (cloud provider groups)", key="groups"))
    if rule.get(f"{side}Nodes"):
        peers.append(Peer(PeerKind.NODES, f"{side}Nodes", key="nodes"))
    if rule.get(f"{side}Requires"):
        raise SpecError(f"{path}.{side}Requires is not evaluated (deprecated in Cilium)")
    if side == "to":
        for j, svc in enumerate(rule.get("toServices") or []):
            ref = svc.get("k8sService") or svc.get("k8sServiceSelector") if isinstance(svc, dict) else None
            if not isinstance(ref, dict):
                raise SpecError(f"{path}.toServices[{j}] names no k8sService")
            peers.append(_service_peer(ref, own, services, "toServices"))
        for fq in rule.get("toFQDNs") or []:
            name = str(fq.get("matchName") or fq.get("matchPattern")) if isinstance(fq, dict) else str(fq)
            peers.append(Peer(PeerKind.FQDN, f"toFQDNs {name}", names=(name,), key=f"fqdn {name}"))
    return peers


def _ports(rule: dict[str, Any], path: str) -> tuple[PortSpec, ...] | None:
    out: list[PortSpec] = []
    for i, tp in enumerate(rule.get("toPorts") or []):
        ports = tp.get("ports") if isinstance(tp, dict) else None
        if not ports:
            return None  # a toPorts entry without ports: every port
        for j, p in enumerate(ports):
            if not isinstance(p, dict):
                raise SpecError(f"{path}.toPorts[{i}].ports[{j}] is not a port")
            proto = str(p.get("protocol") or "ANY").upper()
            protocol = None if proto == "ANY" else proto
            port = p.get("port")
            if port in (None, "", 0, "0"):
                out.append(PortSpec(protocol))
            elif isinstance(port, str) and not port.isdigit():
                out.append(PortSpec(protocol, name=port))
            else:
                lo = int(port)
                end = p.get("endPort")
                out.append(PortSpec(protocol, lo, int(end) if end else lo))
    if rule.get("icmps"):
        out.append(PortSpec("ICMP", other=True))
    return tuple(out) if out else None


def _rule(
    raw: object,
    key: str,
    i: int,
    own: str | None,
    services: Sequence[K8sService],
    prefix: str,
    groups: Mapping[str, CidrGroup],
) -> Rule:
    path = f"{prefix}{key}[{i}]"
    if not isinstance(raw, dict):
        raise SpecError(f"{path} is not a rule")
    action = Action.DENY if key.endswith("Deny") else Action.ALLOW
    side = "from" if key.startswith("ingress") else "to"
    peers = _peers(raw, side, own, services, path, groups)
    has_ports = bool(raw.get("toPorts") or raw.get("icmps"))
    if not peers and not has_ports:
        return Rule(action, (), (), path)  # `{}` matches nothing
    ports = _ports(raw, path) if has_ports else None
    if not peers:
        return Rule(action, None, ports, path, everything_peers=True)
    return Rule(action, tuple(peers), ports, path, everything_peers=covers_everything(peers))


def cilium_policies(
    rec: K8sNetworkPolicy,
    ref: object,
    services: Sequence[K8sService],
    groups: Mapping[str, CidrGroup] | None = None,
) -> tuple[list[Policy], list[str]]:
    """One Policy per rule set (a `specs` list gives several), and what could not be read."""
    own = rec.namespace if rec.flavor == PolicyFlavor.CILIUM else None
    specs = rec.spec["specs"] if set(rec.spec) == {"specs"} else [rec.spec]
    kind = "CiliumNetworkPolicy" if own is not None else "CiliumClusterwideNetworkPolicy"
    where = f"{own}/" if own else ""
    out: list[Policy] = []
    problems: list[str] = []
    for n, spec in enumerate(specs):
        prefix = f"specs[{n}]." if len(specs) > 1 else ""
        if not isinstance(spec, dict):
            problems.append(f"{prefix or 'spec'} is not a rule set")
            continue
        try:
            label = f"{kind} {where}{rec.name}"
            out.append(_view(rec, ref, spec, own, services, prefix, label, groups or {}))
        except (SpecError, AttributeError, TypeError, ValueError) as exc:
            problems.append(str(exc))
    return out, problems


def _view(
    rec: K8sNetworkPolicy,
    ref: object,
    spec: dict[str, Any],
    own: str | None,
    services: Sequence[K8sService],
    prefix: str,
    label: str,
    groups: Mapping[str, CidrGroup],
) -> Policy:
    selects: Callable[[Workload, NsLabels], bool]
    if "nodeSelector" in spec:  # a host policy: selects nodes, never pods
        sel: LabelSelector | None = None
        selects = lambda _p, _n: False  # noqa: E731
    else:
        sel = selector_from(spec.get("endpointSelector"), f"{prefix}endpointSelector", _key)
        chosen = sel
        selects = lambda p, n: chosen.matches(cilium_view(p, n))  # noqa: E731
    raw_enable = spec.get("enableDefaultDeny")
    enable: dict[str, Any] = raw_enable if isinstance(raw_enable, dict) else {}
    isolates: set[Direction] = set()
    rules: dict[Direction, list[Rule]] = {"Ingress": [], "Egress": []}
    for key in ("ingress", "ingressDeny", "egress", "egressDeny"):
        items = spec.get(key) or []
        direction: Direction = "Ingress" if key.startswith("ingress") else "Egress"
        if items and enable.get(direction.lower(), True) is not False:
            isolates.add(direction)
        for i, raw in enumerate(items):
            rules[direction].append(_rule(raw, key, i, own, services, prefix, groups))
    wit = with_service_account(witness(sel, _is_meta_key), _account(sel)) if sel is not None else None
    return Policy(
        label=label + (f" {prefix.rstrip('.')}" if prefix else ""),
        kind="CiliumNetworkPolicy" if own is not None else "CiliumClusterwideNetworkPolicy",
        layer=Layer.NETPOL,
        order=1000.0,
        namespace=own,
        selects=selects,
        isolates=frozenset(isolates),
        ingress=tuple(rules["Ingress"]),
        egress=tuple(rules["Egress"]),
        witnesses=(wit,) if wit is not None else (),
        ref=ref,
        flavor="cilium",
    )
