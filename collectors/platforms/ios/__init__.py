"""Cisco IOS / IOS-XE: NAPALM's ios driver over SSH, running config and TextFSM-parsed show text."""

from __future__ import annotations

import re

from collectors.platforms.ios.detect import detect
from collectors.platforms.registry import Command, Platform

PLATFORM = Platform(
    name="ios",
    title="Cisco IOS / IOS-XE",
    aliases=("cisco_ios", "cisco_xe", "cisco.ios.ios", "cisco-ios", "cisco-ios-xe", "iosxe", "ios-xe"),
    napalm_driver="ios",
    driver_class="collectors.network.drivers:ReadOnlyIOSDriver",
    running_config=Command("show running-config", "ios.running-config", "the running config"),
    commands=(
        Command(  # the RIB: learned routes are in no config, so a failed answer leaves routes unknown
            "show ip route vrf *",
            "ios.show-text",
            "routes per VRF (TextFSM cisco_ios show ip route)",
            live_only=("route",),
        ),
        Command(
            "show ip access-lists", "ios.show-text", "ACLs (TextFSM)", kinds=("acl",), empty_means_none=True
        ),
        Command(
            "show lldp neighbors detail",
            "ios.show-text",
            "LLDP (TextFSM)",
            kinds=("lldp_neighbor",),
            absent=(re.compile(r"^% LLDP is not enabled", re.M),),  # `lldp run` not configured
        ),
        # the management plane as it runs (preferred to what the running config implies)
        Command("show ip http server status", "ios.show-text", "HTTP/HTTPS server state (TextFSM)"),
        Command("show ip ssh", "ios.show-mgmt", "SSH server state"),
    ),
    normalizers={
        "ios.running-config": "collectors.platforms.ios.running_config:normalize_running_config",
        "ios.show-text": "collectors.platforms.ios.show:normalize_show_text",
        "ios.show-mgmt": "collectors.platforms.ios.mgmt_state:normalize_mgmt_state",
    },
    offline_format="ios.running-config",
    detect=detect,
    fixtures="tests/fixtures/ios",
    # IOS CLI errors: `% Invalid input detected at '^' marker.` as NAPALM's mocked IOS captures hold it
    # (napalm test/ios/mocked_data/test_get_vlans/no_show_vlan_all_ports); `% Incomplete command.`,
    # `% Ambiguous command:` (IOS "Using the Command-Line Interface"); TACACS+ command authorization
    # refused: `Command authorization failed.` (IOS Security Configuration Guide)
    error_replies=(
        re.compile(r"^% (Invalid input detected|Incomplete command|Ambiguous command|Unknown command)", re.M),
        re.compile(r"^(% )?(Command authorization failed|Authorization failed)", re.M),
    ),
    config_formats=frozenset({"ios.running-config"}),
    # Whole kinds the IOS reader does not give: their checks are NOT_ASSESSED naming IOS, never passed
    unavailable={
        "QosInterface": "IOS QoS (MQC policy-maps, priority-flow-control) is not read from its config",
        "VxlanVni": "IOS-XE VXLAN/EVPN (interface nve, member vni) is not read from its config",
    },
)
