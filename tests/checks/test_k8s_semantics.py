"""Policy semantics on real manifests, read through the real Kubernetes normalizer and the one policy
engine (checks/k8s): what each file is documented to do (Cilium's connectivity-test policies, the
Kubernetes network-policy recipes)."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from auditor.capture import RawCapture
from auditor.facts import K8sNetworkPolicy
from checks.k8s.compile import compile_policies
from checks.k8s.connlist import describe
from checks.k8s.engine import PolicyEngine
from checks.k8s.ir import Direction
from checks.k8s.questions import default_deny, named_ports
from checks.k8s.workloads import Workload, freeze
from checks.lateral.addresses import IPSet
from collectors.normalizers.kubernetes import normalize_manifest

ROOT = Path(__file__).resolve().parents[1] / "fixtures" / "k8s_semantics"
NAMESPACES = {
    "default": {"kubernetes.io/metadata.name": "default"},
    "kube-system": {"kubernetes.io/metadata.name": "kube-system"},
    "team-a": {"kubernetes.io/metadata.name": "team-a"},
    "production": {"kubernetes.io/metadata.name": "production", "purpose": "production"},
}
WORLD = IPSet.parse("203.0.113.0/24")


def engine(*files: str) -> PolicyEngine:
    records: list[K8sNetworkPolicy] = []
    for name in files:
        path = ROOT / name
        capture = RawCapture(
            "lab", "k8s.manifest", "file", str(path), datetime.now(UTC), path.read_bytes(), {}
        )
        result = normalize_manifest(capture)
        assert not result.problems, result.problems
        records += [r for r in result.facts if isinstance(r, K8sNetworkPolicy)]
    compiled = compile_policies((r, r) for r in records)
    assert not compiled.gaps, compiled.gaps
    return PolicyEngine(NAMESPACES, compiled)


def pod(ns: str = "default", **labels: str) -> Workload:
    return Workload(ns, "p-" + "-".join(labels.values()), "Pod", freeze(labels))


def denied(e: PolicyEngine, direction: Direction, who: Workload | None = None) -> bool:
    return default_deny(e, who or pod(), direction, named_ports(e.compiled)).denied


def conns(e: PolicyEngine, src: Workload | IPSet, dst: Workload | IPSet) -> str:
    return describe(e.allowed(src, dst).conns)


# --- Cilium ----------------------------------------------------------------------------------------


def test_cilium_empty_rules_deny_everything() -> None:
    e = engine("cilium/deny-all-ingress.yaml", "cilium/deny-all-egress.yaml")
    assert denied(e, "Ingress") and denied(e, "Egress")
    assert conns(e, pod(app="x"), pod(app="y")) == "No Connections"


def test_cilium_deny_of_entity_all_denies_everything_but_world_alone_does_not() -> None:
    everything = engine("cilium/deny-all-entities.yaml")
    assert denied(everything, "Egress") and not denied(everything, "Ingress")
    assert conns(everything, pod(), WORLD) == "No Connections"
    world = engine("cilium/deny-world-entity.yaml")
    assert denied(world, "Ingress")  # a deny section still puts the endpoints in default deny
    assert conns(world, WORLD, pod()) == "No Connections"


def test_cilium_allow_all_except_world() -> None:
    e = engine("cilium/allow-all-except-world.yaml")
    assert denied(e, "Ingress") and denied(e, "Egress")  # broad allows, but not everything
    assert conns(e, pod(), pod("team-a")) == "All Connections"  # entity `cluster`: every pod
    assert conns(e, pod(), WORLD) == "TCP 53,UDP 53"  # world only on the DNS rule
    assert conns(e, WORLD, pod()) == "No Connections"


def test_cilium_endpoint_selectors_without_namespace_stay_in_the_policy_namespace() -> None:
    e = engine("cilium/allow-all-ingress.yaml")
    assert conns(e, pod(app="a"), pod(app="b")) == "All Connections"
    assert conns(e, pod("team-a"), pod()) == "No Connections"
    assert conns(e, pod(), pod("team-a")) == "All Connections"  # team-a is not selected


def test_cilium_namespace_match_expressions() -> None:
    e = engine("cilium/client-egress-only-dns.yaml")
    client = pod(kind="client")
    assert conns(e, client, pod("kube-system", **{"k8s-app": "kube-dns"})) == "No Connections"  # cluster name
    assert conns(e, client, WORLD) == "TCP 53,UDP 53"
    assert conns(e, pod(kind="other"), WORLD) == "All Connections"  # not selected
    assert not denied(e, "Egress")  # only kind=client pods are isolated
    assert denied(e, "Egress", client)


def test_cilium_clusterwide_selects_by_namespace_label() -> None:
    e = engine("cilium/allow-ingress-specific-ns-ccnp.yaml")
    target = pod("cilium-test-ccnp1", kind="ccnp")
    assert conns(e, pod("cilium-test-ccnp2"), target) == "All Connections"
    assert conns(e, pod("team-a"), target) == "No Connections"
    assert conns(e, pod("team-a"), pod("cilium-test-ccnp1")) == "All Connections"  # kind=ccnp only


def test_cilium_deny_rule_and_world_and_cluster_entities() -> None:
    world = engine("cilium/client-egress-to-entities-world.yaml")
    assert conns(world, pod(kind="client"), WORLD) == "TCP 53,80,UDP 53"
    assert conns(world, pod(kind="client"), pod("kube-system", **{"k8s-app": "kube-dns"})) == "TCP 53,UDP 53"
    cluster = engine("cilium/allow-cluster-entity.yaml")
    assert conns(cluster, pod(kind="client"), pod("team-a")) == "All Connections"
    assert conns(cluster, pod(kind="client"), WORLD) == "No Connections"


def test_cilium_deny_beats_allow() -> None:
    e = engine("cilium/echo-ingress-from-other-client-deny.yaml")
    rules = [r for p in e.compiled.netpols for r in p.ingress]
    assert [r.action.value for r in rules] == ["Deny"]


# --- Kubernetes NetworkPolicy recipes ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("recipe", "ingress", "egress"),
    [
        ("03-deny-all-non-whitelisted-traffic-in-the-namespace__1", True, False),
        ("04-deny-traffic-from-other-namespaces__1", True, False),  # isolated; the rule is specific
        ("12-deny-all-non-whitelisted-traffic-from-the-namespace__1", False, True),
        ("02a-allow-all-traffic-to-an-application__1", False, False),  # `ingress: [{}]` on app=web
        ("05-allow-traffic-from-all-namespaces__1", False, False),  # only app=web pods are isolated
    ],
)
def test_recipes_default_deny(recipe: str, ingress: bool, egress: bool) -> None:
    e = engine(f"recipes/{recipe}.yaml")
    assert denied(e, "Ingress") is ingress
    assert denied(e, "Egress") is egress


def test_recipes_namespace_scopes() -> None:
    same = engine("recipes/04-deny-traffic-from-other-namespaces__1.yaml")
    assert conns(same, pod(app="x"), pod(app="y")) == "All Connections"
    assert conns(same, pod("team-a"), pod()) == "No Connections"
    every = engine("recipes/05-allow-traffic-from-all-namespaces__1.yaml")
    assert conns(every, pod("team-a"), pod(app="web")) == "All Connections"
    prod = engine("recipes/06-allow-traffic-from-a-namespace__1.yaml")
    assert conns(prod, pod("production"), pod(app="web")) == "All Connections"
    assert conns(prod, pod("team-a"), pod(app="web")) == "No Connections"
    anything = engine("recipes/02a-allow-all-traffic-to-an-application__1.yaml")
    assert conns(anything, WORLD, pod(app="web")) == "All Connections"


def test_recipe_dns_to_kube_dns_only() -> None:
    e = engine("recipes/14-deny-external-egress-traffic__1.yaml")
    src = pod(app="foo")
    assert conns(e, src, pod("kube-system", **{"k8s-app": "kube-dns"})) == "TCP 53,UDP 53"
    assert conns(e, src, pod("kube-system")) == "No Connections"
    assert conns(e, src, WORLD) == "No Connections"
