"""Tests of the `k8s.manifest` normalizer against real public manifests and hand-made broken ones.

Every fixture file is one parameter. Its facts are compared field by field with what the simplest
possible reading of the raw YAML/JSON says (the `_expected_*` helpers below share no code with the
normalizer); a few tests then pin exact, hand-checked expectations on named objects.
"""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
import yaml

from auditor.capture import RawCapture
from auditor.enums import FactKind
from auditor.facts.kubernetes import K8sNamespace, K8sNetworkPolicy, PolicyFlavor
from auditor.normalize import NormalizeResult
from collectors.normalizers.kubernetes import normalize_manifest

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "k8s"
CILIUM = FIXTURES / "cilium-connectivity-manifests" / "cilium-cli" / "connectivity" / "builder" / "manifests"
MANIFESTS = sorted(p for p in FIXTURES.rglob("*") if p.suffix in {".yaml", ".yml", ".json"})
TEMPLATED = sorted(p for p in CILIUM.glob("*.yaml") if "{{" in p.read_text())


def _normalize(content: bytes | str, origin: str = "test.yaml", **meta: str) -> NormalizeResult:
    data = content.encode() if isinstance(content, str) else content
    capture = RawCapture(
        target="cluster",
        format="k8s.manifest",
        source="file",
        origin=origin,
        collected_at=datetime(2025, 1, 1, tzinfo=UTC),
        content=data,
        meta=meta,
    )
    return normalize_manifest(capture)


def _run(path: Path) -> NormalizeResult:
    return _normalize(path.read_bytes(), origin=str(path.relative_to(FIXTURES)))


# --- the independent oracle: plain PyYAML/json, one `---` chunk at a time ----------------------------


def _raw_documents(path: Path) -> tuple[list[Any], list[int]]:
    """All documents that parse, and the 1-based line of each syntax error."""
    text = path.read_text()
    if path.suffix == ".json":
        return [json.loads(text)], []
    docs: list[Any] = []
    errors: list[int] = []
    lines = text.splitlines(keepends=True)
    starts = [0] + [i for i, line in enumerate(lines) if re.match(r"^---(\s|$)", line)]
    for first, nxt in zip(starts, [*starts[1:], len(lines)], strict=True):
        chunk = "".join(lines[first:nxt])
        try:
            docs.extend(yaml.safe_load_all(chunk))
        except yaml.MarkedYAMLError as exc:
            mark = exc.problem_mark
            errors.append(first + (mark.line if mark is not None else 0) + 1)
    return docs, errors


def _raw_objects(docs: list[Any]) -> list[dict[str, Any]]:
    objects = []
    for doc in docs:
        if not isinstance(doc, dict):
            continue
        kind = doc.get("kind", "")
        if kind.endswith("List") and isinstance(doc.get("items"), list):
            for item in doc["items"]:
                objects.append({"kind": kind[:-4], "apiVersion": doc.get("apiVersion"), **item})
        else:
            objects.append(doc)
    return objects


def _sel(raw: dict[str, Any] | None) -> dict[str, Any] | None:
    if raw is None:
        return None
    exprs = [
        {"key": e["key"], "operator": e["operator"], "values": e.get("values") or []}
        for e in raw.get("matchExpressions") or []
    ]
    return {"match_labels": raw.get("matchLabels") or {}, "match_expressions": exprs}


EMPTY = {"match_labels": {}, "match_expressions": []}


