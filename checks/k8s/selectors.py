"""Kubernetes label selectors as the policy readers need them: read from raw specs, described for
humans, and turned into a witness (the labels of a pod the selector selects, nothing more)."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from auditor.facts.kubernetes import LabelSelector, SelectorRequirement
from checks.k8s.ir import ALL_V4, Peer, PeerKind
from checks.lateral.addresses import IPSet

_OPERATORS = ("In", "NotIn", "Exists", "DoesNotExist")


class SpecError(ValueError):
    """A part of a policy spec has a shape the API would not accept; the message names the field."""


def selector_from(raw: object, path: str, key_map: Callable[[str], str] | None = None) -> LabelSelector:
    """A metav1.LabelSelector from its raw JSON form; `key_map` rewrites keys (Cilium source prefixes)."""
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
            SelectorRequirement(
                key=fix(e["key"]), operator=e["operator"], values=[str(v) for v in e.get("values") or []]
            )
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


def witness(
    sel: LabelSelector, skip: Callable[[str], bool] = lambda _k: False
) -> tuple[tuple[str, str], ...] | None:
    """The fewest labels a pod needs to be selected (keys `skip` accepts are left to the caller)."""
    labels = {k: v for k, v in sel.match_labels.items() if not skip(k)}
    for req in sel.match_expressions:
        if skip(req.key):
            continue
        if req.operator == "In" and req.key not in labels:
            if not req.values:
                return None
            labels[req.key] = req.values[0]
        elif req.operator == "Exists" and req.key not in labels:
            labels[req.key] = "present"
    for req in sel.match_expressions:
        if skip(req.key):
            continue
        if not LabelSelector(match_expressions=[req]).matches(labels):
            return None
    return tuple(sorted(labels.items()))


def covers_everything(peers: Iterable[Peer]) -> bool:
    """Do these peers together match every pod of every namespace and every IPv4 address?"""
    items = list(peers)
    if any(p.is_everything() for p in items):
        return True
    every_pod = any(p.kind == PeerKind.PODS and p.all_namespaces and p.all_pods for p in items)
    space = IPSet()
    for p in items:
        if p.kind == PeerKind.ADDRESSES:
            space = space.union(p.block)
        elif p.kind == PeerKind.WORLD:
            space = ALL_V4
    return every_pod and ALL_V4.issubset(space)
