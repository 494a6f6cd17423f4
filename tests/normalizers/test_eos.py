"""The EOS running-config normalizer, checked field by field against Arista AVD ground truth.

Each AVD case is a rendered running-config plus the YAML data model it was rendered from
(tests/fixtures/avd, see SOURCE.txt). The expected facts are built here from the YAML only; where
AVD's model and the rendered config differ (defaults AVD leaves out, keys it does not render), the
mapping is written out explicitly in the `expect_*` helpers below.
"""

from __future__ import annotations

import ipaddress
from datetime import UTC, datetime
from functools import cache
from pathlib import Path
from typing import Any, TypeVar

import pytest
import yaml

from auditor.capture import RawCapture
from auditor.enums import FactKind, Tier
from auditor.facts import FactRecord
from auditor.facts.network import (
    Acl,
    AclBinding,
    BgpNeighbor,
    Device,
    Interface,
    MgmtService,
    QosInterface,
    Route,
    Vlan,
    Vrf,
    VxlanVni,
)
from auditor.normalize import NormalizeResult
from collectors.platforms.eos.running_config import normalize_running_config

F = TypeVar("F", bound=FactRecord)
AVD = Path(__file__).resolve().parents[1] / "fixtures" / "avd"
MOLECULE = AVD / "molecule" / "eos_cli_config_gen"
MOLECULE_CASES = [
    "acl",
    "ethernet-interfaces",
    "ip-access-lists",
    "ip-routing",
    "port-channel-interfaces",
    "qos",
    "router-bgp-evpn",
    "router-bgp-vrf-lite",
    "static-routes",
    "vlan-interfaces",
    "vlans",
    "vrf-instances",
]
# Every molecule config also renders this interface, from the molecule group_vars (not in host_vars).
MOLECULE_MGMT1 = {
    "name": "Management1",
    "description": "OOB_MANAGEMENT",
    "vrf": "MGMT",
    "ip_address": "10.73.255.122/24",
}
ALL_FACT_KINDS = {
    FactKind.DEVICE,
    FactKind.INTERFACE,
    FactKind.VRF,
    FactKind.VLAN,
    FactKind.VXLAN_VNI,
    FactKind.ROUTE,
    FactKind.BGP_NEIGHBOR,
    FactKind.ACL,
    FactKind.ACL_BINDING,
    FactKind.MGMT_SERVICE,
    FactKind.QOS_INTERFACE,
}


class Case:
    """One AVD device or molecule case: its config and the YAML it was rendered from."""

    def __init__(self, name: str, cfg: Path, model: Path, molecule: bool) -> None:
        self.name, self.cfg, self.model_path, self.molecule = name, cfg, model, molecule

    def __repr__(self) -> str:
        return self.name

    @property
    def model(self) -> dict[str, Any]:
        return _load_yaml(self.model_path)

    @property
    def result(self) -> NormalizeResult:
        return _normalize(self.cfg)


def _cases() -> list[Case]:
    cases = []
    for example in ("single-dc-l3ls", "l2ls-fabric"):
        intended = AVD / "examples" / example / "intended"
        for cfg in sorted((intended / "configs").glob("*.cfg")):
            cases.append(
                Case(cfg.stem, cfg, intended / "structured_configs" / f"{cfg.stem}.yml", molecule=False)
            )
    for name in MOLECULE_CASES:
        cfg = MOLECULE / "intended" / "configs" / f"{name}.cfg"
        cases.append(
            Case(f"molecule-{name}", cfg, MOLECULE / "inventory" / "host_vars" / f"{name}.yml", True)
        )
    return cases


CASES = _cases()


@cache
def _load_yaml(path: Path) -> dict[str, Any]:
    data = yaml.safe_load(path.read_text())
    return data if isinstance(data, dict) else {}


def capture(content: bytes, device: str = "dut", origin: str = "cfg/dut.cfg", **meta: str) -> RawCapture:
    return RawCapture(
        target=device,
        format="eos.running-config",
        source="show running-config",
        origin=origin,
        collected_at=datetime(2024, 1, 1, tzinfo=UTC),
        content=content,
        meta={"device": device, **meta},
    )


@cache
def _normalize(cfg: Path) -> NormalizeResult:
    return normalize_running_config(capture(cfg.read_bytes(), device=cfg.stem, origin=str(cfg)))


def facts_of(result: NormalizeResult, model: type[F]) -> list[F]:
    return [f for f in result.facts if isinstance(f, model)]


def parse(text: str, **meta: str) -> NormalizeResult:
    return normalize_running_config(capture(text.encode(), **meta))


# --- AVD model -> expected facts ------------------------------------------------------------------


def vlan_ranges(value: object) -> list[tuple[int, int]] | None:
    """AVD's `allowed_vlan` string ('10-12,20', 112, 'none') as merged ranges; absent -> None (all)."""
    if value is None:
        return None
    if str(value) == "none":
        return []
    ranges: list[tuple[int, int]] = []
    for part in str(value).split(","):
        first, _, last = part.partition("-")
        ranges.append((int(first), int(last or first)))
    merged: list[tuple[int, int]] = []
    for lo, hi in sorted(ranges):
        if merged and lo <= merged[-1][1] + 1:
            merged[-1] = (merged[-1][0], max(hi, merged[-1][1]))
        else:
            merged.append((lo, hi))
    return merged


def model_interfaces(model: dict[str, Any], molecule: bool) -> list[dict[str, Any]]:
    """Every interface the model renders, each tagged with its AVD key."""
    out = []
    for key in (
        "ethernet_interfaces",
        "port_channel_interfaces",
        "vlan_interfaces",
        "loopback_interfaces",
        "management_interfaces",
    ):
        out += [{**intf, "_key": key} for intf in model.get(key) or []]
    for name, vxlan in (model.get("vxlan_interface") or {}).items():
        out.append({**vxlan, "name": name.capitalize(), "_key": "vxlan_interface"})
    if molecule:
        out.append({**MOLECULE_MGMT1, "_key": "management_interfaces"})
    return out