def _expected_k8s_policy(obj: dict[str, Any]) -> dict[str, Any]:
    spec = obj.get("spec") or {}
    types = spec.get("policyTypes") or (["Ingress", "Egress"] if spec.get("egress") else ["Ingress"])

    def peer(p: dict[str, Any]) -> dict[str, Any]:
        block = p.get("ipBlock")
        return {
            "pod_selector": _sel(p.get("podSelector")),
            "namespace_selector": _sel(p.get("namespaceSelector")),
            "ip_block": None
            if block is None
            else {"cidr": block["cidr"], "except_": block.get("except") or []},
        }

    def rule(r: dict[str, Any] | None, key: str) -> dict[str, Any]:
        r = r or {}
        ports = [
            {"protocol": p.get("protocol") or "TCP", "port": p.get("port"), "end_port": p.get("endPort")}
            for p in r.get("ports") or []
        ]
        return {"peers": [peer(p) for p in r.get(key) or []], "ports": ports}

    return {
        "namespace": obj["metadata"].get("namespace") or "default",
        "name": obj["metadata"]["name"],
        "flavor": "kubernetes",
        "pod_selector": _sel(spec.get("podSelector")) or EMPTY,
        "policy_types": types,
        "ingress": [rule(r, "from") for r in spec.get("ingress") or []],
        "egress": [rule(r, "to") for r in spec.get("egress") or []],
        "spec": spec,
    }


def _expected_other_policy(obj: dict[str, Any]) -> dict[str, Any] | None:
    kind, spec = obj.get("kind"), obj.get("spec") or {}
    if kind in ("CiliumNetworkPolicy", "CiliumClusterwideNetworkPolicy"):
        namespace = obj["metadata"].get("namespace") or "default"
        rules = ([obj["spec"]] if "spec" in obj else []) + obj.get("specs", [])
        selectors = [r.get("endpointSelector") for r in rules]
        one = len(rules) == 1 or all(s == selectors[0] for s in selectors)
        return {
            "namespace": namespace if kind == "CiliumNetworkPolicy" else None,
            "name": obj["metadata"]["name"],
            "flavor": "cilium" if kind == "CiliumNetworkPolicy" else "cilium-clusterwide",
            "pod_selector": (_sel(selectors[0]) if one else None) or EMPTY,
            "policy_types": [
                t
                for t, keys in (("Ingress", ("ingress", "ingressDeny")), ("Egress", ("egress", "egressDeny")))
                if any(k in r for r in rules for k in keys)
            ],
            "ingress": [],
            "egress": [],
            "spec": obj["spec"] if "specs" not in obj else {"specs": rules},
        }
    if kind == "CiliumCIDRGroup":  # the CIDRs cidrGroupRef/cidrGroupSelector name
        return {
            "namespace": None,
            "name": obj["metadata"]["name"],
            "flavor": "cilium-cidr-group",
            "pod_selector": EMPTY,
            "policy_types": [],
            "ingress": [],
            "egress": [],
            "spec": spec,
            "labels": obj["metadata"].get("labels") or {},
            "api_kind": "CiliumCIDRGroup",
        }
    flavors = {"AdminNetworkPolicy": "admin", "BaselineAdminNetworkPolicy": "baseline-admin"}
    if kind == "ClusterNetworkPolicy":
        flavors[kind] = {"Admin": "admin", "Baseline": "baseline-admin"}[spec["tier"]]
    if kind in flavors:
        return {
            "namespace": None,
            "name": obj["metadata"]["name"],
            "flavor": flavors[kind],
            "pod_selector": EMPTY,
            "policy_types": [t for t, k in (("Ingress", "ingress"), ("Egress", "egress")) if k in spec],
            "ingress": [],
            "egress": [],
            "spec": spec,
        }
    return None


def _expected(path: Path) -> tuple[list[dict[str, Any]], list[int]]:
    docs, errors = _raw_documents(path)
    expected: list[dict[str, Any]] = []
    for obj in _raw_objects(docs):
        kind, api = obj.get("kind"), obj.get("apiVersion") or ""
        if kind == "Namespace":
            labels = {**(obj["metadata"].get("labels") or {})}
            labels.setdefault("kubernetes.io/metadata.name", obj["metadata"]["name"])
            expected.append({"kind": "ns", "name": obj["metadata"]["name"], "labels": labels})
        elif kind == "NetworkPolicy" and api.startswith("networking.k8s.io/"):
            expected.append({"kind": "policy", **_expected_k8s_policy(obj)})
        elif (kind == "NetworkPolicy" and "projectcalico.org" in api) or kind == "GlobalNetworkPolicy":
            expected.append({"kind": "calico", "name": obj["metadata"]["name"]})
        elif (other := _expected_other_policy(obj)) is not None:
            expected.append({"kind": "policy", **other})
    return expected, errors


