"""Field-by-field comparisons of normalized facts with public ground truth, shared by tests and benchmark.

Each `*_fields` generator yields `(where, got, want)` for one ground-truth file: the tests assert
`got == want` for each, benchmarks/ground_truth_agreement.py counts them. A record the facts lack is
yielded with `got=MISSING`, a record the ground truth lacks with `want=MISSING`. Comparisons that the
ground truth gives only as a set of records (routes, LLDP neighbours, bindings) count one field per
record. The expectations themselves come from the test modules' helpers (test_eos's `expect_*`,
test_napalm's `_interface_vrfs`, test_nxos_show's `_route_doc`/`_acl_doc`, ...), never copied here.
"""

from __future__ import annotations

import ipaddress
import json
from collections import Counter
from collections.abc import Hashable, Iterable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from auditor.capture import RawCapture
from auditor.facts.network import (
    Acl,
    AclBinding,
    BgpNeighbor,
    Interface,
    LldpNeighbor,
    MgmtService,
    QosInterface,
    Route,
    Vlan,
    Vrf,
    VxlanVni,
)
from tests.normalizers import test_eos as eos

Field = tuple[str, Any, Any]
MISSING = "<missing>"
ADDRESS_FIELDS = {"ipv4", "ipv4_virtual", "ipv6"}


def records(where: str, got: Iterable[Hashable], want: Iterable[Hashable]) -> Iterator[Field]:
    """A set-style comparison as one field per record (a multiset: duplicates count)."""
    g, w = Counter(list(got)), Counter(list(want))
    for rec in sorted(g | w, key=repr):
        for _ in range(max(g[rec], w[rec])):
            yield (where, rec if g[rec] > 0 else MISSING, rec if w[rec] > 0 else MISSING)
            g[rec], w[rec] = g[rec] - 1, w[rec] - 1


def keyed(where: str, got: dict[Any, dict[str, Any]], want: dict[Any, dict[str, Any]]) -> Iterator[Field]:
    """Per record key, per field; a missing record yields each of the other side's fields as missing."""
    for key in sorted(set(got) | set(want), key=repr):
        g, w = got.get(key), want.get(key)
        for field in sorted(set(g or {}) | set(w or {})):
            yield (
                f"{where} {key} {field}",
                MISSING if g is None else g.get(field),
                MISSING if w is None else w.get(field),
            )


# --- AVD structured configs (EOS) -------------------------------------------------------------------


def avd_interface_fields(case: eos.Case) -> Iterator[Field]:
    want = {i["name"]: eos.expect_interface(i) for i in eos.model_interfaces(case.model, case.molecule)}
    got = {
        i.name: i.model_dump(include=set(eos.expect_interface({"name": "x"})))
        for i in eos.facts_of(case.result, Interface)
    }
    for side in (want, got):
        for rec in side.values():
            for field in ADDRESS_FIELDS:
                rec[field] = eos._addr_key(rec[field])
            rec["addresses"] = eos.kinds_key(rec["addresses"])
    yield from keyed("interface", got, want)


