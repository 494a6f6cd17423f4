"""The NX-OS show-json normalizer.

No public NX-API JSON capture of these commands exists, so the inputs are built from real captures:
the records ntc-templates parsed from real `show ip route`, `show nve vni` and `show access-lists`
text (tests/fixtures/ntc/cisco_nxos, each .yml's parsed_sample) are laid out in NX-API's documented
TABLE_x/ROW_x structure, normalized, and the facts compared with the parsed records field by field.
The PFC input is synthetic (tests/fixtures/nxos_show/SOURCE.txt).
"""

from __future__ import annotations

import ipaddress
import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
import yaml

from auditor.capture import RawCapture
from auditor.enums import FactKind
from auditor.facts import Acl, QosInterface, Route, VxlanVni
from auditor.normalize import NormalizeResult
from collectors.platforms.nxos.show import normalize_show_json

NTC = Path(__file__).resolve().parents[1] / "fixtures" / "ntc" / "cisco_nxos"
FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "nxos_show"
ROUTES = sorted((NTC / "show_ip_route").glob("*.yml"))
ACLS = sorted((NTC / "show_access-lists").glob("*.yml"))
VNIS = sorted((NTC / "show_nve_vni").glob("*.yml"))


def _capture(command: str, doc: Any) -> RawCapture:
    return RawCapture(
        target="nx1",
        format="nxos.show-json",
        source=command,
        origin="nx1.example:22",
        collected_at=datetime(2025, 3, 4, tzinfo=UTC),
        content=json.dumps(doc, indent=1).encode(),
        meta={"device": "nx1", "platform": "nxos", "command": command},
    )


def _parsed(path: Path) -> list[dict[str, str]]:
    return list(yaml.safe_load(path.read_text())["parsed_sample"])


def _table(name: str, rows: list[dict[str, Any]]) -> dict[str, Any]:
    return {f"TABLE_{name}": {f"ROW_{name}": rows[0] if len(rows) == 1 else rows}}


def _route_doc(records: list[dict[str, str]]) -> dict[str, Any]:
    """ntc records -> show ip route vrf all | json (one path row per record)."""
    vrfs: dict[str, dict[str, list[dict[str, Any]]]] = {}
    for r in records:
        prefixes = vrfs.setdefault(r["vrf"], {})
        if not r["network"]:
            continue
        path = {
            "ipnexthop": r["nexthop_ip"],
            "ifname": r["nexthop_if"],
            "pref": r["distance"],
            "metric": r["metric"],
            "clientname": r["protocol"],
            "ubest": "true",
        }
        prefixes.setdefault(f"{r['network']}/{r['prefix_length']}", []).append(
            {k: v for k, v in path.items() if v}
        )
    vrf_rows = []
    for vrf, prefixes in vrfs.items():
        prefix_rows = [{"ipprefix": p, **_table("path", paths)} for p, paths in prefixes.items()]
        af = {"addrf": "ipv4", **(_table("prefix", prefix_rows) if prefix_rows else {})}
        vrf_rows.append({"vrf-name-out": vrf, **_table("addrf", [af])})
    return _table("vrf", vrf_rows)


def _protocol(raw: str) -> str:
    base = raw.split("-", maxsplit=1)[0]
    return {"direct": "connected"}.get(base, base)


@pytest.mark.parametrize("path", ROUTES, ids=[p.stem for p in ROUTES])
def test_routes_field_by_field(path: Path) -> None:
    records = _parsed(path)
    result = normalize_show_json(_capture("show ip route vrf all | json", _route_doc(records)))
    assert result.problems == [] and result.covers == {FactKind.ROUTE}
    want = sorted(
        (
            r["vrf"],
            str(ipaddress.ip_network(f"{r['network']}/{r['prefix_length']}", strict=False)),
            _protocol(r["protocol"]),
            r["nexthop_ip"] or None,
            r["nexthop_if"] or None,
            int(r["distance"]) if r["distance"] else None,
        )
        for r in records
        if r["network"]
    )
    got = sorted((r.vrf, r.prefix, r.protocol, r.next_hop, r.interface, r.distance) for r in result.facts)
    assert got == want
    assert all(isinstance(r, Route) and r.device == "nx1" for r in result.facts)


def _acl_doc(records: list[dict[str, str]]) -> dict[str, Any]:
    acls: dict[str, list[dict[str, Any]]] = {}
    for r in records:
        row: dict[str, Any] = {"seqno": int(r["sn"])}
        if r["remark"]:
            row["remark"] = r["remark"]
        else:
            row["permitdeny"] = r["action"]
            if r["protocol"]:
                row["proto_str"] = r["protocol"]
            row["src_any" if r["source"] == "any" else "src_ip_prefix"] = r["source"]
            row["dest_any" if r["destination"] == "any" else "dest_ip_prefix"] = r["destination"]
        acls.setdefault(r["name"], []).append(row)
    return _table("ip_ipv6_mac", [{"acl_name": n, **_table("seqno", rs)} for n, rs in acls.items()])