# Pods, services and ingresses are compared field by field in tests/k8s_live/test_workloads.py.
WORKLOADS = {FactKind.K8S_POD, FactKind.K8S_SERVICE, FactKind.K8S_INGRESS}


def _actual(result: NormalizeResult) -> list[dict[str, Any]]:
    actual: list[dict[str, Any]] = []
    for fact in result.facts:
        if fact.kind in WORKLOADS:
            continue
        data = fact.to_json()
        assert data.pop("cluster") == "offline"
        if isinstance(fact, K8sNamespace):
            actual.append({"kind": "ns", **data})
        elif isinstance(fact, K8sNetworkPolicy) and fact.flavor in (
            PolicyFlavor.CALICO,
            PolicyFlavor.CALICO_GLOBAL,
        ):
            actual.append({"kind": "calico", "name": fact.name})
        else:
            if data.get("api_kind") is None and not data.get("labels"):  # kinds the flavor names alone
                data.pop("api_kind", None)
                data.pop("labels", None)
            actual.append({"kind": "policy", **data})
    return actual


# --- field-by-field comparison, one parameter per fixture file ------------------------------------


@pytest.mark.parametrize("path", MANIFESTS, ids=lambda p: str(p.relative_to(FIXTURES)))
def test_manifest_matches_raw_document(path: Path) -> None:
    result = _run(path)
    expected, error_lines = _expected(path)
    assert result.covers - WORKLOADS == {FactKind.K8S_NAMESPACE, FactKind.K8S_NETWORK_POLICY}
    actual = _actual(result)
    assert len(actual) == len(expected)
    for got, want in zip(actual, expected, strict=True):
        assert got == want
    syntax = [p for p in result.problems if p.message.startswith("invalid YAML")]
    assert [p.line for p in syntax] == error_lines
    for problem in result.problems:
        assert problem.origin == str(path.relative_to(FIXTURES))
        assert problem.line is not None
        assert problem.line >= 1


def test_fixture_inventory() -> None:
    """The fixture set is what the notices say, so a lost file cannot silently shrink coverage."""
    kinds: dict[str, int] = {}
    for path in CILIUM.glob("*.yaml"):
        for match in re.finditer(r"^kind: (\w+)", path.read_text(), re.MULTILINE):
            kinds[match.group(1)] = kinds.get(match.group(1), 0) + 1
    assert kinds["CiliumNetworkPolicy"] == 84
    assert kinds["CiliumClusterwideNetworkPolicy"] == 4
    assert len(TEMPLATED) == 35
    assert len(MANIFESTS) >= 150


@pytest.mark.parametrize("path", TEMPLATED, ids=lambda p: p.name)
def test_go_template_placeholders_never_crash(path: Path) -> None:
    """Unrendered `{{ ... }}` either parses (inside quotes) or is one problem with a line number."""
    result = _run(path)
    _, errors = _raw_documents(path)
    if errors:
        assert result.facts == [] or len(result.problems) == len(errors)
        assert [p.line for p in result.problems] == errors
    else:
        assert result.problems == []
        assert result.facts


def test_templated_files_hand_checked_lines() -> None:
    """Lines read by eye in the files: where the first placeholder breaks the YAML."""
    expected = {
        "deny-cidr.yaml": 10,  # {{ range $i := .NodesWithoutCiliumIPs }}
        "client-egress-to-cidr-k8s.yaml": 11,  # - {{ .K8sCIDR }}  (a mapping used as a key)
        "echo-ingress-from-cidr.yaml": 13,
        "bgp-peering-policy.yaml": 17,
    }
    for name, line in expected.items():
        result = _run(CILIUM / name)
        assert [p.line for p in result.problems] == [line], name
        assert result.facts == []
    broken = sum(1 for p in TEMPLATED if _run(p).problems)
    assert broken == 15


# --- hand-checked exact expectations on named objects ---------------------------------------------


def _policies(result: NormalizeResult) -> dict[str, K8sNetworkPolicy]:
    return {f.name: f for f in result.facts if isinstance(f, K8sNetworkPolicy)}