SPEEDS = {"forced 100gfull": 100_000}  # the AVD speed strings in the fixtures, in Mb/s


def _kind(name: str) -> str:
    for prefix in ("Ethernet", "Port-Channel", "Vlan", "Loopback", "Management", "Vxlan"):
        if name.startswith(prefix):
            return prefix.lower()
    return "other"


def expect_interface(intf: dict[str, Any]) -> dict[str, Any]:
    name = intf["name"]
    kind = _kind(name)
    sw = intf.get("switchport") or {}
    trunk = sw.get("trunk") or {}
    if kind in {"ethernet", "port-channel"}:
        # EOS default: a physical/LAG port is a switchport; AVD renders nothing when `enabled` is unset.
        # Subinterfaces (Ethernet1.10) are always routed.
        switchport = "." not in name and sw.get("enabled", True) is not False
        mode_raw = str(sw.get("mode") or "")
        mode = "routed" if not switchport else "trunk" if mode_raw.startswith("trunk") else "access"
    else:
        switchport, mode = False, None
    ip = intf.get("ip_address")
    ipv4 = [] if ip in (None, "dhcp") else [ip]  # `ip address dhcp` carries no address
    ipv4 += intf.get("ip_address_secondaries") or []
    virtual = [intf["ip_address_virtual"]] if intf.get("ip_address_virtual") else []
    virtual += intf.get("ip_address_virtual_secondaries") or []
    kinds: list[tuple[str, str, int | None]] = [
        (a, "primary" if i == 0 else "secondary", None) for i, a in enumerate(ipv4)
    ]
    kinds += [(a, "anycast", None) for a in virtual]
    # VARP (`ip virtual-router address A[/L]`) and VRRP (`vrrp N ipv4 A`): without a length, the length
    # of the primary's subnet
    shared: list[tuple[str, str, int | None]] = [
        (a, "varp", None) for a in intf.get("ip_virtual_router_addresses") or []
    ]
    shared += [
        (v["ipv4"]["address"], "vrrp", int(v["id"]))
        for v in intf.get("vrrp_ids") or []
        if (v.get("ipv4") or {}).get("address")
    ]
    for address, shared_kind, group in shared:
        nets = [ipaddress.ip_interface(a).network for a in ipv4]
        length = next((n.prefixlen for n in nets if ipaddress.ip_address(address.split("/")[0]) in n), 32)
        value = address if "/" in address else f"{address}/{length}"
        virtual.append(value)
        kinds.append((value, shared_kind, group))
    channel = (intf.get("channel_group") or {}).get("id")
    return {
        "type": kind,
        "description": intf.get("description"),
        "vrf": intf.get("vrf") or "default",
        "enabled": not intf.get("shutdown", False),
        "switchport": switchport,
        "mode": mode,
        "access_vlan": int(sw["access_vlan"]) if sw.get("access_vlan") else None,
        # AVD renders `switchport trunk native vlan tag` instead of the id when native_vlan_tag is set
        "native_vlan": None if trunk.get("native_vlan_tag") else trunk.get("native_vlan"),
        "trunk_allowed_vlans": vlan_ranges(trunk.get("allowed_vlan")),
        "mtu": intf.get("mtu"),
        "speed_mbps": SPEEDS[intf["speed"]] if intf.get("speed") else None,
        "ipv4": ipv4,
        "ipv4_virtual": virtual,
        # link-local and virtual IPv6 addresses are not in Interface.ipv6
        "ipv6": [intf["ipv6_address"]] if intf.get("ipv6_address") else [],
        "port_channel": f"Port-Channel{channel}" if channel else None,
        "service_profile": intf.get("service_profile"),
        "addresses": [{"address": a, "kind": k, "group": g} for a, k, g in kinds],
    }


def kinds_key(values: list[dict[str, Any]]) -> list[tuple[str, str, int | None]]:
    """Interface addresses with their kinds, in any order."""
    return sorted((str(ipaddress.ip_interface(v["address"])), v["kind"], v.get("group")) for v in values)


def _addr_key(
    values: list[str],
) -> tuple[str | None, list[ipaddress.IPv4Interface | ipaddress.IPv6Interface]]:
    """Primary first, secondaries in any order (AVD sorts them differently from the config)."""
    parsed = [ipaddress.ip_interface(v) for v in values]
    return (str(parsed[0]) if parsed else None), sorted(parsed[1:], key=str)


def expect_vlan_members(model: dict[str, Any], vid: int, vlan_groups: list[str]) -> list[str]:
    """Switchports carrying `vid` by explicit config (EOS trunk groups narrow trunks, see eos_vlans)."""
    members = []
    for intf in model_interfaces(model, molecule=False):
        exp = expect_interface(intf)
        if not exp["switchport"]:
            continue
        groups = set(((intf.get("switchport") or {}).get("trunk") or {}).get("groups") or [])
        allowed = exp["trunk_allowed_vlans"]
        in_allowed = allowed is None or any(lo <= vid <= hi for lo, hi in allowed)
        if exp["mode"] == "access":
            carried = exp["access_vlan"] == vid
        elif vlan_groups:
            carried = bool(groups & set(vlan_groups)) and in_allowed
        else:
            carried = allowed is not None and in_allowed
        if carried:
            members.append(intf["name"])
    return sorted(members)


def render_redistribute(redistribute: dict[str, Any], suffix: str = "") -> list[str]:
    """AVD `redistribute:` dicts as the EOS lines they render (without the `redistribute` word)."""
    lines = []

    def tail(d: dict[str, Any]) -> list[str]:
        parts = ["include leaked"] if d.get("include_leaked") else []
        parts += ["route-map", d["route_map"]] if d.get("route_map") else []
        parts += ["rcf", d["rcf"]] if d.get("rcf") else []
        return parts

    for proto, d in redistribute.items():
        name = proto.replace("_", "-")
        if d.get("enabled"):
            head = [name]
            head += [d["isis_level"]] if proto == "isis" and d.get("isis_level") else []
            head += ["leaked"] if proto == "bgp" else []
            lines.append(" ".join(head + tail(d)) + suffix)
        for key, word in (
            ("match_internal", "internal"),
            ("match_external", "external"),
            ("match_nssa_external", "nssa-external"),
        ):
            sub = d.get(key) or {}
            if sub.get("enabled"):
                head = [name, "match", word] + ([str(sub["nssa_type"])] if sub.get("nssa_type") else [])
                lines.append(" ".join(head + tail(sub)) + suffix)
    return sorted(lines)


