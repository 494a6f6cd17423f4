"""Cisco NX-OS: NAPALM's nxos_ssh driver, running config and `| json` show commands."""

from __future__ import annotations

import re

from collectors.platforms.nxos.detect import detect
from collectors.platforms.registry import Command, Platform

PLATFORM = Platform(
    name="nxos",
    title="Cisco NX-OS",
    aliases=("nxos_ssh", "cisco_nxos", "cisco.nxos.nxos", "cisco-nxos"),
    napalm_driver="nxos_ssh",
    driver_class="collectors.network.drivers:ReadOnlyNXOSSSHDriver",
    running_config=Command("show running-config", "nxos.running-config", "the running config"),
    commands=(
        # the RIB: routes learned by BGP are in no config, so a failed answer leaves routes unknown
        Command("show ip route vrf all | json", "nxos.show-json", "routes per VRF", live_only=("route",)),
        # NX-OS answers `| json` for a table with no rows with nothing at all (ansible/ansible#50811,
        # "Nexus JSON output cases: 0 element: missing structure or empty string")
        Command(
            "show ip access-lists | json", "nxos.show-json", "ACLs", kinds=("acl",), empty_means_none=True
        ),
        Command(
            "show ip access-lists summary | json", "nxos.show-json", "where ACLs apply", empty_means_none=True
        ),
        Command("show interface priority-flow-control | json", "nxos.show-json", "PFC per interface"),
        Command("show queuing interface | json", "nxos.show-json", "QoS queuing / ECN per interface"),
        # the management plane as it runs: which of ssh, telnet and nxapi are running (every VRF)
        Command("show feature | json", "nxos.show-json", "features running (ssh, telnet, nxapi)"),
        Command(
            "show nve vni | json",
            "nxos.show-json",
            "VXLAN/EVPN VNIs",
            kinds=("vxlan_vni",),
            empty_means_none=True,
            # without `feature nv overlay` NX-OS has no `show nve` (it answers "% Invalid command"): the
            # running config, collected first, proves VXLAN is off, so the command is not sent
            requires=re.compile(r"^feature nv overlay\s*$", re.M),
        ),
    ),
    normalizers={
        "nxos.running-config": "collectors.platforms.nxos.running_config:normalize_running_config",
        "nxos.show-json": "collectors.platforms.nxos.show:normalize_show_json",
    },
    offline_format="nxos.running-config",
    detect=detect,
    fixtures="tests/fixtures/nxos",
    # NX-OS CLI errors ("Cisco Nexus 9000 Series NX-OS Fundamentals Configuration Guide", CLI; RBAC:
    # "Configuring User Accounts and RBAC": `% Permission denied for the role`)
    error_replies=(
        re.compile(r"^% (Invalid command|Incomplete command|Invalid number|Invalid parameter)", re.M),
        re.compile(r"^% Permission denied", re.M),
    ),
    config_formats=frozenset({"nxos.running-config"}),
    interface_name="collectors.platforms.nxos.tree:canon_ifname",
)
