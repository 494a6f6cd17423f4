"""Emulated devices of each platform, answering with the captured outputs in tests/fixtures/devsim
(see SOURCE.txt there). The hostname in each answer is the device's own name."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from tests.devsim.device import Device

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
DEVSIM = FIXTURES / "devsim"
AVD_CONFIG = FIXTURES / "avd/examples/single-dc-l3ls/intended/configs/dc1-leaf1a.cfg"
NXOS_CONFIG = FIXTURES / "nxos/ai_backend_leaf/running-config.txt"


def _read(platform: str, name: str) -> str:
    return (DEVSIM / platform / name).read_text()


def _json(platform: str, name: str) -> Any:
    return json.loads(_read(platform, name))


def _rename(config: str, name: str, keyword: str = "hostname") -> str:
    return re.sub(rf"^(\s*){keyword} \S+", rf"\g<1>{keyword} {name}", config, count=1, flags=re.M)


def _pretty(obj: Any) -> str:
    return json.dumps(obj, indent=2)


def eos(name: str, *, config: Path = AVD_CONFIG, **kw: Any) -> Device:
    """An Arista EOS switch reached over eAPI (NAPALM eos)."""
    j = {
        "show version": _json("eos", "show_version.json"),
        "show hostname": {"hostname": name, "fqdn": f"{name}.example"},
        "show interfaces": _json("eos", "show_interfaces.json"),
        "show lldp neighbors": _json("eos", "show_lldp_neighbors.json"),
        "show vrf": _json("eos", "show_vrf.json"),
        "show ip interface": _json("eos", "show_ip_interface.json"),
        "show ipv6 interface": _json("eos", "show_ipv6_interface.json"),
        "show vlan": _json("eos", "show_vlan.json"),
    }
    text = {
        "show running-config": _rename(config.read_text(), name),
        "show ip route vrf all | json": _read("eos", "show_ip_route_vrf_all.json"),
        "show ip access-lists | json": _read("eos", "show_ip_access-lists.json"),
        "show ip access-lists summary | json": _read("eos", "show_ip_access-lists_summary.json"),
        "show priority-flow-control | json": _read("eos", "show_priority-flow-control.json"),
        "show qos interfaces | json": _read("eos", "show_qos_interfaces.json"),
        "show qos ecn | json": _read("eos", "show_qos_ecn.json"),
        "show interfaces vxlan 1 | json": _read("eos", "show_interfaces_vxlan_1.json"),
        "show vxlan vni | json": _read("eos", "show_vxlan_vni.json"),
        "show management ssh": _read("eos", "show_management_ssh.txt"),
        "show management api http-commands": _read("eos", "show_management_api_http-commands.txt"),
    }
    return Device(name, "eos", text=text, json=j, **kw)


def nxos(name: str, *, config: Path = NXOS_CONFIG, **kw: Any) -> Device:
    """A Cisco Nexus switch reached over SSH (NAPALM nxos_ssh)."""

    def r(f: str) -> str:
        return _read("nxos_ssh", f)

    text = {
        "show version": r("show_version.txt"),
        "show hostname": f"{name} \n",
        "show hosts": r("show_hosts.txt"),
        "show interface status": r("show_interface_status.txt"),
        "show inventory | json": r("show_inventory___json.txt"),
        "show interface": r("show_interface.txt"),
        "show ip interface vrf all": r("show_ip_interface_vrf_all.txt"),
        "show ipv6 interface vrf all": r("show_ipv6_interface_vrf_all.txt"),
        "show vrf detail | json": r("show_vrf_detail___json.txt"),
        "show vrf interface | json": r("show_vrf_interface___json.txt"),
        "show vlan brief | json": r("show_vlan_brief___json.txt"),
        "show lldp neighbors detail": r("show_lldp_neighbors_detail.txt"),
        "show running-config": _rename(config.read_text(), name),
        "show ip route vrf all | json": r("show_ip_route_vrf_all.json"),
        "show ip access-lists | json": r("show_ip_access-lists.json"),
        "show ip access-lists summary | json": r("show_ip_access-lists_summary.json"),
        "show interface priority-flow-control | json": r("show_interface_priority-flow-control.json"),
        "show queuing interface | json": r("show_queuing_interface.json"),
        "show nve vni | json": r("show_nve_vni.json"),
        "show feature | json": r("show_feature___json.txt"),
    }
    return Device(name, "nxos_ssh", text=text, **kw)


def ios(name: str, **kw: Any) -> Device:
    """A Cisco IOS router reached over SSH (NAPALM ios)."""

    def r(f: str) -> str:
        return _read("ios", f)

    text = {
        "show version": r("show_version.txt"),
        "show hosts": r("show_hosts.txt"),
        "show ip interface brief": r("show_ip_interface_brief.txt"),
        "show vrf detail": r("show_vrf_detail.txt"),
        "show interfaces": r("show_interfaces.txt"),
        "show ip interface": "",
        "show ipv6 interface": "",
        "show vlan all-ports": r("show_vlan_all-ports.txt"),
        "show lldp neighbors": r("show_lldp_neighbors.txt"),
        "show lldp neighbors detail": r("show_lldp_neighbors_detail.txt"),
        "show running-config": _rename(r("show_running-config.txt"), name),
        "show ip route vrf *": r("show_ip_route_vrf_star.txt"),
        "show ip access-lists": r("show_ip_access-lists.txt"),
        "show ip http server status": r("show_ip_http_server_status.txt"),
        "show ip ssh": r("show_ip_ssh.txt"),
    }
    return Device(name, "ios", text=text, **kw)


def cumulus(name: str, **kw: Any) -> Device:
    """An NVIDIA Cumulus Linux switch (NVUE), reached over SSH with Netmiko."""
    doc = _json("cumulus", "nv_config_show.json")
    doc[1]["set"]["system"]["hostname"] = name
    kw.setdefault("username", "cumulus")
    return Device(name, "cumulus", text={"nv config show -o json": _pretty(doc)}, **kw)


def sonic(name: str, **kw: Any) -> Device:
    """A SONiC switch (community build, bash + sonic-utilities `show`), reached over SSH with Netmiko."""
    db = _json("sonic", "config_db.json")
    db["DEVICE_METADATA"]["localhost"]["hostname"] = name
    kw.setdefault("username", "admin")
    return Device(name, "sonic", text={"show runningconfiguration all": json.dumps(db, indent=4)}, **kw)


def onyx(name: str, **kw: Any) -> Device:
    """An NVIDIA Onyx / MLNX-OS switch, reached over SSH with Netmiko (mellanox_mlnxos)."""
    config = _read("onyx", "show_running-config.txt").replace("HOSTNAME", name)
    text = {
        "show running-config": config,
        "show interfaces ethernet": _read("onyx", "show_interfaces_ethernet.txt"),
    }
    return Device(name, "onyx", text=text, **kw)


def junos(name: str, **kw: Any) -> Device:
    """A Juniper QFX switch reached over NETCONF/SSH by NAPALM's junos driver (tests/devsim/netconf.py).
    Its committed config is the Junos fixture (tests/fixtures/junos/ai_leaf.conf) under this name."""
    config = (FIXTURES / "junos" / "ai_leaf.conf").read_text().replace("be-leaf-qfx1", name)
    return Device(name, "junos", text={"show configuration": config}, **kw)


BUILDERS = {
    "eos": eos,
    "nxos_ssh": nxos,
    "ios": ios,
    "cumulus": cumulus,
    "sonic": sonic,
    "onyx": onyx,
    "junos": junos,
}
