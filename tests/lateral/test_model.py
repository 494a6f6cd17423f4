"""The pieces of the reachability model, each on a case small enough to reason about by hand."""

from __future__ import annotations

from typing import Any, Literal

from auditor.config.models import Intent
from auditor.enums import Tier
from auditor.facts import AclEntry, FactRecord, record_from_json
from auditor.facts.kubernetes import K8sNetworkPolicy, LabelSelector
from auditor.store.reader import StoredFact
from checks.k8s.compile import compile_policies
from checks.k8s.connlist import describe, ip_atoms
from checks.k8s.engine import PolicyEngine
from checks.k8s.selectors import witness
from checks.k8s.workloads import NamedPort, Workload, freeze
from checks.lateral import device_acl
from checks.lateral.addresses import IPSet
from checks.lateral.assemble import Scope, answer, build
from checks.lateral.conns import ConnSet
from checks.lateral.filters import Box, Entry, first_match
from checks.lateral.intervals import IntervalSet

INTENT = Intent.model_validate(
    {
        "tiers": {
            "oob": {"cidrs": ["10.250.0.0/16"], "vrfs": ["MGMT"]},
            "frontend": {"cidrs": ["10.20.0.0/16"], "vrfs": ["FRONTEND"]},
            "backend": {"cidrs": ["10.30.0.0/15"]},
        }
    }
)


def _facts(target: str, *raw: dict[str, Any]) -> list[StoredFact[FactRecord]]:
    out: list[StoredFact[FactRecord]] = []
    for i, item in enumerate(raw, start=1):
        data = dict(item)
        record = record_from_json(data.pop("kind"), data)
        out.append(StoredFact(i, record.kind, target, 1, "0" * 64, record))
    return out


def _reach(facts: list[StoredFact[FactRecord]], devices: set[str]) -> dict[str, bool]:
    def of(model: type[FactRecord]) -> list[StoredFact[FactRecord]]:
        return [f for f in facts if isinstance(f.record, model)]

    model = build(INTENT, of, Scope(devices=frozenset(devices)))
    return {f"{r.source.id} -> {r.tier.value}": bool(r.path) for r in answer(model)}


def test_interval_sets_stay_canonical() -> None:
    a = IntervalSet.of((1, 5), (6, 10), (20, 30))
    assert a.spans == ((1, 10), (20, 30))
    assert a.subtract(IntervalSet.of((3, 25))).spans == ((1, 2), (26, 30))
    assert a.intersect(IntervalSet.of((8, 22))).spans == ((8, 10), (20, 22))
    assert IPSet.parse("10.0.0.0/8").subtract(IPSet.parse("10.1.0.0/16")).cidrs()[:2] == [
        "10.0.0.0/16",
        "10.2.0.0/15",
    ]


def test_connection_text_is_netpol_analyzers() -> None:
    assert ConnSet.everything().describe() == "All Connections"
    both = ConnSet.ports("TCP", 10053, 10053).union(ConnSet.ports("UDP", 10053, 10053))
    assert both.describe() == "TCP 10053,UDP 10053"
    assert ConnSet.ports("SCTP", 8956, 8956).union(ConnSet.ports("sctp", 9090)).describe() == "SCTP 8956,9090"
    assert ConnSet.ports("UDP").describe() == "UDP 1-65535"
    assert ConnSet.ports("TCP", 8080, 8081).describe() == "TCP 8080-8081"


def test_ip_atoms_cut_the_space_at_every_block_boundary() -> None:
    atoms = ip_atoms([IPSet.parse("0.0.0.0/1"), IPSet.parse("10.0.0.0/8")])
    assert [a.v4_ranges()[0] for a in atoms] == [
        "0.0.0.0-9.255.255.255",
        "10.0.0.0-10.255.255.255",
        "11.0.0.0-127.255.255.255",
        "128.0.0.0-255.255.255.255",
    ]


def test_device_acl_entries_parse_wildcards_hosts_and_service_names() -> None:
    assert device_acl.address("10.1.0.0 0.0.255.255") == IPSet.parse("10.1.0.0/16")
    assert device_acl.address("host 10.250.200.10") == IPSet.parse("10.250.200.10/32")
    assert device_acl.address("10.0.0.0 0.255.0.255") == IPSet.everything()  # discontiguous: any
    entry = AclEntry(
        action="permit",
        protocol="tcp",
        source="any",
        destination="any",
        destination_ports="eq ssh https",
        text="permit tcp any any eq ssh https",
    )
    assert device_acl.conns(entry) == ConnSet(tcp=IntervalSet.of((22, 22), (443, 443)))
    assert device_acl.ports("range 1000 2000") == IntervalSet.of((1000, 2000))


