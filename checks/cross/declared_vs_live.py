"""X-DECLARED-VS-LIVE: the policies in force are the ones declared as code.

The `declared` collector (collectors/declared) reads `sources.declared` (a git checkout of manifests,
per cluster) into a target of kind `declared` named `declared:<cluster>`, through the same Kubernetes
normalizer as live evidence. This check compares its policies with those of the live `kubernetes`
target named `<cluster>`, by meaning, not text: policies are matched by (flavor, namespace, name) and
compared as normalized facts (Kubernetes NetworkPolicies by their parsed selector, types and rules, in
any order; other flavors by their spec, with Cilium's order-free rule lists sorted).

Compared: the namespaces that hold declared policies or are tenants in the intent; cluster-scoped
policies only when the declared set holds some (a repo that manages namespaced policies only is not
blamed for operator-installed global ones). Added (live only), removed (declared only) and changed
policies each fail.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from auditor.enums import FactKind, Severity, Status, Tier
from auditor.facts import K8sNamespace, K8sNetworkPolicy, PolicyFlavor
from checks.base import Check, CheckContext, CheckMeta, Finding, TargetView

NEEDS = frozenset({FactKind.K8S_NETWORK_POLICY})
DECLARED_KIND = "declared"
PREFIX = "declared:"
Key = tuple[str, str, str]
_ORDERLESS_CILIUM = ("ingress", "ingressDeny", "egress", "egressDeny")


def _sorted(items: list[Any]) -> list[Any]:
    return sorted(items, key=lambda x: json.dumps(x, sort_keys=True))


def canonical(rec: K8sNetworkPolicy) -> dict[str, Any]:
    """The policy's meaning as plain data: equal when the policies behave the same."""
    if rec.flavor == PolicyFlavor.KUBERNETES:
        data = rec.model_dump(mode="json", include={"pod_selector", "policy_types", "ingress", "egress"})
        data["policy_types"] = sorted(data["policy_types"])
        for direction in ("ingress", "egress"):
            rules = [{"peers": _sorted(r["peers"]), "ports": _sorted(r["ports"])} for r in data[direction]]
            data[direction] = _sorted(rules)
        return data
    spec = json.loads(json.dumps(rec.spec))
    if rec.flavor in (PolicyFlavor.CALICO, PolicyFlavor.CALICO_GLOBAL):
        spec.pop("types", None)  # the API server fills it in from the rules: `policy_types` compares it
        _calico_defaults(spec)
    if rec.flavor in (PolicyFlavor.CILIUM, PolicyFlavor.CILIUM_CLUSTERWIDE):
        rules = spec["specs"] if set(spec) == {"specs"} else [spec]
        for rule in rules:
            for key in _ORDERLESS_CILIUM:
                if isinstance(rule.get(key), list):
                    rule[key] = _sorted([_cilium_defaults(r) for r in rule[key]])
        spec = {"specs": _sorted(rules)}
    return {"policy_types": sorted(rec.policy_types), "spec": spec}


def _calico_defaults(spec: dict[str, Any]) -> None:
    """What Calico's API server writes into a policy that its author left out, so a manifest in git and
    the object it became compare equal: `tier: default`, `selector: all()`, empty `source`/`destination`
    of a rule; ports as numbers."""
    if spec.get("tier") == "default":
        spec.pop("tier")
    if str(spec.get("selector", "")).strip() in ("", "all()"):
        spec.pop("selector", None)
    for direction in ("ingress", "egress"):
        for rule in spec.get(direction) or []:
            if not isinstance(rule, dict):
                continue
            for side in ("source", "destination"):
                entity = rule.get(side)
                if entity in ({}, None):
                    rule.pop(side, None)
                elif isinstance(entity, dict):
                    for key in ("ports", "notPorts"):
                        if isinstance(entity.get(key), list):
                            entity[key] = [_number(p) for p in entity[key]]