def expect_vrf_names(model: dict[str, Any], molecule: bool) -> set[str]:
    """Declared VRFs, plus every VRF the config uses (the normalizer keeps those too), plus default."""
    names = {"default"} | {v["name"] for v in model.get("vrfs") or []}
    names |= {i.get("vrf") or "default" for i in model_interfaces(model, molecule)}
    names |= {v["name"] for v in (model.get("router_bgp") or {}).get("vrfs") or []}
    names |= {r.get("vrf") or "default" for r in model.get("static_routes") or []}
    for vxlan in (model.get("vxlan_interface") or {}).values():
        names |= {v["name"] for v in vxlan["vxlan"].get("vrfs") or []}
    return names


def expect_ip_routing(entry: dict[str, Any]) -> bool | None:
    """`ip routing ipv6 interfaces` (ip_routing_ipv6_interfaces) enables IPv4 routing as well."""
    if entry.get("ip_routing_ipv6_interfaces"):
        return True
    return entry.get("ip_routing")


from tests.normalizers import ground_truth  # noqa: E402  (it imports this module's helpers)

# --- the tests ------------------------------------------------------------------------------------


@pytest.mark.parametrize("case", CASES, ids=repr)
def test_problems_and_coverage(case: Case) -> None:
    result = case.result
    assert result.covers == ALL_FACT_KINDS
    if case.molecule:
        # molecule renders feature snippets without the closing `end` line: flagged, on the last line
        last = len(case.cfg.read_text().rstrip("\n").splitlines())
        assert [(p.message, p.line, p.origin) for p in result.problems] == [
            ("config ends without 'end': truncated?", last, str(case.cfg))
        ]
    else:
        assert result.problems == []


@pytest.mark.parametrize("case", CASES, ids=repr)
def test_device(case: Case) -> None:
    [device] = facts_of(case.result, Device)
    # molecule snippets have no `hostname` line: the capture's device name is used
    assert device.hostname == case.model.get("hostname", case.cfg.stem)
    assert (device.device, device.platform) == (case.cfg.stem, "eos")


@pytest.mark.parametrize("case", CASES, ids=repr)
def test_interfaces(case: Case) -> None:
    expected = {i["name"] for i in model_interfaces(case.model, case.molecule)}
    assert sorted(i.name for i in facts_of(case.result, Interface)) == sorted(expected)
    for where, got, want in ground_truth.avd_interface_fields(case):
        assert got == want, where


@pytest.mark.parametrize("case", CASES, ids=repr)
def test_vlans(case: Case) -> None:
    expected = {
        int(v["id"]): (
            v.get("name"),
            v.get("trunk_groups") or [],
            expect_vlan_members(case.model, int(v["id"]), v.get("trunk_groups") or []),
        )
        for v in case.model.get("vlans") or []
    }
    actual = {v.vlan_id: (v.name, v.trunk_groups, sorted(v.interfaces)) for v in facts_of(case.result, Vlan)}
    assert actual == expected


@pytest.mark.parametrize("case", CASES, ids=repr)
def test_vxlan(case: Case) -> None:
    expected = set()
    for vxlan in (case.model.get("vxlan_interface") or {}).values():
        expected |= {(v["vni"], v["id"], None) for v in vxlan["vxlan"].get("vlans") or []}
        expected |= {(v["vni"], None, v["name"]) for v in vxlan["vxlan"].get("vrfs") or []}
    assert {(v.vni, v.vlan, v.vrf) for v in facts_of(case.result, VxlanVni)} == expected


@pytest.mark.parametrize("case", CASES, ids=repr)
def test_vrfs(case: Case) -> None:
    assert {v.name for v in facts_of(case.result, Vrf)} == expect_vrf_names(case.model, case.molecule)
    for where, got, want in ground_truth.avd_vrf_fields(case):
        assert got == want, where


@pytest.mark.parametrize("case", CASES, ids=repr)
def test_static_routes(case: Case) -> None:
    expected = sorted(
        (
            r.get("vrf") or "default",
            str(ipaddress.ip_network(r["destination_address_prefix"], strict=False)),
            r.get("gateway"),
            # AVD writes `vlan101`, EOS prints `Vlan101`: compared case-insensitively
            (r.get("interface") or "").lower() or None,
            r.get("distance"),
            r.get("name"),
        )
        for r in case.model.get("static_routes") or []
    )
    actual = sorted(
        (r.vrf, r.prefix, r.next_hop, (r.interface or "").lower() or None, r.distance, r.name)
        for r in facts_of(case.result, Route)
    )
    assert actual == expected
    assert {r.protocol for r in facts_of(case.result, Route)} <= {"static"}