def test_recipe_namespace_and_pod_selector_in_one_peer() -> None:
    result = _run(
        FIXTURES / "k8s-network-policy-recipes/07-allow-traffic-from-some-pods-in-another-namespace__1.yaml"
    )
    policy = _policies(result)["web-allow-all-ns-monitoring"]
    assert policy.namespace == "default"
    assert policy.pod_selector.match_labels == {"app": "web"}
    assert policy.policy_types == ["Ingress"]
    assert policy.egress == []
    (rule,) = policy.ingress
    (peer,) = rule.peers
    assert peer.namespace_selector is not None
    assert peer.namespace_selector.match_labels == {"team": "operations"}
    assert peer.pod_selector is not None
    assert peer.pod_selector.match_labels == {"type": "monitoring"}
    assert peer.ip_block is None
    assert rule.ports == []


def test_cyclonus_port_range_and_udp() -> None:
    policy = _policies(_run(FIXTURES / "cyclonus/networkpolicies/features/portrange1.yaml"))["pr-1"]
    assert (policy.namespace, policy.policy_types, policy.ingress) == ("x", ["Egress"], [])
    first, second = policy.egress
    assert [(p.protocol, p.port, p.end_port) for p in first.ports] == [("TCP", 80, 103)]
    assert first.peers[0].namespace_selector is not None
    assert first.peers[0].namespace_selector.match_labels == {"ns": "y"}
    assert second.peers == []
    assert [(p.protocol, p.port, p.end_port) for p in second.ports] == [("UDP", 53, None)]


def test_named_port_and_empty_namespace_selector() -> None:
    path = FIXTURES / "np-guard-netpol-analyzer/tests/netpol_named_port_test/netpol.yaml"
    policy = _policies(_run(path))["enable-ingress-from-named-port"]
    assert policy.policy_types == ["Ingress", "Egress"]
    assert policy.egress == []  # Egress declared, no egress rule: all egress denied
    (rule,) = policy.ingress
    assert rule.peers[0].namespace_selector is not None
    assert rule.peers[0].namespace_selector.is_empty()
    assert rule.peers[0].pod_selector is None
    assert [(p.protocol, p.port) for p in rule.ports] == [("UDP", "newport")]


def test_json_namespace_list_without_item_kinds() -> None:
    result = _run(FIXTURES / "np-guard-netpol-analyzer/tests/multiple_topology_resources_1/bank_ns_list.json")
    assert result.problems == []
    assert result.facts == [
        K8sNamespace(cluster="offline", name="demo", labels={"kubernetes.io/metadata.name": "demo"})
    ]


def test_admin_and_baseline_policies_and_null_pod_selector() -> None:
    result = _run(FIXTURES / "network-policy-api/core-anp-np-banp.yaml")
    assert result.problems == []
    anp, netpol, banp = result.facts
    assert isinstance(anp, K8sNetworkPolicy)
    assert isinstance(netpol, K8sNetworkPolicy)
    assert isinstance(banp, K8sNetworkPolicy)
    assert (anp.flavor, anp.namespace, anp.name) == (PolicyFlavor.ADMIN, None, "pass-example")
    assert anp.policy_types == ["Ingress", "Egress"]
    assert anp.spec["priority"] == 10
    assert (banp.flavor, banp.namespace, banp.name) == (PolicyFlavor.BASELINE_ADMIN, None, "default")
    assert netpol.flavor == PolicyFlavor.KUBERNETES
    assert netpol.pod_selector.is_empty()  # `podSelector:` with no value selects every pod
    assert netpol.ingress[0].peers[0].namespace_selector is not None
    assert netpol.ingress[0].peers[0].namespace_selector.match_labels == {"conformance-house": "slytherin"}


def test_list_with_misspelled_items_is_a_problem() -> None:
    result = _run(FIXTURES / "network-policy-api/anp-list.yaml")
    assert result.facts == []
    (problem,) = result.problems
    assert problem.line == 1
    assert "AdminNetworkPolicyList has no `items`" in problem.message