def _cilium_defaults(rule: Any) -> Any:
    """A Cilium rule with the CRD's defaults filled in: a port without a protocol is `ANY`, and ports
    are strings (`port: 53` and `port: "53"` are one port)."""
    if not isinstance(rule, dict):
        return rule
    for entry in rule.get("toPorts") or []:
        for port in entry.get("ports") or [] if isinstance(entry, dict) else []:
            if isinstance(port, dict):
                port.setdefault("protocol", "ANY")
                if isinstance(port.get("port"), int):
                    port["port"] = str(port["port"])
    return rule


def _number(port: Any) -> Any:
    return int(port) if isinstance(port, str) and port.isdigit() else port


# Objects Calico makes itself: a profile per namespace (`kns.`) and service account (`ksa.`), the
# default-allow profile, its built-in tiers, and `knp.default.<name>`, its read-only view of a Kubernetes
# NetworkPolicy (compared as the NetworkPolicy itself). Live-only, they are not drift.
_GENERATED_PROFILES = ("kns.", "ksa.", "projectcalico-default-allow")
_BUILTIN_TIERS = frozenset(
    {"default", "adminnetworkpolicy", "baselineadminnetworkpolicy", "kube-admin", "kube-baseline"}
)


def generated(rec: K8sNetworkPolicy) -> bool:
    """An object the CNI creates itself, never written by anyone (so never expected in git)."""
    if rec.flavor == PolicyFlavor.CALICO_PROFILE:
        return rec.name.startswith(_GENERATED_PROFILES)
    if rec.flavor == PolicyFlavor.CALICO:  # calicoctl's view of a Kubernetes NetworkPolicy
        return rec.name.startswith("knp.default.")
    return rec.flavor == PolicyFlavor.CALICO_TIER and rec.name in _BUILTIN_TIERS


def differences(a: Any, b: Any, path: str = "", limit: int = 3) -> list[str]:
    """The first few paths where `a` (declared) and `b` (live) differ, with both values."""
    if a == b:
        return []
    if isinstance(a, dict) and isinstance(b, dict):
        out: list[str] = []
        for key in sorted(set(a) | set(b)):
            out += differences(a.get(key), b.get(key), f"{path}.{key}" if path else str(key), limit)
            if len(out) >= limit:
                break
        return out[:limit]
    if isinstance(a, list) and isinstance(b, list):
        if len(a) == len(b):
            out = []
            for i, (x, y) in enumerate(zip(a, b, strict=True)):
                out += differences(x, y, f"{path}[{i}]", limit)
                if len(out) >= limit:
                    break
            return out[:limit]
        added = [x for x in b if x not in a]
        dropped = [x for x in a if x not in b]
        parts = [f"live adds {_short(x)}" for x in added] + [f"live drops {_short(x)}" for x in dropped]
        return [f"{path or 'policy'}: {', '.join(parts[:limit])}"]
    return [f"{path or 'policy'}: declared {_short(a)}, live {_short(b)}"]


def _compact(value: Any) -> Any:
    """Leave out empty and null fields: what a human would have written."""
    if isinstance(value, dict):
        return {k: _compact(v) for k, v in value.items() if v not in (None, [], {})}
    if isinstance(value, list):
        return [_compact(v) for v in value]
    return value


def _short(value: Any) -> str:
    text = "absent" if value is None else json.dumps(_compact(value), sort_keys=True)
    return text if len(text) <= 160 else text[:157] + "..."


def _key(rec: K8sNetworkPolicy) -> Key:
    """(flavor, namespace, name); a Calico policy's name without its tier prefix, which older API
    servers add (`default.allow-dns`, `security.guard`) and manifests may or may not spell."""
    name = rec.name
    if rec.flavor in (PolicyFlavor.CALICO, PolicyFlavor.CALICO_GLOBAL):
        name = name.removeprefix(f"{rec.spec.get('tier') or 'default'}.")
    return (rec.flavor.value, rec.namespace or "", name)