@pytest.mark.parametrize("path", ACLS, ids=[p.stem for p in ACLS])
def test_acls_field_by_field(path: Path) -> None:
    records = _parsed(path)
    result = normalize_show_json(_capture("show ip access-lists | json", _acl_doc(records)))
    assert result.problems == [] and result.covers == {FactKind.ACL}
    acls = {a.name: a for a in result.facts if isinstance(a, Acl)}
    assert set(acls) == {r["name"] for r in records}
    for name, acl in acls.items():
        mine = [r for r in records if r["name"] == name]
        assert [e.sequence for e in acl.entries] == [int(r["sn"]) for r in mine]
        for entry, r in zip(acl.entries, mine, strict=True):
            if r["remark"]:
                assert (entry.action, entry.text) == ("remark", f"{r['sn']} remark {r['remark']}")
                continue
            assert entry.action == r["action"]
            assert entry.protocol == (r["protocol"] or None)
            assert (entry.source, entry.destination) == (r["source"], r["destination"])
            assert entry.text.startswith(f"{r['sn']} {r['action']}")


@pytest.mark.parametrize("path", VNIS, ids=[p.stem for p in VNIS])
def test_nve_vnis_field_by_field(path: Path) -> None:
    records = _parsed(path)
    rows = [
        {
            "if-name": r["interface"],
            "vni": r["vni"],
            "type": f"{r['type']} [{r['bd_vrf']}]",
            "vni-state": r["state"],
            "mode": r["mode"],
        }
        for r in records
    ]
    result = normalize_show_json(_capture("show nve vni | json", _table("nve_vni", rows)))
    assert result.problems == [] and result.covers == {FactKind.VXLAN_VNI}
    got = sorted((v.vni, v.vlan, v.vrf) for v in result.facts if isinstance(v, VxlanVni))
    want = sorted(
        (
            int(r["vni"]),
            int(r["bd_vrf"]) if r["type"] == "L2" else None,
            r["bd_vrf"] if r["type"] == "L3" else None,
        )
        for r in records
    )
    assert got == want


def test_pfc_rows() -> None:
    doc = json.loads((FIXTURES / "synthetic_show_interface_priority-flow-control.json").read_text())
    result = normalize_show_json(_capture("show interface priority-flow-control | json", doc))
    assert result.covers == {FactKind.QOS_INTERFACE} and result.problems == []
    got = {
        q.interface: (q.pfc_enabled, q.pfc_no_drop_priorities)
        for q in result.facts
        if isinstance(q, QosInterface)
    }
    assert got == {"Ethernet1/1": (True, [3]), "Ethernet1/2": (False, []), "Ethernet1/3": (True, [3, 4])}


def test_single_row_tables_are_dicts_and_still_read() -> None:
    doc = _table(
        "vrf",
        [
            {
                "vrf-name-out": "RDMA-A",
                **_table(
                    "addrf",
                    [
                        {
                            "addrf": "ipv4",
                            **_table(
                                "prefix",
                                [
                                    {
                                        "ipprefix": "0.0.0.0/0",
                                        **_table(
                                            "path",
                                            [
                                                {
                                                    "ipnexthop": "10.0.0.1",
                                                    "clientname": "static",
                                                    "pref": "1",
                                                    "ubest": "true",
                                                }
                                            ],
                                        ),
                                    }
                                ],
                            ),
                        }
                    ],
                ),
            }
        ],
    )
    result = normalize_show_json(_capture("show ip route vrf all | json", doc))
    assert [(r.vrf, r.prefix, r.next_hop, r.protocol, r.distance) for r in result.facts] == [
        ("RDMA-A", "0.0.0.0/0", "10.0.0.1", "static", 1)
    ]


def test_bad_rows_cost_only_themselves() -> None:
    vni_rows = [
        {"vni": "10010", "type": "L2 [10]"},
        {"vni": "x", "type": "L2 [11]"},
        {"vni": "3", "type": "??"},
    ]
    result = normalize_show_json(_capture("show nve vni | json", _table("nve_vni", vni_rows)))
    assert [(v.vni, v.vlan) for v in result.facts if isinstance(v, VxlanVni)] == [(10010, 10)]
    assert len(result.problems) == 2 and all(p.origin == "nx1.example:22" for p in result.problems)


def test_evidence_only_and_unknown_commands() -> None:
    quiet: NormalizeResult = normalize_show_json(_capture("show ip access-lists summary | json", {}))
    assert (quiet.facts, quiet.covers, quiet.problems) == ([], set(), [])
    loud = normalize_show_json(_capture("show clock | json", {}))
    assert loud.covers == set() and "no reader" in loud.problems[0].message