def avd_vrf_fields(case: eos.Case) -> Iterator[Field]:
    model = case.model
    actual = {v.name: v for v in eos.facts_of(case.result, Vrf)}
    yield from records("vrf names", actual, eos.expect_vrf_names(model, case.molecule))
    routing = {v["name"]: eos.expect_ip_routing(v) for v in model.get("vrfs") or [] if v["name"] != "default"}
    # the default VRF is the top-level key; AVD's `vrfs: [{name: default}]` renders no `vrf default` line
    routing["default"] = eos.expect_ip_routing(model)
    bgp = model.get("router_bgp") or {}
    bgp_vrfs = {v["name"]: v for v in bgp.get("vrfs") or []}
    l3_vnis = {
        v["name"]: v["vni"]
        for x in (model.get("vxlan_interface") or {}).values()
        for v in x["vxlan"].get("vrfs") or []
    }
    members: dict[str, list[str]] = {}
    for intf in eos.model_interfaces(model, case.molecule):
        members.setdefault(intf.get("vrf") or "default", []).append(intf["name"])
    for name, vrf in actual.items():
        b = bgp_vrfs.get(name, {})
        rts = b.get("route_targets") or {}
        redistribute = eos.render_redistribute(b.get("redistribute") or {})
        if name == "default":
            redistribute = sorted(
                eos.render_redistribute(bgp.get("redistribute") or {})
                + eos.render_redistribute(
                    (bgp.get("address_family_ipv4") or {}).get("redistribute") or {}, " (address-family ipv4)"
                )
                + eos.render_redistribute(
                    (bgp.get("address_family_ipv4_multicast") or {}).get("redistribute") or {},
                    " (address-family ipv4 multicast)",
                )
            )
        yield (f"vrf {name} ip_routing", vrf.ip_routing, routing.get(name))
        yield (f"vrf {name} rd", vrf.rd, b.get("rd"))
        for direction, got in (("import", vrf.route_targets_import), ("export", vrf.route_targets_export)):
            want = [
                f"{e['address_family']} {rt}" for e in rts.get(direction) or [] for rt in e["route_targets"]
            ]
            yield (f"vrf {name} route_targets_{direction}", got, want)
        yield (f"vrf {name} l3_vni", vrf.l3_vni, l3_vnis.get(name))
        yield (f"vrf {name} interfaces", sorted(vrf.interfaces), sorted(members.get(name, [])))
        yield (f"vrf {name} bgp_redistribute", sorted(vrf.bgp_redistribute), redistribute)
        networks = [str(ipaddress.ip_network(n["prefix"])) for n in b.get("networks") or []]
        yield (f"vrf {name} bgp_networks", vrf.bgp_networks, networks)
        yield (f"vrf {name} leaks", vrf.leaks, [])  # no AVD fixture leaks routes between VRFs


def avd_fields(case: eos.Case) -> Iterator[Field]:
    """Every comparison test_eos makes for one AVD case, as fields."""
    model, result = case.model, case.result
    yield from avd_interface_fields(case)
    yield from avd_vrf_fields(case)
    vlans = model.get("vlans") or []
    want_vlans = {
        int(v["id"]): {
            "name": v.get("name"),
            "trunk_groups": v.get("trunk_groups") or [],
            "interfaces": eos.expect_vlan_members(model, int(v["id"]), v.get("trunk_groups") or []),
        }
        for v in vlans
    }
    got_vlans = {
        v.vlan_id: {"name": v.name, "trunk_groups": v.trunk_groups, "interfaces": sorted(v.interfaces)}
        for v in eos.facts_of(result, Vlan)
    }
    yield from keyed("vlan", got_vlans, want_vlans)
    want_vni = set()
    for vxlan in (model.get("vxlan_interface") or {}).values():
        want_vni |= {(v["vni"], v["id"], None) for v in vxlan["vxlan"].get("vlans") or []}
        want_vni |= {(v["vni"], None, v["name"]) for v in vxlan["vxlan"].get("vrfs") or []}
    yield from records("vni", [(v.vni, v.vlan, v.vrf) for v in eos.facts_of(result, VxlanVni)], want_vni)
    want_routes = [
        (
            r.get("vrf") or "default",
            str(ipaddress.ip_network(r["destination_address_prefix"], strict=False)),
            r.get("gateway"),
            (r.get("interface") or "").lower() or None,
            r.get("distance"),
            r.get("name"),
        )
        for r in model.get("static_routes") or []
    ]
    got_routes = [
        (r.vrf, r.prefix, r.next_hop, (r.interface or "").lower() or None, r.distance, r.name)
        for r in eos.facts_of(result, Route)
    ]
    yield from records("static route", got_routes, want_routes)
    bgp_fields = {"remote_as", "peer_group", "description", "default_originate", "shutdown", "update_source"}
    got_bgp = {(n.vrf, n.peer): n.model_dump(include=bgp_fields) for n in eos.facts_of(result, BgpNeighbor)}
    yield from keyed("bgp neighbor", got_bgp, eos.expect_bgp_neighbors(model.get("router_bgp") or {}))
    yield from avd_acl_fields(case)
    yield from records(
        "mgmt service",
        [(s.service, s.vrf, s.enabled) for s in eos.facts_of(result, MgmtService)],
        _avd_mgmt(model),
    )
    got_qos = {
        q.interface: {
            "pfc_enabled": q.pfc_enabled,
            "priorities": {
                **dict.fromkeys(q.pfc_drop_priorities, False),
                **dict.fromkeys(q.pfc_no_drop_priorities, True),
            },
            "watchdog": q.pfc_watchdog,
            "ecn": q.ecn_queues,
            "trust": q.trust,
            "policy": q.service_policy_in,
        }
        for q in eos.facts_of(result, QosInterface)
    }
    yield from keyed("qos", got_qos, eos.expect_qos(model))