def expect_bgp_neighbors(bgp: dict[str, Any]) -> dict[tuple[str, str], dict[str, Any]]:
    groups = {g["name"]: dict(g) for g in bgp.get("peer_groups") or []}
    for af in ("address_family_evpn", "address_family_ipv4"):
        for g in (bgp.get(af) or {}).get("peer_groups") or []:
            # EVPN `neighbor G default-route` / IPv4 `default-originate`: a default route is sent
            if (g.get("default_route") or g.get("default_originate") or {}).get("enabled") and g[
                "name"
            ] in groups:
                groups[g["name"]]["default_originate"] = {"enabled": True}

    def one(n: dict[str, Any], peer_filter: bool = False) -> dict[str, Any]:
        group = groups.get(n.get("peer_group") or "", {})
        remote_as = n.get("remote_as") or (None if peer_filter else group.get("remote_as"))
        originate = n.get("default_originate") or group.get("default_originate")
        return {
            "remote_as": str(remote_as) if remote_as is not None else None,
            "peer_group": n.get("peer_group"),
            "description": n.get("description"),
            "default_originate": bool(originate and originate.get("enabled", True)),
            "shutdown": bool(n.get("shutdown") or group.get("shutdown")),
            "update_source": n.get("update_source") or group.get("update_source"),
        }

    def rendered(n: dict[str, Any]) -> bool:
        # AVD renders no line for a neighbor whose only settings are false (e.g. `bfd: false` alone)
        return any(v for k, v in n.items() if k != "ip_address")

    expected = {("default", n["ip_address"]): one(n) for n in bgp.get("neighbors") or [] if rendered(n)}
    for vrf in bgp.get("vrfs") or []:
        for n in vrf.get("neighbors") or []:
            if rendered(n):
                expected[(vrf["name"], n["ip_address"])] = one(n)
        for n in vrf.get("neighbor_interfaces") or []:
            expected[(vrf["name"], n["name"])] = one(n, peer_filter="peer_filter" in n)
        for r in vrf.get("listen_ranges") or []:
            # AVD renders a listen range only with a peer-filter or a remote-as (peer-filter wins)
            if r.get("peer_filter") or r.get("remote_as"):
                rng = {k: v for k, v in r.items() if not (k == "remote_as" and r.get("peer_filter"))}
                expected[(vrf["name"], r["prefix"])] = one(rng, peer_filter="peer_filter" in r)
    return expected


@pytest.mark.parametrize("case", CASES, ids=repr)
def test_bgp_neighbors(case: Case) -> None:
    expected = expect_bgp_neighbors(case.model.get("router_bgp") or {})
    actual = {
        (n.vrf, n.peer): n.model_dump(
            include={
                "remote_as",
                "peer_group",
                "description",
                "default_originate",
                "shutdown",
                "update_source",
            }
        )
        for n in facts_of(case.result, BgpNeighbor)
    }
    assert sorted(actual) == sorted(expected)
    for key, exp in expected.items():
        assert actual[key] == exp, key


def _ports(match: str | None, ports: list[int] | None) -> str | None:
    return f"{match or 'eq'} {' '.join(str(p) for p in ports)}" if ports else None


def _acl_addr(value: str | None) -> str | None:
    """AVD writes a host as a bare address; EOS renders it as `host A`."""
    if value is None or value == "any" or "/" in value:
        return value
    return f"host {value}"


def expect_acls(model: dict[str, Any]) -> dict[tuple[str, str, bool], list[tuple[Any, ...]]]:
    expected: dict[tuple[str, str, bool], list[tuple[Any, ...]]] = {}
    legacy = [
        ("access_lists", "ipv4", False),
        ("standard_access_lists", "ipv4", True),
        ("ipv6_access_lists", "ipv6", False),
        ("ipv6_standard_access_lists", "ipv6", True),
        ("mac_access_lists", "mac", False),
    ]
    for key, family, standard in legacy:
        for acl in model.get(key) or []:
            entries: list[tuple[Any, ...]] = [
                (e["sequence"], e["action"].split()[0], f"{e['sequence']} {e['action']}")
                for e in acl["sequence_numbers"]
            ]
            expected[(str(acl["name"]), family, standard)] = entries
    for acl in model.get("ip_access_lists") or []:
        entries = []
        for e in acl["entries"]:
            if e.get("remark"):
                entries.append((e.get("sequence"), "remark", None, None, None, None, None))
            elif e.get("action") and e.get("protocol"):  # AVD skips entries without them (issue 4423)
                entries.append(
                    (
                        e.get("sequence"),
                        e["action"],
                        e["protocol"],
                        _acl_addr(e.get("source")),
                        _ports(e.get("source_ports_match"), e.get("source_ports")),
                        _acl_addr(e.get("destination")),
                        _ports(e.get("destination_ports_match"), e.get("destination_ports")),
                    )
                )
        expected[(acl["name"], "ipv4", False)] = entries
    return expected


@pytest.mark.parametrize("case", CASES, ids=repr)
def test_acls(case: Case) -> None:
    expected = expect_acls(case.model)
    actual: dict[tuple[str, str, bool], Acl] = {
        (a.name, a.family, a.standard): a for a in facts_of(case.result, Acl)
    }
    assert sorted(actual) == sorted(expected)
    structured = {a["name"] for a in case.model.get("ip_access_lists") or []}
    for key, entries in expected.items():
        got = actual[key].entries
        if key[0] in structured:
            assert [
                (
                    e.sequence,
                    e.action,
                    e.protocol,
                    e.source,
                    e.source_ports,
                    e.destination,
                    e.destination_ports,
                )
                for e in got
            ] == entries, key
        else:
            assert [(e.sequence, e.action, e.text) for e in got] == entries, key


@pytest.mark.parametrize("case", CASES, ids=repr)
def test_acl_bindings(case: Case) -> None:
    expected = set()
    keys = {
        "access_group_in": "in",
        "access_group_out": "out",
        "ipv6_access_group_in": "in",
        "ipv6_access_group_out": "out",
        "mac_access_group_in": "in",
        "mac_access_group_out": "out",
    }
    for intf in model_interfaces(case.model, case.molecule):
        expected |= {(intf[k], "interface", intf["name"], d, None) for k, d in keys.items() if intf.get(k)}
    for vrf in (case.model.get("management_api_http") or {}).get("enable_vrfs") or []:
        for k in ("access_group", "ipv6_access_group"):
            if vrf.get(k):
                expected.add((vrf[k], "management", "eapi", "in", vrf["name"]))
    actual = {(b.acl, b.attach_point, b.name, b.direction, b.vrf) for b in facts_of(case.result, AclBinding)}
    assert actual == expected