def test_first_match_lets_an_earlier_deny_win() -> None:
    deny = Entry(
        Box(IPSet.everything(), IPSet.parse("10.250.0.0/16"), ConnSet.everything()), False, "90 deny"
    )
    allow = Entry(Box(IPSet.everything(), IPSet.everything(), ConnSet.everything()), True, "100 allow")
    query = Box(IPSet.parse("10.20.0.0/24"), IPSet.parse("10.0.0.0/8"), ConnSet.ports("TCP", 22, 22))
    decision = first_match(query, [deny, allow])
    assert decision.dst == IPSet.parse("10.0.0.0/8").subtract(IPSet.parse("10.250.0.0/16"))
    assert first_match(Box(query.src, IPSet.parse("10.250.1.0/24"), query.conns), [deny, allow]).allowed == []


def _leaf(*routes: dict[str, Any]) -> list[StoredFact[FactRecord]]:
    return _facts(
        "fe-leaf1",
        {
            "kind": "interface",
            "device": "fe-leaf1",
            "name": "Vlan10",
            "type": "vlan",
            "vrf": "FRONTEND",
            "ipv4": ["10.20.10.1/24"],
        },
        {
            "kind": "interface",
            "device": "fe-leaf1",
            "name": "Ethernet1",
            "type": "ethernet",
            "vrf": "FRONTEND",
            "ipv4": ["10.21.0.0/31"],
        },
        *routes,
    )


def test_a_default_route_out_of_the_evidence_is_not_a_path_but_a_specific_one_is() -> None:
    default = {
        "kind": "route",
        "device": "fe-leaf1",
        "vrf": "FRONTEND",
        "prefix": "0.0.0.0/0",
        "next_hop": "10.21.0.1",
    }
    assert _reach(_leaf(default), {"fe-leaf1"}) == {
        "fe-leaf1/vrf FRONTEND -> oob": False,
        "fe-leaf1/vrf FRONTEND -> backend": False,
    }
    specific = {
        "kind": "route",
        "device": "fe-leaf1",
        "vrf": "FRONTEND",
        "prefix": "10.30.4.0/24",
        "next_hop": "10.21.0.1",
    }
    assert _reach(_leaf(default, specific), {"fe-leaf1"})["fe-leaf1/vrf FRONTEND -> backend"] is True


def test_an_inbound_acl_on_the_next_device_breaks_the_transit_path() -> None:
    route = {
        "kind": "route",
        "device": "fe-leaf1",
        "vrf": "FRONTEND",
        "prefix": "10.250.10.0/24",
        "next_hop": "10.21.0.1",
    }
    oob = [
        {
            "kind": "interface",
            "device": "oob-sw1",
            "name": "Ethernet1",
            "type": "ethernet",
            "vrf": "MGMT",
            "ipv4": ["10.21.0.1/31"],
        },
        {
            "kind": "interface",
            "device": "oob-sw1",
            "name": "Vlan100",
            "type": "vlan",
            "vrf": "MGMT",
            "ipv4": ["10.250.10.1/24"],
        },
    ]
    facts = _leaf(route) + _facts("oob-sw1", *oob)
    assert _reach(facts, {"fe-leaf1", "oob-sw1"})["fe-leaf1/vrf FRONTEND -> oob"] is True
    acl: list[dict[str, Any]] = [
        {
            "kind": "acl",
            "device": "oob-sw1",
            "name": "EDGE",
            "entries": [
                {
                    "action": "permit",
                    "protocol": "ip",
                    "source": "host 10.250.200.10",
                    "destination": "any",
                    "text": "10 permit ip host 10.250.200.10 any",
                }
            ],
        },
        {
            "kind": "acl_binding",
            "device": "oob-sw1",
            "acl": "EDGE",
            "attach_point": "interface",
            "name": "Ethernet1",
            "direction": "in",
        },
    ]
    facts = _leaf(route) + _facts("oob-sw1", *oob, *acl)
    assert _reach(facts, {"fe-leaf1", "oob-sw1"})["fe-leaf1/vrf FRONTEND -> oob"] is False


def _policy(namespace: str | None, name: str, flavor: str, **fields: Any) -> tuple[K8sNetworkPolicy, object]:
    record = K8sNetworkPolicy.model_validate(
        {"cluster": "c", "namespace": namespace, "name": name, "flavor": flavor, **fields}
    )
    return record, record


