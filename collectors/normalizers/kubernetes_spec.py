"""Parse the parts of a networking.k8s.io/v1 NetworkPolicy spec into fact parts, strictly.

Strict on purpose: the API server rejects a policy of the wrong shape, so such a policy is not in force
and must be reported, not guessed at. Defaults are the API server's own (policyTypes, protocol TCP).
"""

from __future__ import annotations

from typing import Any, Literal, cast

from auditor.facts.kubernetes import (
    IpBlock,
    LabelSelector,
    PolicyPeer,
    PolicyPort,
    PolicyRule,
    SelectorRequirement,
)

_OPERATORS = ("In", "NotIn", "Exists", "DoesNotExist")
PolicyType = Literal["Ingress", "Egress"]


class ShapeError(ValueError):
    """A field has a type or value the Kubernetes API would reject; the message names the field path."""


def mapping(value: object, path: str, *, allow_none: bool = True) -> dict[str, Any]:
    if value is None and allow_none:
        return {}
    if not isinstance(value, dict):
        raise ShapeError(f"{path} must be a mapping, not {_type_name(value)}")
    return cast(dict[str, Any], value)


def sequence(value: object, path: str) -> list[Any]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise ShapeError(f"{path} must be a list, not {_type_name(value)}")
    return value


def string(value: object, path: str) -> str:
    if not isinstance(value, str):
        raise ShapeError(f"{path} must be a string, not {_type_name(value)}")
    return value


def string_map(value: object, path: str) -> dict[str, str]:
    return {string(k, f"{path} key"): string(v, f"{path}.{k}") for k, v in mapping(value, path).items()}


def _type_name(value: object) -> str:
    return "null" if value is None else type(value).__name__


def label_selector(value: object, path: str) -> LabelSelector:
    """A metav1.LabelSelector; null or {} is the empty selector (selects everything)."""
    raw = mapping(value, path)
    expressions = []
    for index, item in enumerate(sequence(raw.get("matchExpressions"), f"{path}.matchExpressions")):
        where = f"{path}.matchExpressions[{index}]"
        expr = mapping(item, where, allow_none=False)
        operator = string(expr.get("operator"), f"{where}.operator")
        if operator not in _OPERATORS:
            raise ShapeError(f"{where}.operator must be one of {', '.join(_OPERATORS)}, not {operator!r}")
        values = [string(v, f"{where}.values") for v in sequence(expr.get("values"), f"{where}.values")]
        expressions.append(
            SelectorRequirement(
                key=string(expr.get("key"), f"{where}.key"),
                operator=cast(Literal["In", "NotIn", "Exists", "DoesNotExist"], operator),
                values=values,
            )
        )
    return LabelSelector(
        match_labels=string_map(raw.get("matchLabels"), f"{path}.matchLabels"),
        match_expressions=expressions,
    )


def _optional_selector(raw: dict[str, Any], key: str, path: str) -> LabelSelector | None:
    value = raw.get(key)
    return None if value is None else label_selector(value, f"{path}.{key}")


def _peer(value: object, path: str) -> PolicyPeer:
    raw = mapping(value, path, allow_none=False)
    ip_block = None
    if raw.get("ipBlock") is not None:
        block = mapping(raw["ipBlock"], f"{path}.ipBlock")
        excepts = sequence(block.get("except"), f"{path}.ipBlock.except")
        ip_block = IpBlock(
            cidr=string(block.get("cidr"), f"{path}.ipBlock.cidr"),
            except_=[string(c, f"{path}.ipBlock.except") for c in excepts],
        )
    peer = PolicyPeer(
        pod_selector=_optional_selector(raw, "podSelector", path),
        namespace_selector=_optional_selector(raw, "namespaceSelector", path),
        ip_block=ip_block,
    )
    if peer.pod_selector is None and peer.namespace_selector is None and peer.ip_block is None:
        raise ShapeError(f"{path} must set podSelector, namespaceSelector or ipBlock")
    return peer


def _port(value: object, path: str) -> PolicyPort:
    raw = mapping(value, path)
    protocol = raw.get("protocol")
    port = raw.get("port")
    end_port = raw.get("endPort")
    if port is not None and (isinstance(port, bool) or not isinstance(port, int | str)):
        raise ShapeError(f"{path}.port must be a number or a port name, not {_type_name(port)}")
    if end_port is not None and (isinstance(end_port, bool) or not isinstance(end_port, int)):
        raise ShapeError(f"{path}.endPort must be a number, not {_type_name(end_port)}")
    return PolicyPort(
        protocol="TCP" if protocol is None else string(protocol, f"{path}.protocol"),
        port=port,
        end_port=end_port,
    )


def rule(value: object, peers_key: str, path: str) -> PolicyRule:
    """One ingress (`from`) or egress (`to`) rule; a null rule is the empty rule, as the API decodes it."""
    raw = mapping(value, path)
    peers = sequence(raw.get(peers_key), f"{path}.{peers_key}")
    ports = sequence(raw.get("ports"), f"{path}.ports")
    return PolicyRule(
        peers=[_peer(p, f"{path}.{peers_key}[{i}]") for i, p in enumerate(peers)],
        ports=[_port(p, f"{path}.ports[{i}]") for i, p in enumerate(ports)],
    )


def policy_types(spec: dict[str, Any]) -> list[PolicyType]:
    """spec.policyTypes, or the API server default: Ingress, plus Egress when egress rules exist."""
    declared = sequence(spec.get("policyTypes"), "spec.policyTypes")
    if not declared:
        defaulted: list[PolicyType] = ["Ingress"]
        if sequence(spec.get("egress"), "spec.egress"):
            defaulted.append("Egress")
        return defaulted
    result: list[PolicyType] = []
    for index, item in enumerate(declared):
        if item not in ("Ingress", "Egress"):
            raise ShapeError(f"spec.policyTypes[{index}] must be Ingress or Egress, not {item!r}")
        result.append(cast(PolicyType, item))
    return result


def network_policy_parts(
    spec: dict[str, Any],
) -> tuple[LabelSelector, list[PolicyType], list[PolicyRule], list[PolicyRule]]:
    """Pod selector, policy types, ingress and egress rules of a Kubernetes NetworkPolicy spec."""
    selector = label_selector(spec.get("podSelector"), "spec.podSelector")
    types = policy_types(spec)
    ingress = [
        rule(r, "from", f"spec.ingress[{i}]")
        for i, r in enumerate(sequence(spec.get("ingress"), "spec.ingress"))
    ]
    egress = [
        rule(r, "to", f"spec.egress[{i}]") for i, r in enumerate(sequence(spec.get("egress"), "spec.egress"))
    ]
    return selector, types, ingress, egress