@pytest.mark.parametrize("case", CASES, ids=repr)
def test_mgmt_services(case: Case) -> None:
    http = case.model.get("management_api_http")
    # EOS defaults: SSH on in the default VRF; telnet, eAPI, gNMI, NETCONF, SNMP off until configured.
    # AVD always renders `no shutdown` under `management api http-commands`, so eAPI is on in the
    # default VRF whenever the key exists, and in each `enable_vrfs` entry.
    expected = {("ssh", "default", True), ("telnet", "default", False), ("gnmi", "default", False)}
    expected |= {
        ("netconf", "default", False),
        ("snmp", "default", False),
        ("eapi", "default", http is not None),
    }
    expected |= {("eapi", v["name"], True) for v in (http or {}).get("enable_vrfs") or []}
    assert {(s.service, s.vrf, s.enabled) for s in facts_of(case.result, MgmtService)} == expected


def _qos_settings(d: dict[str, Any]) -> dict[str, Any]:
    """QoS settings of an AVD interface or qos_profile entry (either key layout)."""
    pfc = d.get("priority_flow_control") or {}
    trust = (d.get("qos") or {}).get("trust") or d.get("trust")
    policy = ((d.get("service_policy") or {}).get("qos") or {}).get("input")
    policy = policy or (((d.get("service_policy") or {}).get("type") or {}).get("qos_input"))
    ecn = {
        q["id"]
        for key in ("tx_queues", "uc_tx_queues")
        for q in d.get(key) or []
        if ((q.get("random_detect") or {}).get("ecn") or {}).get(
            "threshold"
        )  # `ecn count` alone marks nothing
    }
    return {
        "pfc_enabled": pfc.get("enabled"),
        "priorities": {p["priority"]: p["no_drop"] for p in pfc.get("priorities") or []},
        "watchdog": True if (pfc.get("watchdog") or {}).get("enabled") else None,
        "ecn": ecn,
        "trust": "untrusted" if trust == "disabled" else trust,
        "policy": policy,
    }


def expect_qos(model: dict[str, Any]) -> dict[str, dict[str, Any]]:
    profiles = {p["name"]: _qos_settings(p) for p in model.get("qos_profiles") or []}
    expected = {}
    for intf in (model.get("ethernet_interfaces") or []) + (model.get("port_channel_interfaces") or []):
        own = _qos_settings(intf)
        base = profiles.get(intf.get("service_profile") or "", _qos_settings({}))
        merged = {
            "pfc_enabled": own["pfc_enabled"] if own["pfc_enabled"] is not None else base["pfc_enabled"],
            "priorities": {**base["priorities"], **own["priorities"]},
            "watchdog": own["watchdog"] if own["watchdog"] is not None else base["watchdog"],
            "ecn": sorted(base["ecn"] | own["ecn"]),
            "trust": own["trust"] or base["trust"],
            "policy": own["policy"] or base["policy"],
        }
        if merged["trust"] is None:  # EOS's default: routed ports trust DSCP, switchports CoS
            merged["trust"] = "dscp" if expect_interface(intf)["mode"] == "routed" else "cos"
        if any(v not in (None, {}, []) for v in merged.values()):
            expected[intf["name"]] = merged
    return expected


@pytest.mark.parametrize("case", CASES, ids=repr)
def test_qos(case: Case) -> None:
    actual = {
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
        for q in facts_of(case.result, QosInterface)
    }
    assert actual == expect_qos(case.model)


def test_every_fact_belongs_to_the_capture_device() -> None:
    for case in CASES:
        assert {getattr(f, "device", None) for f in case.result.facts} == {case.cfg.stem}, case


# --- bad input ------------------------------------------------------------------------------------

LEAF1A = AVD / "examples" / "single-dc-l3ls" / "intended" / "configs" / "dc1-leaf1a.cfg"


def _line_of(text: str, needle: str) -> int:
    return text.splitlines().index(needle) + 1


def test_truncated_config_keeps_what_was_read() -> None:
    full = LEAF1A.read_text()
    lines = full.splitlines()
    cut = _line_of(full, "router bgp 65101") - 1  # the capture stops just before `router bgp`
    result = parse("\n".join(lines[:cut]) + "\n", device="dc1-leaf1a", origin="evidence/leaf1a.cfg")
    [problem] = result.problems
    last = max(i for i, text in enumerate(lines[:cut], 1) if text.strip())
    assert (problem.message, problem.line, problem.origin) == (
        "config ends without 'end': truncated?",
        last,
        "evidence/leaf1a.cfg",
    )
    complete = _normalize(LEAF1A)
    for model in (Interface, Vlan, VxlanVni, Route, MgmtService):
        assert facts_of(result, model) == facts_of(complete, model), model.__name__
    assert facts_of(result, BgpNeighbor) == []
    assert result.covers == ALL_FACT_KINDS