def test_calico_flavors_and_types() -> None:
    gnp = _run(FIXTURES / "calico/optimize-gnp-split.yaml").facts
    sample = _run(FIXTURES / "calico/networkpolicy-sample.yaml").facts
    assert len(gnp) == 1
    assert len(sample) == 1
    assert isinstance(gnp[0], K8sNetworkPolicy)
    assert isinstance(sample[0], K8sNetworkPolicy)
    assert (gnp[0].flavor, gnp[0].namespace, gnp[0].policy_types) == (
        PolicyFlavor.CALICO_GLOBAL,
        None,
        ["Ingress", "Egress"],
    )
    assert len(gnp[0].spec["ingress"]) == 10
    assert gnp[0].ingress == []
    assert (sample[0].flavor, sample[0].namespace) == (PolicyFlavor.CALICO, "production")
    assert sample[0].spec["selector"] == "role == 'database'"
    assert sample[0].pod_selector.is_empty()  # Calico selectors are expressions, kept in spec


def test_calico_default_types_and_crd_group() -> None:
    text = """
apiVersion: crd.projectcalico.org/v1
kind: NetworkPolicy
metadata: {name: only-egress, namespace: ml}
spec:
  selector: all()
  egress: [{action: Allow}]
---
apiVersion: crd.projectcalico.org/v1
kind: GlobalNetworkPolicy
metadata: {name: nothing}
spec: {selector: all()}
"""
    egress_only, nothing = _normalize(text).facts
    assert isinstance(egress_only, K8sNetworkPolicy)
    assert isinstance(nothing, K8sNetworkPolicy)
    assert (egress_only.flavor, egress_only.namespace, egress_only.policy_types) == (
        PolicyFlavor.CALICO,
        "ml",
        ["Egress"],
    )
    assert (nothing.flavor, nothing.namespace, nothing.policy_types) == (
        PolicyFlavor.CALICO_GLOBAL,
        None,
        ["Ingress"],
    )


def test_cilium_specs_list_and_host_policy() -> None:
    specs = _policies(_run(CILIUM / "client-egress-l7-tls-port-range.yaml"))[
        "client-egress-l7-tls-port-range"
    ]
    assert (specs.flavor, specs.namespace) == (PolicyFlavor.CILIUM, "default")
    assert specs.pod_selector.match_labels == {"kind": "client"}
    assert specs.policy_types == ["Egress"]
    assert specs.spec["specs"][0]["egress"][0]["toPorts"][0]["ports"][0] == {
        "port": "256",
        "endPort": 511,
        "protocol": "TCP",
    }
    host = _policies(_run(CILIUM / "host-firewall-egress.yaml"))["host-firewall-egress"]
    assert (host.flavor, host.namespace, host.policy_types) == (
        PolicyFlavor.CILIUM_CLUSTERWIDE,
        None,
        ["Egress"],
    )
    assert host.pod_selector.is_empty()
    assert host.spec["nodeSelector"] == {}


def test_cluster_network_policy_tier_and_cidr_group_read() -> None:
    result = _run(CILIUM / "echo-ingress-from-client-tiered-wildcard-pass-l7.yaml")
    cnp, cilium = result.facts
    assert isinstance(cnp, K8sNetworkPolicy)
    assert isinstance(cilium, K8sNetworkPolicy)
    assert (cnp.flavor, cnp.namespace, cnp.policy_types) == (PolicyFlavor.ADMIN, None, ["Ingress"])
    assert cilium.namespace == "{{.TestNamespace}}"  # quoted placeholder: valid YAML, kept verbatim
    groups = _run(CILIUM / "client-egress-to-cidrgroup-external-deny.yaml")
    group, policy = groups.facts  # the CiliumCIDRGroup is read: cidrGroupRef resolves to its CIDRs
    assert isinstance(group, K8sNetworkPolicy) and isinstance(policy, K8sNetworkPolicy)
    assert (group.flavor, group.namespace, group.api_kind) == (
        PolicyFlavor.CILIUM_CIDR_GROUP,
        None,
        "CiliumCIDRGroup",
    )
    assert group.spec["externalCIDRs"] == ["{{.ExternalCIDRv4}}", "{{.ExternalCIDRv6}}"]
    assert policy.flavor == PolicyFlavor.CILIUM
    assert groups.problems == []


