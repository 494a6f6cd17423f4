"""Policy semantics on real manifests, read through the real Kubernetes normalizer: what each file is
documented to do (Cilium's connectivity-test policies, the Kubernetes network-policy recipes)."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from auditor.capture import RawCapture
from auditor.facts import K8sNetworkPolicy
from auditor.store.reader import StoredFact
from checks.k8s_flavors import read_policies
from checks.k8s_semantics import Action, PeerKind, PolicyView, Rule, default_deny
from checks.tier2._egress import DNS_PORTS
from collectors.normalizers.kubernetes import normalize_manifest

ROOT = Path(__file__).resolve().parents[1] / "fixtures" / "k8s_semantics"
NS = {"kubernetes.io/metadata.name": "default"}


def views(*files: str) -> list[PolicyView]:
    facts: list[StoredFact[K8sNetworkPolicy]] = []
    for name in files:
        path = ROOT / name
        capture = RawCapture(
            "lab", "k8s.manifest", "file", str(path), datetime.now(UTC), path.read_bytes(), {}
        )
        result = normalize_manifest(capture)
        assert not result.problems, result.problems
        for record in result.facts:
            assert isinstance(record, K8sNetworkPolicy)
            facts.append(StoredFact(len(facts) + 1, record.kind, "lab", 1, "0" * 64, record))
    return read_policies(facts)


def denied(
    pvs: list[PolicyView], direction: str, ns: str = "default", labels: dict[str, str] | None = None
) -> bool:
    return default_deny(ns, labels or {"kubernetes.io/metadata.name": ns}, direction, pvs).denied  # type: ignore[arg-type]


def rules(pvs: list[PolicyView], direction: str) -> list[Rule]:
    return [r for v in pvs for r in v.rules_for(direction)]  # type: ignore[arg-type]


# --- Cilium ----------------------------------------------------------------------------------------


def test_cilium_empty_rules_deny_everything() -> None:
    pvs = views("cilium/deny-all-ingress.yaml", "cilium/deny-all-egress.yaml")
    assert denied(pvs, "Ingress") and denied(pvs, "Egress")
    assert all(not r.peers for r in rules(pvs, "Ingress") + rules(pvs, "Egress"))  # `{}` allows nothing


def test_cilium_deny_of_entity_all_denies_everything_but_world_alone_does_not() -> None:
    everything = views("cilium/deny-all-entities.yaml")
    (rule,) = rules(everything, "Egress")
    assert rule.action == Action.DENY and rule.everything
    assert denied(everything, "Egress") and not denied(everything, "Ingress")
    world = views("cilium/deny-world-entity.yaml")
    (rule,) = rules(world, "Ingress")
    assert rule.action == Action.DENY and not rule.everything
    assert [p.kind for p in rule.peers] == [PeerKind.WORLD]
    assert denied(world, "Ingress")  # a deny section still puts the endpoints in default deny


def test_cilium_allow_all_except_world() -> None:
    pvs = views("cilium/allow-all-except-world.yaml")
    assert denied(pvs, "Ingress") and denied(pvs, "Egress")  # broad allows, but not everything
    egress = rules(pvs, "Egress")
    kinds = {p.kind for r in egress for p in r.peers}
    assert kinds == {PeerKind.CLUSTER_HOSTS, PeerKind.PODS, PeerKind.WORLD}
    cluster = next(
        p for r in egress for p in r.peers if p.kind == PeerKind.PODS and p.text.endswith("cluster")
    )
    assert cluster.namespaces is not None and cluster.namespaces.everything
    dns = [r for r in egress if any(r.opens(proto, port) for proto, port in DNS_PORTS)]
    assert len(dns) == 3  # rules without ports open DNS too
    assert [p.kind for p in dns[-1].peers] == [PeerKind.CLUSTER_HOSTS, PeerKind.WORLD]
    assert dns[-1].ports_text() == "53/UDP, 53/TCP"


def test_cilium_endpoint_selectors_without_namespace_stay_in_the_policy_namespace() -> None:
    (view,) = views("cilium/allow-all-ingress.yaml")
    (rule,) = view.rules_for("Ingress")
    (peer,) = rule.peers
    assert peer.namespaces is not None and peer.namespaces.same == "default"
    assert view.selects("default", NS) is True and view.selects("other", {}) is False


def test_cilium_namespace_match_expressions() -> None:
    (view,) = views("cilium/client-egress-only-dns.yaml")
    assert view.selects("default", NS) is None  # kind=client pods only
    peers = [p for r in view.rules_for("Egress") for p in r.peers if p.kind == PeerKind.PODS]
    assert peers[0].namespaces is not None
    assert peers[0].namespaces.matches("kube-system", {}) and not peers[0].namespaces.matches("team-a", {})
    assert peers[1].namespaces is not None and peers[1].namespaces.matches("openshift-dns", {})


def test_cilium_clusterwide_selects_by_namespace_label() -> None:
    (view,) = views("cilium/allow-ingress-specific-ns-ccnp.yaml")
    assert view.selects("cilium-test-ccnp1", {}) is None  # only pods with kind=ccnp there
    assert view.selects("cilium-test-ccnp2", {}) is False
    (rule,) = view.rules_for("Ingress")
    scope = rule.peers[0].namespaces
    assert scope is not None and scope.matches("cilium-test-ccnp2", {}) and not scope.matches("team-a", {})


def test_cilium_deny_rule_and_world_and_cluster_entities() -> None:
    (deny,) = rules(views("cilium/echo-ingress-from-other-client-deny.yaml"), "Ingress")
    assert deny.action == Action.DENY and not deny.everything
    world = rules(views("cilium/client-egress-to-entities-world.yaml"), "Egress")
    assert world[0].peers[0].kind == PeerKind.WORLD and world[0].ports_text() == "80/TCP"
    (cluster,) = rules(views("cilium/allow-cluster-entity.yaml"), "Egress")
    assert {p.kind for p in cluster.peers} == {PeerKind.PODS, PeerKind.CLUSTER_HOSTS}


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
    pvs = views(f"recipes/{recipe}.yaml")
    assert denied(pvs, "Ingress") is ingress
    assert denied(pvs, "Egress") is egress


def test_recipes_namespace_scopes() -> None:
    (same,) = rules(views("recipes/04-deny-traffic-from-other-namespaces__1.yaml"), "Ingress")
    assert same.peers[0].namespaces is not None and same.peers[0].namespaces.same == "default"
    (every,) = rules(views("recipes/05-allow-traffic-from-all-namespaces__1.yaml"), "Ingress")
    assert every.peers[0].namespaces is not None and every.peers[0].namespaces.everything
    (prod,) = rules(views("recipes/06-allow-traffic-from-a-namespace__1.yaml"), "Ingress")
    scope = prod.peers[0].namespaces
    assert scope is not None and scope.matches("x", {"purpose": "production"}) and not scope.matches("y", {})
    (anything,) = rules(views("recipes/02a-allow-all-traffic-to-an-application__1.yaml"), "Ingress")
    assert anything.everything and anything.peers[0].kind == PeerKind.ANY


def test_recipe_dns_to_kube_dns_only() -> None:
    (dns,) = rules(views("recipes/14-deny-external-egress-traffic__1.yaml"), "Egress")
    assert dns.opens("UDP", 53) and dns.opens("TCP", 53) and not dns.opens("TCP", 443)
    assert all(p.in_cluster for p in dns.peers)