def avd_acl_fields(case: eos.Case) -> Iterator[Field]:
    """ACL entries (one field per entry, in order) and ACL bindings (one per binding)."""
    expected = eos.expect_acls(case.model)
    actual = {(a.name, a.family, a.standard): a for a in eos.facts_of(case.result, Acl)}
    structured = {a["name"] for a in case.model.get("ip_access_lists") or []}
    for key in sorted(set(actual) | set(expected), key=repr):
        got: list[tuple[Any, ...]]
        if key in actual and key[0] in structured:
            got = [
                (
                    e.sequence,
                    e.action,
                    e.protocol,
                    e.source,
                    e.source_ports,
                    e.destination,
                    e.destination_ports,
                )
                for e in actual[key].entries
            ]
        elif key in actual:
            got = [(e.sequence, e.action, e.text) for e in actual[key].entries]
        else:
            got = []
        want = expected.get(key, [])
        for i in range(max(len(got), len(want))):
            yield (
                f"acl {key[0]} entry {i + 1}",
                got[i] if i < len(got) else MISSING,
                want[i] if i < len(want) else MISSING,
            )
    bind_keys = {
        "access_group_in": "in",
        "access_group_out": "out",
        "ipv6_access_group_in": "in",
        "ipv6_access_group_out": "out",
        "mac_access_group_in": "in",
        "mac_access_group_out": "out",
    }
    want_b = set()
    for intf in eos.model_interfaces(case.model, case.molecule):
        want_b |= {(intf[k], "interface", intf["name"], d, None) for k, d in bind_keys.items() if intf.get(k)}
    for vrf in (case.model.get("management_api_http") or {}).get("enable_vrfs") or []:
        for k in ("access_group", "ipv6_access_group"):
            if vrf.get(k):
                want_b.add((vrf[k], "management", "eapi", "in", vrf["name"]))
    got_b = [
        (b.acl, b.attach_point, b.name, b.direction, b.vrf) for b in eos.facts_of(case.result, AclBinding)
    ]
    yield from records("acl binding", got_b, want_b)


def _avd_mgmt(model: dict[str, Any]) -> set[tuple[str, str, bool]]:
    http = model.get("management_api_http")
    want = {("ssh", "default", True), ("telnet", "default", False), ("gnmi", "default", False)}
    want |= {("netconf", "default", False), ("snmp", "default", False), ("eapi", "default", http is not None)}
    want |= {("eapi", v["name"], True) for v in (http or {}).get("enable_vrfs") or []}
    return want


# --- NAPALM getter results ------------------------------------------------------------------------


def napalm_capture(fmt: str, value: Any, platform: str) -> RawCapture:
    """test_napalm's capture, for any platform (the getter names interfaces the platform's way)."""
    return RawCapture(
        target="leaf1",
        format=fmt,
        source=f"napalm {platform} {fmt.partition('.')[2]}",
        origin="leaf1.example:443",
        collected_at=datetime(2025, 3, 4, tzinfo=UTC),
        content=json.dumps(value, sort_keys=True, indent=1).encode(),
        meta={"device": "leaf1", "platform": platform, "tier": "frontend", "role": "leaf"},
    )


def napalm_vrf_fields(result_facts: list[Any], expected: dict[str, Any]) -> Iterator[Field]:
    got = {v.name: {"rd": v.rd, "interfaces": v.interfaces} for v in result_facts if isinstance(v, Vrf)}
    want = {
        ("default" if e["type"] == "DEFAULT_INSTANCE" else n): {
            "rd": e["state"]["route_distinguisher"] or None,
            "interfaces": sorted(e["interfaces"]["interface"]),
        }
        for n, e in expected.items()
    }
    yield from keyed("vrf", got, want)


def napalm_vlan_fields(result_facts: list[Any], expected: dict[str, Any]) -> Iterator[Field]:
    got = {
        v.vlan_id: {"name": v.name, "interfaces": v.interfaces} for v in result_facts if isinstance(v, Vlan)
    }
    want = {
        int(k): {"name": e["name"] or None, "interfaces": sorted(e["interfaces"])}
        for k, e in expected.items()
    }
    yield from keyed("vlan", got, want)