def test_bad_values_are_problems_and_skipped() -> None:
    good = LEAF1A.read_text()
    bad = good.replace("   ip address 10.255.255.1/31", "   ip address 10.0.0.300/24", 1)
    bad = bad.replace(
        "P2P_dc1-spine2_Ethernet1\n   no shutdown\n   mtu 1500",
        "P2P_dc1-spine2_Ethernet1\n   no shutdown\n   mtu jumbo",
        1,
    )
    bad = bad.replace(
        "   switchport trunk allowed vlan 11-12,21-22\n", "   switchport trunk allowed vlan 11-12,21-x\n", 1
    )
    bad = bad.replace("ip route vrf MGMT 0.0.0.0/0 172.16.1.1", "ip route vrf MGMT 0.0.0.0/33 172.16.1.1", 1)
    result = parse(bad, device="dc1-leaf1a", origin="evidence/leaf1a.cfg")
    assert sorted((p.line, p.origin) for p in result.problems) == [
        (_line_of(bad, "   switchport trunk allowed vlan 11-12,21-x"), "evidence/leaf1a.cfg"),
        (_line_of(bad, "   ip address 10.0.0.300/24"), "evidence/leaf1a.cfg"),
        (_line_of(bad, "   mtu jumbo"), "evidence/leaf1a.cfg"),
        (_line_of(bad, "ip route vrf MGMT 0.0.0.0/33 172.16.1.1"), "evidence/leaf1a.cfg"),
    ]
    messages = " | ".join(p.message for p in result.problems)
    for fragment in ("10.0.0.300/24", "'jumbo'", "21-x", "0.0.0.0/33"):
        assert fragment in messages
    good_if = {i.name: i for i in facts_of(_normalize(LEAF1A), Interface)}
    bad_if = {i.name: i for i in facts_of(result, Interface)}
    assert bad_if["Ethernet1"] == good_if["Ethernet1"].model_copy(update={"ipv4": [], "addresses": []})
    assert bad_if["Ethernet2"] == good_if["Ethernet2"].model_copy(update={"mtu": None})
    assert bad_if["Port-Channel5"] == good_if["Port-Channel5"].model_copy(
        update={"trunk_allowed_vlans": None}
    )
    assert {k: v for k, v in bad_if.items() if k not in {"Ethernet1", "Ethernet2", "Port-Channel5"}} == {
        k: v for k, v in good_if.items() if k not in {"Ethernet1", "Ethernet2", "Port-Channel5"}
    }
    assert facts_of(result, Route) == []
    assert len(facts_of(result, BgpNeighbor)) == 7  # everything after the bad lines is still read


@pytest.mark.parametrize("content", [b"", b"\n\n   \n"], ids=["empty", "blank-lines"])
def test_empty_capture(content: bytes) -> None:
    result = normalize_running_config(capture(content, origin="evidence/empty.cfg"))
    [problem] = result.problems
    assert problem.origin == "evidence/empty.cfg"
    assert "empty" in problem.message
    assert result.facts == []
    assert result.covers == set()  # an empty capture proves nothing, so it covers nothing


def test_garbage_never_raises() -> None:
    result = normalize_running_config(capture(b"\xff\xfe\x00<html>502 Bad Gateway</html>\n\x00\x01"))
    assert [p.message for p in result.problems] == ["config ends without 'end': truncated?"]
    for cut in range(0, len(LEAF1A.read_bytes()), 997):  # truncated anywhere, even mid-line
        normalize_running_config(capture(LEAF1A.read_bytes()[:cut]))


def test_a_failing_step_is_contained(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*_: object) -> list[Acl]:
        raise IndexError("list index out of range")

    monkeypatch.setattr("collectors.platforms.eos.running_config.parse_acls", broken)
    result = normalize_running_config(capture(LEAF1A.read_bytes(), device="dc1-leaf1a"))
    assert [p.message for p in result.problems] == [
        "could not read ACLs: IndexError: list index out of range"
    ]
    assert len(facts_of(result, Interface)) == len(facts_of(_normalize(LEAF1A), Interface))


# --- EOS features the AVD fixtures do not show ---------------------------------------------------------


def test_device_header_and_meta() -> None:
    text = (
        "! Command: show running-config\n"
        "! device: be-leaf1 (DCS-7280CR3-32P4, EOS-4.31.2F)\n"
        "!\n"
        "hostname be-leaf1\n"
        "end\n"
    )
    [device] = facts_of(parse(text, device="10.0.0.5", tier="backend", role="leaf"), Device)
    assert device == Device(
        device="10.0.0.5",
        hostname="be-leaf1",
        platform="eos",
        tier=Tier.BACKEND,
        role="leaf",
        os_version="4.31.2F",
        model="DCS-7280CR3-32P4",
    )
    build = "! device: x (DCS-7050SX3-48YC8, EOS-4.28.3M-28316234.4283M (engineering build))\nend\n"
    assert facts_of(parse(build), Device)[0].os_version == "4.28.3M-28316234.4283M"


def test_unknown_tier_is_a_problem() -> None:
    result = parse("hostname x\nend\n", tier="tier9")
    [device] = facts_of(result, Device)
    assert device.tier is None
    assert [p.message for p in result.problems] == ["unknown tier 'tier9' in capture meta"]


INTERFACE_FORMS = """\
interface Ethernet1/1
   speed 400g-8
   mtu 9214
   switchport trunk allowed vlan 10-20
   switchport trunk allowed vlan add 30,19-25
   switchport trunk allowed vlan remove 15
   switchport mode trunk
!
interface Ethernet2
   speed forced 40gfull
   switchport trunk allowed vlan none
   switchport mode trunk
!
interface Ethernet3
   speed 1000full
   switchport trunk allowed vlan except 2-4093
   switchport mode trunk
!
interface Ethernet5
   speed sfp-1000baset auto
!
interface Ethernet4
   shutdown
   no switchport
   vrf forwarding LEGACY
   ip address 10.1.1.1 255.255.255.0
   ipv6 address 2001:DB8::1/64
   ipv6 address fe80::1/64 link-local
!
interface Tunnel1
   ip address unnumbered Loopback0
!
interface Recirc-Channel1
!
end
"""


def test_interface_value_forms() -> None:
    result = parse(INTERFACE_FORMS)
    assert result.problems == []
    intf = {i.name: i for i in facts_of(result, Interface)}
    assert (intf["Ethernet1/1"].speed_mbps, intf["Ethernet1/1"].mtu) == (400_000, 9214)
    assert intf["Ethernet1/1"].trunk_allowed_vlans == [(10, 14), (16, 25), (30, 30)]
    assert (intf["Ethernet2"].speed_mbps, intf["Ethernet2"].trunk_allowed_vlans) == (40_000, [])
    assert intf["Ethernet5"].speed_mbps == 1000
    assert (intf["Ethernet3"].speed_mbps, intf["Ethernet3"].trunk_allowed_vlans) == (
        1000,
        [(1, 1), (4094, 4094)],
    )
    e4 = intf["Ethernet4"]
    assert (e4.enabled, e4.switchport, e4.mode, e4.vrf) == (False, False, "routed", "LEGACY")
    assert (e4.ipv4, e4.ipv6) == (["10.1.1.1/24"], ["2001:db8::1/64"])
    assert (intf["Tunnel1"].type, intf["Tunnel1"].ipv4, intf["Tunnel1"].mode) == ("tunnel", [], None)
    assert intf["Recirc-Channel1"].type == "other"
    assert [v.name for v in facts_of(result, Vrf)] == ["default", "LEGACY"]