# --- broken input: problems with lines, the rest kept, never an exception -------------------------

GOOD = """apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: %s, namespace: team-a}
spec: {podSelector: {}}
"""


def test_yaml_error_keeps_documents_before_and_resumes_after() -> None:
    text = GOOD % "first" + "---\nkind: NetworkPolicy\nmetadata: [unclosed\n---\n" + GOOD % "third"
    result = _normalize(text, origin="mixed.yaml")
    assert [f.name for f in result.facts if isinstance(f, K8sNetworkPolicy)] == ["first", "third"]
    (problem,) = result.problems
    assert problem.origin == "mixed.yaml"
    assert problem.line == 8
    assert problem.message.startswith("invalid YAML")


def test_bad_shapes_name_line_and_object() -> None:
    text = (
        GOOD % "ok-1"
        + "---\n- just\n- a list\n"
        + "---\n"
        + "apiVersion: networking.k8s.io/v1\nkind: NetworkPolicy\n"
        + "metadata: {name: bad-selector, namespace: team-b}\nspec: {podSelector: app=web}\n"
        + "---\n"
        + "apiVersion: networking.k8s.io/v1\nkind: NetworkPolicy\n"
        + "metadata: {name: bad-peer}\nspec:\n  podSelector: {}\n  ingress: [{from: [{}]}]\n"
        + "---\n"
        + "apiVersion: networking.k8s.io/v1\nkind: NetworkPolicy\n"
        + "metadata: {name: bad-port}\nspec:\n  podSelector: {}\n  egress: [{ports: [{port: [80]}]}]\n"
        + "---\n"
        + "apiVersion: v1\nkind: Namespace\nmetadata: {name: typo, labels: {tier: 2}}\n"
        + "---\n"
        + GOOD % "ok-2"
    )
    result = _normalize(text)
    assert [f.name for f in result.facts if isinstance(f, K8sNetworkPolicy)] == ["ok-1", "ok-2"]
    messages = [(p.line, p.message) for p in result.problems]
    assert messages == [
        (6, "document is not a mapping but a list"),
        (9, "NetworkPolicy team-b/bad-selector: spec.podSelector must be a mapping, not str"),
        (
            14,
            "NetworkPolicy default/bad-peer: spec.ingress[0].from[0] "
            "must set podSelector, namespaceSelector or ipBlock",
        ),
        (
            21,
            "NetworkPolicy default/bad-port: spec.egress[0].ports[0].port "
            "must be a number or a port name, not list",
        ),
        (28, "Namespace typo: metadata.labels.tier must be a string, not int"),
    ]


def test_list_items_are_located_by_line_in_yaml_and_json() -> None:
    items = [
        {"metadata": {"name": "a"}, "spec": {"podSelector": {}}},
        {"metadata": {"name": "b"}, "spec": {"podSelector": "oops"}},
    ]
    doc = {"apiVersion": "networking.k8s.io/v1", "kind": "NetworkPolicyList", "items": items}
    as_json = _normalize(json.dumps(doc, indent=2), origin="list.json")
    as_yaml = _normalize(yaml.safe_dump(doc, sort_keys=False), origin="list.yaml")
    for result, line in ((as_json, 13), (as_yaml, 8)):
        assert [f.name for f in result.facts if isinstance(f, K8sNetworkPolicy)] == ["a"]
        (problem,) = result.problems
        assert problem.line == line
        assert problem.message == (
            "items[1] NetworkPolicy default/b: spec.podSelector must be a mapping, not str"
        )


def test_json_syntax_error_and_concatenated_documents() -> None:
    first = json.dumps({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "x"}})
    result = _normalize(first + "\n" + first.replace('"x"', '"y"') + '\n{"kind": \n', origin="c.json")
    assert [f.name for f in result.facts if isinstance(f, K8sNamespace)] == ["x", "y"]
    (problem,) = result.problems
    assert (problem.origin, problem.line) == ("c.json", 4)
    assert problem.message.startswith("invalid JSON")