def napalm_lldp_fields(result_facts: list[Any], expected: dict[str, Any]) -> Iterator[Field]:
    got = [
        (n.interface, n.neighbor, n.neighbor_interface) for n in result_facts if isinstance(n, LldpNeighbor)
    ]
    want = [(port, n["hostname"], n["port"]) for port, ns in expected.items() for n in ns]
    yield from records("lldp", got, want)


def napalm_interface_fields(
    result_facts: list[Any], links: dict[str, Any], ips: dict[str, Any], vrf_of: dict[str, str]
) -> Iterator[Field]:
    """get_interfaces + get_interfaces_ip + get_network_instances read back per interface."""
    got = {
        i.name: i.model_dump(include={"enabled", "description", "mtu", "speed_mbps", "ipv4", "ipv6", "vrf"})
        for i in result_facts
        if isinstance(i, Interface)
    }
    want: dict[str, dict[str, Any]] = {}
    for name in set(links) | set(ips):
        w: dict[str, Any] = {}
        link = links.get(name)
        if link is not None:
            w |= {
                "enabled": link["is_enabled"],
                "description": link["description"] or None,
                "mtu": link["mtu"] or None,
                "speed_mbps": round(link["speed"]) if link["speed"] > 0 else None,
            }
        w["ipv4"] = sorted(f"{a}/{p['prefix_length']}" for a, p in ips.get(name, {}).get("ipv4", {}).items())
        w["ipv6"] = sorted(
            str(ipaddress.ip_interface(f"{a}/{p['prefix_length']}"))
            for a, p in ips.get(name, {}).get("ipv6", {}).items()
        )
        w["vrf"] = vrf_of.get(name, "default")
        want[name] = w
    for g in got.values():
        g["ipv4"], g["ipv6"] = sorted(g["ipv4"]), sorted(g["ipv6"])
        for field in [f for f in g if f not in ("ipv4", "ipv6", "vrf")]:
            g.setdefault(field, None)
    # fields the ground truth does not give for an interface (no get_interfaces entry) are not compared
    for name, w in want.items():
        if name in got:
            got[name] = {k: v for k, v in got[name].items() if k in w}
    yield from keyed("interface", got, want)


# --- ntc-templates parsed samples -----------------------------------------------------------------


def ntc_records(yml: Path) -> list[dict[str, Any]]:
    import yaml

    return list(yaml.safe_load(yml.read_text())["parsed_sample"] or [])


def ios_ntc_fields(command_dir: str, facts: list[Any], rows: list[dict[str, Any]]) -> Iterator[Field]:
    """test_ios_show's comparisons, for one ntc-templates cisco_ios sample."""
    from tests.normalizers.test_ios_show import CODES

    if command_dir == "show_ip_route":
        want = [
            (
                r["vrf"] or "default",
                str(ipaddress.ip_network(f"{r['network']}/{r['prefix_length'] or 32}", strict=False)),
                CODES.get(r["protocol"], r["protocol"]),
                r["nexthop_ip"] or None,
                r["nexthop_if"] or None,
                int(r["distance"]) if r["distance"] else None,
            )
            for r in rows
        ]
        got = [(f.vrf, f.prefix, f.protocol, f.next_hop, f.interface, f.distance) for f in facts]
        yield from records("route", got, want)
    elif command_dir == "show_vrf":
        got_v = {v.name: {"rd": v.rd, "interfaces": v.interfaces} for v in facts if isinstance(v, Vrf)}
        want_v = {}
        for r in rows:
            intfs = r["interfaces"] if isinstance(r["interfaces"], list) else [r["interfaces"]]
            rd = None if r["default_rd"] in ("", "<not set>") else r["default_rd"]
            want_v[r["name"]] = {"rd": rd, "interfaces": [i for i in intfs if i]}
        yield from keyed("vrf", got_v, want_v)
    elif command_dir == "show_ip_vrf_interfaces":
        want_i: dict[str, dict[str, Any]] = {}
        for r in rows:
            want_i.setdefault(r["vrf"], {"interfaces": []})["interfaces"].append(r["interface"])
        yield from keyed(
            "vrf", {v.name: {"interfaces": v.interfaces} for v in facts if isinstance(v, Vrf)}, want_i
        )
    elif command_dir == "show_lldp_neighbors":
        got_l = [
            (n.interface, n.neighbor, n.neighbor_interface) for n in facts if isinstance(n, LldpNeighbor)
        ]
        want_l = [(r["local_interface"], r["neighbor_name"], r["neighbor_interface"] or None) for r in rows]
        yield from records("lldp", got_l, want_l)
    elif command_dir == "show_vlan":
        got_vl = {
            v.vlan_id: {"name": v.name, "interfaces": v.interfaces} for v in facts if isinstance(v, Vlan)
        }
        want_vl = {
            int(r["vlan_id"]): {"name": r["vlan_name"] or None, "interfaces": r["interfaces"]} for r in rows
        }
        yield from keyed("vlan", got_vl, want_vl)
    elif command_dir == "show_ip_access-lists":
        yield from _ios_acl_fields(facts, rows)