VLANS_AND_VXLAN = """\
vlan 10-12,20
   name SHARED
!
interface Ethernet1
   switchport access vlan 11
!
interface Vxlan1
   vxlan vlan 10-12 vni 10010-10012
   vxlan vlan 20 vni 10020
   vxlan vlan 30-31 vni 10030
   vxlan vrf RDMA-A vni 50001
!
end
"""


def test_vlan_lists_and_vxlan_ranges() -> None:
    result = parse(VLANS_AND_VXLAN)
    assert {(v.vlan_id, v.name, tuple(v.interfaces)) for v in facts_of(result, Vlan)} == {
        (10, "SHARED", ()),
        (11, "SHARED", ("Ethernet1",)),
        (12, "SHARED", ()),
        (20, "SHARED", ()),
    }
    assert {(v.vni, v.vlan, v.vrf) for v in facts_of(result, VxlanVni)} == {
        (10010, 10, None),
        (10011, 11, None),
        (10012, 12, None),
        (10020, 20, None),
        (50001, None, "RDMA-A"),
    }
    [problem] = result.problems  # 2 VLANs onto 1 VNI cannot be paired
    assert problem.line == VLANS_AND_VXLAN.splitlines().index("   vxlan vlan 30-31 vni 10030") + 1
    [rdma] = [v for v in facts_of(result, Vrf) if v.name == "RDMA-A"]
    assert rdma.l3_vni == 50001


TRUNK_GROUPS = """\
vlan 4094
   trunk group MLAG
!
vlan 100
!
interface Port-Channel10
   switchport mode trunk
   switchport trunk group MLAG
!
interface Port-Channel11
   switchport mode trunk
!
interface Port-Channel12
   switchport trunk allowed vlan 100-200
   switchport mode trunk
   switchport trunk group MLAG
!
interface Port-Channel13
   switchport trunk allowed vlan 100,4094
   switchport mode trunk
!
end
"""


def test_trunk_groups_narrow_vlan_membership() -> None:
    vlans = {v.vlan_id: v.interfaces for v in facts_of(parse(TRUNK_GROUPS), Vlan)}
    # 4094 is in trunk group MLAG: only group members carry it (Po12 is a member but does not allow it,
    # Po13 allows it but is not a member); 100 has no group: explicit allowed lists only.
    assert vlans == {100: ["Port-Channel12", "Port-Channel13"], 4094: ["Port-Channel10"]}


LEAKS = """\
vrf instance RDMA-A
!
vrf instance FRONTEND
!
ip routing
ip routing vrf RDMA-A
no ip routing vrf FRONTEND
!
ip route vrf FRONTEND 10.30.0.0/16 egress-vrf RDMA-A 10.30.255.1 name to-rdma
ipv6 route vrf RDMA-A 2001:db8::/32 Null0 250
!
router general
   vrf FRONTEND
      leak routes source-vrf RDMA-A subscribe-policy RM-LEAK
!
router bgp 65001
   neighbor SPINES peer group
   neighbor SPINES remote-as 65000
   neighbor SPINES default-originate
   neighbor 10.0.0.1 peer group SPINES
   neighbor 10.0.0.3 peer-group SPINES
   neighbor 10.0.0.3 shutdown
   network 10.99.0.1/24
   !
   vrf RDMA-A
      rd 10.0.0.9:1
      route-target import 65001:1
      route-target export evpn 65001:1
      route-target both vpn-ipv4 65001:2
      route-target import evpn route-map RM-FILTER
      neighbor 10.30.0.2 remote-as 65002
      neighbor 10.30.0.2 description gpu-tor
      network 10.30.0.0/16
      redistribute connected
      !
      address-family ipv4
         neighbor 10.30.0.2 default-originate always
         network 10.31.0.0/16
end
"""


def test_vrf_leaks_routes_and_bgp() -> None:
    result = parse(LEAKS)
    assert result.problems == []
    vrfs = {v.name: v for v in facts_of(result, Vrf)}
    egress = "ip route vrf FRONTEND 10.30.0.0/16 egress-vrf RDMA-A 10.30.255.1 name to-rdma"
    general = "router general / vrf FRONTEND / leak routes source-vrf RDMA-A subscribe-policy RM-LEAK"
    assert vrfs["FRONTEND"].leaks == [egress, general]
    assert vrfs["RDMA-A"].leaks == [egress, general]
    assert vrfs["default"].leaks == []
    assert [(v.ip_routing) for v in vrfs.values()] == [True, True, False]
    rdma = vrfs["RDMA-A"]
    assert (rdma.rd, rdma.route_targets_import, rdma.route_targets_export) == (
        "10.0.0.9:1",
        ["65001:1", "vpn-ipv4 65001:2"],
        ["evpn 65001:1", "vpn-ipv4 65001:2"],
    )
    assert (rdma.bgp_networks, rdma.bgp_redistribute) == (["10.30.0.0/16", "10.31.0.0/16"], ["connected"])
    assert vrfs["default"].bgp_networks == ["10.99.0.0/24"]
    routes = {(r.vrf, r.prefix): r for r in facts_of(result, Route)}
    assert routes[("FRONTEND", "10.30.0.0/16")].next_hop == "10.30.255.1"
    assert routes[("RDMA-A", "2001:db8::/32")].model_dump(include={"interface", "distance"}) == {
        "interface": "Null0",
        "distance": 250,
    }
    peers = {(n.vrf, n.peer): n for n in facts_of(result, BgpNeighbor)}
    assert sorted(peers) == [("RDMA-A", "10.30.0.2"), ("default", "10.0.0.1"), ("default", "10.0.0.3")]
    assert (peers[("default", "10.0.0.1")].remote_as, peers[("default", "10.0.0.1")].default_originate) == (
        "65000",
        True,
    )
    assert (peers[("default", "10.0.0.3")].peer_group, peers[("default", "10.0.0.3")].shutdown) == (
        "SPINES",
        True,
    )
    gpu = peers[("RDMA-A", "10.30.0.2")]
    assert (gpu.remote_as, gpu.description, gpu.default_originate, gpu.peer_group) == (
        "65002",
        "gpu-tor",
        True,
        None,
    )