def test_other_kinds_ignored_and_unknown_networkpolicy_reported() -> None:
    text = """apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
---
apiVersion: v1
kind: Service
metadata: {name: web}
---
apiVersion: crd.antrea.io/v1beta1
kind: NetworkPolicy
metadata: {name: antrea}
spec: {}
"""
    result = _normalize(text, cluster="prod")
    assert [type(f).__name__ for f in result.facts] == ["K8sService"]  # a Deployment is not a fact
    (problem,) = result.problems
    assert problem.line == 9
    assert "unsupported apiVersion 'crd.antrea.io/v1beta1'" in problem.message


def test_cluster_meta_and_defaults() -> None:
    result = _normalize(GOOD % "p" + "---\n---\n", cluster="gpu-prod")
    (policy,) = result.facts
    assert isinstance(policy, K8sNetworkPolicy)
    assert policy.cluster == "gpu-prod"
    assert policy.subject() == "gpu-prod/team-a/kubernetes p"
    assert result.problems == []


@pytest.mark.parametrize(
    "content",
    [b"", b"\xff\xfe\x00garbage", b"\t- \x00", b"{{{{", b"[1, 2", b"kind: List\nitems: 5\n", b"null"],
)
def test_garbage_never_raises(content: bytes) -> None:
    result = _normalize(content)
    assert result.facts == []
    assert all(p.line is None or p.line >= 1 for p in result.problems)


def test_api_server_defaults_for_policy_types_and_protocol() -> None:
    """Hand-checked against SetDefaults_NetworkPolicy: Egress is added only for a non-empty egress list."""
    text = (
        GOOD % "no-types"
        + "---\n"
        + GOOD.replace("{podSelector: {}}", "{podSelector: {}, egress: []}") % "empty-egress"
        + "---\n"
        + GOOD.replace("{podSelector: {}}", "{podSelector: {}, policyTypes: [], egress: [{}]}") % "egress-all"
        + "---\n"
        + GOOD.replace("{podSelector: {}}", "{podSelector: {}, ingress: [{ports: [{port: 53}]}]}") % "tcp"
    )
    policies = _policies(_normalize(text))
    assert policies["no-types"].policy_types == ["Ingress"]
    assert policies["empty-egress"].policy_types == ["Ingress"]
    assert policies["egress-all"].policy_types == ["Ingress", "Egress"]
    assert policies["egress-all"].egress[0].allows_everything()
    assert [(p.protocol, p.port, p.end_port) for p in policies["tcp"].ingress[0].ports] == [("TCP", 53, None)]


STEERING = """apiVersion: cilium.io/v2
kind: CiliumEgressGatewayPolicy
metadata: {name: gpu-egress}
spec:
  selectors: [{podSelector: {matchLabels: {app: trainer}}}]
  destinationCIDRs: [0.0.0.0/0]
  egressGateway: {nodeSelector: {matchLabels: {egress-gw: "true"}}, egressIP: 203.0.113.9}
---
apiVersion: cilium.io/v2
kind: CiliumLocalRedirectPolicy
metadata: {name: nodelocaldns, namespace: kube-system}
spec:
  redirectFrontend: {serviceMatcher: {serviceName: kube-dns, namespace: kube-system}}
  redirectBackend:
    localEndpointSelector: {matchLabels: {k8s-app: node-local-dns}}
    toPorts: [{port: "53", name: dns, protocol: UDP}]
---
apiVersion: cilium.io/v2
kind: CiliumNetworkPolicy
metadata: {name: web, namespace: team-a}
spec: {endpointSelector: {}, egress: [{toEntities: [world]}]}
"""


def test_cilium_steering_kinds_are_not_policies() -> None:
    """Egress gateways and local redirects steer traffic but allow or deny nothing: read as absent,
    not as a kind the engine cannot evaluate (which would make every finding NOT_ASSESSED)."""
    result = _normalize(STEERING)
    assert result.problems == []
    (policy,) = result.facts
    assert isinstance(policy, K8sNetworkPolicy) and policy.flavor == PolicyFlavor.CILIUM