def _ios_acl_fields(facts: list[Any], rows: list[dict[str, Any]]) -> Iterator[Field]:
    acls = {a.name: a for a in facts if isinstance(a, Acl)}
    yield from records("acl names", acls, {r["acl_name"] for r in rows})
    for name, acl in acls.items():
        mine = [r for r in rows if r["acl_name"] == name and r["action"] in ("permit", "deny")]
        for i, r in enumerate(mine):
            if i >= len(acl.entries):
                yield (f"acl {name} entry {i + 1}", MISSING, r)
                continue
            e, where = acl.entries[i], f"acl {name} entry {i + 1}"
            yield (f"{where} action", e.action, r["action"])
            yield (f"{where} sequence", e.sequence, int(r["line_num"]) if r["line_num"] else None)
            yield (f"{where} protocol", e.protocol, r["protocol"] or None)
            for side, got in (("src", e.source), ("dst", e.destination)):
                if r[f"{side}_any"]:
                    yield (f"{where} {side}", got, "any")
                elif r[f"{side}_host"]:
                    yield (f"{where} {side}", got, f"host {r[f'{side}_host']}")
                elif r[f"{side}_network"]:
                    yield (f"{where} {side}", got and got.split()[0], r[f"{side}_network"])
            if r["dst_port_match"] and r["dst_port_match"] != "range":
                port = r["dst_port"]
                want = f"{r['dst_port_match']} {' '.join(port) if isinstance(port, list) else port}"
                yield (f"{where} dst_ports", e.destination_ports, want)


def nxos_ntc_fields(command_dir: str, facts: list[Any], rows: list[dict[str, Any]]) -> Iterator[Field]:
    """test_nxos_show's comparisons, for one ntc-templates cisco_nxos sample."""
    from tests.normalizers.test_nxos_show import _protocol

    if command_dir == "show_ip_route":
        want = [
            (
                r["vrf"],
                str(ipaddress.ip_network(f"{r['network']}/{r['prefix_length']}", strict=False)),
                _protocol(r["protocol"]),
                r["nexthop_ip"] or None,
                r["nexthop_if"] or None,
                int(r["distance"]) if r["distance"] else None,
            )
            for r in rows
            if r["network"]
        ]
        got = [(r.vrf, r.prefix, r.protocol, r.next_hop, r.interface, r.distance) for r in facts]
        yield from records("route", got, want)
    elif command_dir == "show_access-lists":
        acls = {a.name: a for a in facts if isinstance(a, Acl)}
        yield from records("acl names", acls, {r["name"] for r in rows})
        for name, acl in acls.items():
            mine = [r for r in rows if r["name"] == name]
            for i, r in enumerate(mine):
                e = acl.entries[i] if i < len(acl.entries) else None
                where = f"acl {name} entry {r['sn']}"
                if e is None:
                    yield (where, MISSING, r)
                elif r["remark"]:
                    yield (where, (e.action, e.text), ("remark", f"{r['sn']} remark {r['remark']}"))
                else:
                    yield (f"{where} sequence", e.sequence, int(r["sn"]))
                    yield (f"{where} action", e.action, r["action"])
                    yield (f"{where} protocol", e.protocol, r["protocol"] or None)
                    yield (f"{where} source", e.source, r["source"])
                    yield (f"{where} destination", e.destination, r["destination"])
    elif command_dir == "show_nve_vni":
        got_v = [(v.vni, v.vlan, v.vrf) for v in facts if isinstance(v, VxlanVni)]
        want_v = [
            (
                int(r["vni"]),
                int(r["bd_vrf"]) if r["type"] == "L2" else None,
                r["bd_vrf"] if r["type"] == "L3" else None,
            )
            for r in rows
        ]
        yield from records("vni", got_v, want_v)


