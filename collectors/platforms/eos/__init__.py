"""Arista EOS: NAPALM's eos driver over eAPI, running config and `| json` show commands."""

from __future__ import annotations

import re

from collectors.platforms.eos.detect import detect
from collectors.platforms.registry import Command, Platform

PLATFORM = Platform(
    name="eos",
    title="Arista EOS",
    aliases=("arista_eos", "arista.eos.eos", "arista-eos"),
    napalm_driver="eos",
    running_config=Command("show running-config", "eos.running-config", "the running config"),
    commands=(
        # the RIB: routes learned by BGP are in no config, so a failed answer leaves routes unknown
        Command("show ip route vrf all | json", "eos.show-json", "routes per VRF", live_only=("route",)),
        Command("show ip access-lists | json", "eos.show-json", "ACLs"),
        Command("show ip access-lists summary | json", "eos.show-json", "where ACLs apply"),
        Command("show priority-flow-control | json", "eos.show-json", "PFC per interface"),
        Command("show qos interfaces | json", "eos.show-json", "QoS trust per interface"),
        Command("show qos ecn | json", "eos.show-json", "ECN marking"),
        Command(
            "show interfaces vxlan 1 | json",
            "eos.show-json",
            "VXLAN VNI maps",
            kinds=("vxlan_vni",),
            # a switch with no Vxlan1 interface: the CLI prints `% Interface does not exist`, eAPI gives the
            # same words without "% " as the command's error (code 1000, "could not run command")
            absent=(re.compile(r"^%? ?Interface does not exist", re.M),),
        ),
        Command("show vxlan vni | json", "eos.show-json", "VXLAN/EVPN VNIs"),
        # the management plane as it runs (preferred to what the running config implies): text, since
        # the JSON form of `show management api http-commands` names no VRF
        Command("show management ssh", "eos.show-mgmt", "SSH server state per VRF"),
        Command("show management api http-commands", "eos.show-mgmt", "eAPI state and its VRFs"),
    ),
    normalizers={
        "eos.running-config": "collectors.platforms.eos.running_config:normalize_running_config",
        "eos.show-json": "collectors.platforms.eos.show:normalize_show_json",
        "eos.show-mgmt": "collectors.platforms.eos.mgmt_state:normalize_mgmt_state",
    },
    offline_format="eos.running-config",
    detect=detect,
    fixtures="tests/fixtures/avd",
    # EOS CLI errors (EOS User Manual, "Command-Line Interface": `% Invalid input`, `% Incomplete command`,
    # `% Ambiguous command`; AAA command authorization: `% Authorization denied for command ...`)
    # eAPI returns the same messages without the leading "% " in the error's data.
    error_replies=(
        re.compile(r"^%? ?(Invalid input|Incomplete command|Ambiguous command|Unavailable command)", re.M),
        re.compile(r"^%? ?Authorization denied", re.M),
    ),
    config_formats=frozenset({"eos.running-config"}),
)