MANAGEMENT = """\
vrf instance MGMT
!
ip access-list standard SSH-JUMP
   10 permit host 10.250.200.10
!
management ssh
   ip access-group SSH-JUMP vrf MGMT in
   !
   vrf MGMT
      no shutdown
!
management telnet
   no shutdown
!
management api http-commands
   shutdown
   !
   vrf MGMT
      no shutdown
      ip access-group EAPI-ACL
!
management api gnmi
   transport grpc MGMT
      vrf MGMT
      ip access-group GNMI-ACL
!
snmp-server community <redacted> ro SNMP-ACL
snmp-server ipv4 access-list SNMP-MGMT vrf MGMT
snmp-server vrf MGMT
!
system control-plane
   ip access-group CPP-ACL in
!
interface Management1
   vrf MGMT
   ip access-group MGMT-IN in
!
end
"""


def test_management_services_and_bindings() -> None:
    result = parse(MANAGEMENT)
    assert result.problems == []
    assert {(s.service, s.vrf, s.enabled, s.acl) for s in facts_of(result, MgmtService)} == {
        ("ssh", "default", True, None),  # SSH stays on in the default VRF unless shut down
        ("ssh", "MGMT", True, "SSH-JUMP"),
        ("telnet", "default", True, None),
        ("eapi", "default", False, None),  # top-level shutdown switches eAPI off everywhere
        ("eapi", "MGMT", False, "EAPI-ACL"),
        ("gnmi", "MGMT", True, "GNMI-ACL"),
        ("gnmi", "default", False, None),
        ("netconf", "default", False, None),
        ("snmp", "default", True, "SNMP-ACL"),  # a community exists and the default VRF is not disabled
        ("snmp", "MGMT", True, "SNMP-MGMT"),
    }
    assert {(b.acl, b.attach_point, b.name, b.vrf) for b in facts_of(result, AclBinding)} == {
        ("SSH-JUMP", "management", "ssh", "MGMT"),
        ("EAPI-ACL", "management", "eapi", "MGMT"),
        ("GNMI-ACL", "management", "gnmi", "MGMT"),
        ("SNMP-ACL", "management", "snmp", None),
        ("SNMP-MGMT", "management", "snmp", "MGMT"),
        ("CPP-ACL", "control-plane", "control-plane", None),
        ("MGMT-IN", "interface", "Management1", None),
    }
    [acl] = facts_of(result, Acl)
    assert (acl.standard, acl.entries[0].source, acl.entries[0].sequence) == (True, "host 10.250.200.10", 10)


def test_ssh_shutdown_and_snmp_default_vrf_off() -> None:
    text = (
        "management ssh\n   shutdown\n!\nsnmp-server community public ro\nno snmp-server vrf default\nend\n"
    )
    services = {(s.service, s.vrf): s.enabled for s in facts_of(parse(text), MgmtService)}
    assert services[("ssh", "default")] is False
    assert services[("snmp", "default")] is False


def test_ssh_vrf_listener_is_not_hidden_by_the_top_level_shutdown() -> None:
    """Conservative reading: `vrf X / no shutdown` means SSH listens in X; eAPI still needs the service on."""
    text = (
        "management ssh\n   shutdown\n   !\n   vrf FRONTEND\n      no shutdown\n!\n"
        "management api http-commands\n   shutdown\n   !\n   vrf FRONTEND\n      no shutdown\nend\n"
    )
    services = {(s.service, s.vrf): s.enabled for s in facts_of(parse(text), MgmtService)}
    assert services[("ssh", "default")] is False
    assert services[("ssh", "FRONTEND")] is True
    assert services[("eapi", "FRONTEND")] is False


def test_comment_blocks_are_not_configuration() -> None:
    text = (
        "interface Ethernet1\n   comment\n   shutdown\n   no switchport\n   EOF\n   description real\nend\n"
    )
    [intf] = facts_of(parse(text), Interface)
    assert (intf.enabled, intf.switchport, intf.description) == (True, True, "real")


def test_crlf_and_redacted_secrets() -> None:
    text = (
        "hostname sw1\r\nusername a secret sha512 <redacted>\r\ninterface Ethernet1\r\n   mtu 9000\r\nend\r\n"
    )
    result = parse(text)
    assert result.problems == []
    assert [i.mtu for i in facts_of(result, Interface)] == [9000]


def test_peer_group_shutdown_and_remote_as_reach_members_in_every_vrf() -> None:
    result = parse(
        "hostname leaf1\n"
        "router bgp 65001\n"
        "   neighbor PARKED peer group\n"
        "   neighbor PARKED remote-as 65009\n"
        "   neighbor PARKED shutdown\n"
        "   neighbor 10.0.0.5 peer group PARKED\n"
        "   neighbor 10.0.0.6 peer group PARKED\n"
        "   neighbor 10.0.0.6 remote-as 65010\n"
        "   vrf RED\n"
        "      neighbor 10.9.0.1 peer group PARKED\n"
        "end\n"
    )
    got = {(n.vrf, n.peer): (n.remote_as, n.shutdown) for n in facts_of(result, BgpNeighbor)}
    assert got == {
        ("default", "10.0.0.5"): ("65009", True),
        ("default", "10.0.0.6"): ("65010", True),
        ("RED", "10.9.0.1"): ("65009", True),
    }