NXOS_NTC_COMMANDS = {
    "show_ip_route": "show ip route vrf all | json",
    "show_access-lists": "show ip access-lists | json",
    "show_nve_vni": "show nve vni | json",
}


def nxos_ntc_doc(command_dir: str, rows: list[dict[str, Any]]) -> dict[str, Any]:
    """ntc records laid out as NX-API JSON (test_nxos_show's builders)."""
    from tests.normalizers.test_nxos_show import _acl_doc, _route_doc, _table

    if command_dir == "show_ip_route":
        return _route_doc(rows)
    if command_dir == "show_access-lists":
        return _acl_doc(rows)
    return _table("nve_vni", [nve_row(r) for r in rows])


def nve_row(r: dict[str, Any]) -> dict[str, Any]:
    return {
        "if-name": r["interface"],
        "vni": r["vni"],
        "type": f"{r['type']} [{r['bd_vrf']}]",
        "vni-state": r["state"],
        "mode": r["mode"],
    }


# --- SONiC: no public parse expectations exist (sonic-buildimage and sonic-utilities keep theirs in
# Python tests; NVUE has no public samples at all). What is compared instead: the facts against the
# config_db document's own tables, read here directly and independently of the normalizer. ---------

SONIC_L3_TABLES = (
    "INTERFACE",
    "VLAN_INTERFACE",
    "PORTCHANNEL_INTERFACE",
    "LOOPBACK_INTERFACE",
    "VLAN_SUB_INTERFACE",
    "MGMT_INTERFACE",
)


def sonic_tables(doc: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The tables of a config_db document, nested ({"VLAN": {"Vlan10": {...}}}) or flat as redis-dump
    writes it ({"VLAN|Vlan10": {...}} or {"VLAN|Vlan10": {"type": "hash", "value": {...}}})."""
    doc = doc.get("SAMPLE_CONFIG_DB_JSON", doc)
    tables: dict[str, dict[str, Any]] = {}
    for key, value in doc.items():
        if "|" in key:
            table, _, rest = key.partition("|")
            row = value.get("value", value) if isinstance(value, dict) else {}
            tables.setdefault(table, {})[rest] = row
        elif isinstance(value, dict):
            tables.setdefault(key, {}).update(value)
    return tables


def sonic_table_fields(doc: dict[str, Any], facts: list[Any]) -> Iterator[Field]:
    """Interface addresses, VRFs, VLAN ids, port MTUs and LAG membership, as the tables state them."""
    tables = sonic_tables(doc)
    interfaces = {f.name: f for f in facts if isinstance(f, Interface)}
    want_v4: dict[str, set[str]] = {}
    want_v6: dict[str, set[str]] = {}
    for table in SONIC_L3_TABLES:
        for key in tables.get(table, {}):
            name, _, addr = key.partition("|")
            if not addr:
                continue
            parsed = ipaddress.ip_interface(addr)
            (want_v4 if parsed.version == 4 else want_v6).setdefault(name, set()).add(str(parsed))
    for name in sorted(set(want_v4) | set(want_v6)):
        got = interfaces.get(name)
        v4 = set(got.ipv4) | set(got.ipv4_virtual) if got else "<missing>"
        yield (f"interface {name} ipv4", v4, want_v4.get(name, set()))
        yield (f"interface {name} ipv6", set(got.ipv6) if got else "<missing>", want_v6.get(name, set()))
    vrfs = {f.name for f in facts if isinstance(f, Vrf)}
    for name in sorted(tables.get("VRF", {})):
        yield (f"vrf {name}", name in vrfs, True)
    vlans = {f.vlan_id for f in facts if isinstance(f, Vlan)}
    for name, row in sorted(tables.get("VLAN", {}).items()):
        vid = int(row.get("vlanid") or name.removeprefix("Vlan"))
        yield (f"vlan {vid}", vid in vlans, True)
    for name, row in sorted(tables.get("PORT", {}).items()):
        if row.get("mtu"):
            got = interfaces.get(name)
            yield (f"port {name} mtu", got.mtu if got else "<missing>", int(row["mtu"]))
    for key in sorted(tables.get("PORTCHANNEL_MEMBER", {})):
        lag, _, member = key.partition("|")
        got = interfaces.get(member)
        yield (f"port {member} port_channel", got.port_channel if got else "<missing>", lag)