class DeclaredVsLive(Check):
    meta = CheckMeta(
        id="X-DECLARED-VS-LIVE",
        title="Network policies in force match those declared as code",
        tier=Tier.CROSS,
        severity=Severity.MEDIUM,
        needs=NEEDS,
        rationale=(
            "Reviewed, version-controlled policy is only a control if it is what runs. A policy edited or "
            "added by hand (kubectl edit/apply) bypasses review and silently drifts from what auditors "
            "approved (NIST SP 800-53 CM-3, CM-6; SOC 2 CC8.1)."
        ),
        remediation=(
            "Re-apply the declared policies from git (or commit the live change through review), and "
            "restrict who may write network policies outside the deployment pipeline."
        ),
    )

    def evaluate(self, ctx: CheckContext) -> Iterable[Finding]:
        declared = [t for t in ctx.targets if t.kind == DECLARED_KIND]
        if not declared:
            yield Finding(
                Status.NOT_APPLICABLE,
                "declared policies",
                "no declared policies to compare: add sources.declared (a git checkout of manifests)",
                expected="sources.declared in the audit config",
                found="none configured",
            )
            return
        ready, gaps = self.split_assessable(ctx, declared, NEEDS)
        yield from gaps
        for target in ready:
            yield from self._cluster(ctx, target)

    def _cluster(self, ctx: CheckContext, declared: TargetView) -> Iterable[Finding]:
        cluster = declared.name.removeprefix(PREFIX)
        live = next((t for t in ctx.targets if t.kind == "kubernetes" and t.name == cluster), None)
        expected = f"the live policies of {cluster} equal those of {declared.name}"
        if live is None:
            reason = f"{declared.name}: no live cluster named {cluster!r} in this run to compare with"
            yield self.not_assessed(declared.name, reason, target=declared.name, expected=expected)
            return
        _, gaps = self.split_assessable(ctx, [live], NEEDS)
        if gaps:
            yield from gaps
            return
        policies = ctx.facts.of(K8sNetworkPolicy)
        want = {_key(p.record): p for p in policies if p.target == declared.name}
        have_all = {_key(p.record): p for p in policies if p.target == live.name}
        scope = {k[1] for k in want if k[1]} | self._tenants(ctx, live.name)
        global_too = any(not k[1] for k in want)
        have = {k: p for k, p in have_all.items() if (k[1] in scope if k[1] else global_too)}
        drift = False
        for key in sorted(set(want) | set(have)):
            d, h = want.get(key), have.get(key)
            if d is not None and h is not None:
                diff = differences(canonical(d.record), canonical(h.record))
                if diff:
                    drift = True
                    found = "changed: " + "; ".join(diff)
                    yield self.failed(h.record.subject(), expected, found, d, h, target=live.name)
            elif h is not None:
                if generated(h.record):
                    continue
                drift = True
                found = f"in force but not declared in {declared.name}"
                yield self.failed(h.record.subject(), expected, found, h, target=live.name)
            elif d is not None:
                drift = True
                found = f"declared in {declared.name} but not in force"
                yield self.failed(d.record.subject(), expected, found, d, target=declared.name)
        if not drift:
            found = f"{len(want)} declared policy(ies), identical to the live ones"
            where = f"{len(scope)} namespace(s)" + (" and cluster-scoped policies" if global_too else "")
            yield self.passed(
                f"{cluster}: declared policies",
                expected,
                f"{found} ({where} compared)",
                *want.values(),
                target=declared.name,
            )

    @staticmethod
    def _tenants(ctx: CheckContext, live: str) -> set[str]:
        frontend = ctx.intent.tiers.frontend
        selector = frontend.namespaces if frontend is not None else None
        if selector is None:
            return set()
        return {
            ns.record.name
            for ns in ctx.facts.of(K8sNamespace)
            if ns.target == live and selector.selects(ns.record.name, ns.record.labels)
        }