def test_named_ports_resolve_against_the_destination_pod_and_end_port_spans_a_range() -> None:
    egress = _policy(
        "a",
        "out",
        "kubernetes",
        pod_selector={},
        policy_types=["Egress"],
        egress=[
            {
                "ports": [
                    {"protocol": "TCP", "port": "http"},
                    {"protocol": "UDP", "port": 5000, "end_port": 5010},
                ]
            }
        ],
    )
    engine = PolicyEngine({}, compile_policies([egress]))
    src = Workload("a", "client", "Deployment")
    web = Workload("b", "web", "Deployment", ports=(NamedPort(8080, "TCP", "http"),))
    other = Workload("b", "db", "Deployment", ports=(NamedPort(5432, "TCP", "pg"),))
    assert describe(engine.allowed(src, web).conns) == "TCP 8080,UDP 5000-5010"
    assert describe(engine.allowed(src, other).conns) == "UDP 5000-5010"


def test_admin_deny_beats_a_networkpolicy_allow_and_pass_defers_to_it() -> None:
    allow_all = _policy("a", "allow", "kubernetes", pod_selector={}, policy_types=["Ingress"], ingress=[{}])
    anp = _policy(
        None,
        "guard",
        "admin",
        spec={
            "priority": 5,
            "subject": {"namespaces": {"matchLabels": {"kubernetes.io/metadata.name": "a"}}},
            "ingress": [
                {
                    "action": "Pass",
                    "from": [{"namespaces": {"matchLabels": {"trusted": "yes"}}}],
                    "ports": [{"portNumber": {"protocol": "TCP", "port": 22}}],
                },
                {
                    "action": "Deny",
                    "from": [{"namespaces": {}}],
                    "ports": [{"portRange": {"protocol": "TCP", "start": 1, "end": 1023}}],
                },
            ],
        },
    )
    namespaces = {
        "a": {"kubernetes.io/metadata.name": "a"},
        "t": {"kubernetes.io/metadata.name": "t", "trusted": "yes"},
        "u": {"kubernetes.io/metadata.name": "u"},
    }
    engine = PolicyEngine(namespaces, compile_policies([allow_all, anp]))
    dst = Workload("a", "api", "Deployment")
    trusted, untrusted = Workload("t", "ops", "Deployment"), Workload("u", "app", "Deployment")
    ssh = ConnSet.ports("TCP", 22, 22)
    assert ssh.issubset(engine.allowed(trusted, dst).conns)  # passed, then allowed by the NetworkPolicy
    assert not ssh.intersect(engine.allowed(untrusted, dst).conns)  # denied whatever the NetworkPolicy says
    assert ConnSet.ports("TCP", 8080, 8080).issubset(engine.allowed(untrusted, dst).conns)


def test_representative_pods_satisfy_the_selector_minimally() -> None:
    selector = LabelSelector.model_validate(
        {
            "match_labels": {"app": "x"},
            "match_expressions": [
                {"key": "tier", "operator": "In", "values": ["web"]},
                {"key": "debug", "operator": "DoesNotExist"},
            ],
        }
    )
    found = witness(selector)
    assert found is not None
    labels = dict(found)
    assert labels == {"app": "x", "tier": "web"}
    assert selector.matches(labels)
    assert freeze(labels) == (("app", "x"), ("tier", "web"))


def test_tier_sources_are_not_their_own_findings() -> None:
    facts = _facts(
        "oob-sw1",
        {
            "kind": "interface",
            "device": "oob-sw1",
            "name": "Vlan1",
            "type": "vlan",
            "vrf": "MGMT",
            "ipv4": ["10.250.1.1/24"],
        },
    )
    assert _reach(facts, {"oob-sw1"}) == {}
    assert Tier.OOB.value == "oob"


def test_established_entries_neither_open_nor_stop_a_new_connection() -> None:
    def entry(seq: int, action: Literal["permit", "deny"], text: str, ports: str | None = None) -> AclEntry:
        return AclEntry(
            sequence=seq,
            action=action,
            protocol="tcp",
            source="any",
            destination="10.250.10.0/24",
            destination_ports=ports,
            text=text,
        )

    acl = [
        entry(10, "permit", "10 permit tcp any 10.250.10.0/24 established"),
        entry(20, "deny", "20 deny tcp any 10.250.10.0/24 established"),
        entry(30, "permit", "30 permit tcp any 10.250.10.0/24 eq ssh", "eq ssh"),
    ]
    boxes = device_acl.entries(acl, "BMC-IN", None)
    assert [e.label for e in boxes] == ["BMC-IN: 30 permit tcp any 10.250.10.0/24 eq ssh"]
    query = Box(IPSet.parse("10.20.0.0/16"), IPSet.parse("10.250.10.0/24"), ConnSet.ports("TCP", 443, 443))
    assert first_match(query, boxes).allowed == []  # HTTPS: only `established` lines ever named it
