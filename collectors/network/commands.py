"""What the live device collector asks each platform, and the capture format each answer is stored as.

This module is the contract between the live collector (which sends exactly these commands) and the
normalizers (which read the captures by `format` and `meta["command"]`). Every command here must pass
the read-only allowlist in `collectors.network.readonly`; a test holds them to it.
"""

from __future__ import annotations

from dataclasses import dataclass

# NAPALM getters run on every platform that has a NAPALM driver, in one session, stored as ONE capture
# of format "napalm.getters": content = {getter: result} as sorted JSON (a getter the driver lacks is left
# out), source = "napalm <driver> <getters...>", no meta["command"]. One capture, because an interface's
# state, addresses and VRF come from three getters and a fact rests on a single capture.
# get_config is deliberately NOT run: NAPALM strips header lines from the config it returns, so the
# running config is captured verbatim instead, with `show running-config` (see RUNNING_CONFIG_FORMAT),
# as "<platform>.running-config" with meta["command"] = "show running-config". One fetch, exact bytes.
NAPALM_GETTERS: tuple[str, ...] = (
    "get_facts",
    "get_network_instances",
    "get_interfaces",
    "get_interfaces_ip",
    "get_vlans",
    "get_lldp_neighbors",
)

# Which NAPALM driver serves a configured platform (DeviceSource.platform).
NAPALM_DRIVER: dict[str, str] = {"eos": "eos", "nxos": "nxos_ssh", "nxos_ssh": "nxos_ssh", "ios": "ios"}

# Platforms NAPALM has no driver for: collected with Netmiko, by these device types.
NETMIKO_DEVICE_TYPE: dict[str, str] = {
    "cumulus": "linux",  # NVUE over a Linux shell (netmiko's cumulus_linux class would try `net show`)
    "sonic": "linux",  # SONiC's admin shell is Linux; `show` is the sonic-utilities CLI
    "onyx": "mellanox_mlnxos",
}


@dataclass(frozen=True)
class Command:
    """One show command and how its answer is stored."""

    command: str  # the exact text sent to the device, stored as meta["command"] and in `source`
    format: str  # the capture format (normalizer key)
    covers: str  # what it is read for (documentation, and the permissions list)


# The running config is stored in the platform's own running-config format, so the running-config
# normalizers read live evidence the same way as offline evidence.
RUNNING_CONFIG_FORMAT: dict[str, str] = {
    "eos": "eos.running-config",
    "nxos": "nxos.running-config",
    "nxos_ssh": "nxos.running-config",
    "ios": "ios.running-config",
}

SHOW_COMMANDS: dict[str, tuple[Command, ...]] = {
    "eos": (
        Command("show ip route vrf all | json", "eos.show-json", "routes per VRF"),
        Command("show ip access-lists | json", "eos.show-json", "ACLs"),
        Command("show ip access-lists summary | json", "eos.show-json", "where ACLs apply"),
        Command("show priority-flow-control | json", "eos.show-json", "PFC per interface"),
        Command("show qos interfaces | json", "eos.show-json", "QoS trust per interface"),
        Command("show qos ecn | json", "eos.show-json", "ECN marking"),
        Command("show interfaces vxlan 1 | json", "eos.show-json", "VXLAN VNI maps"),
        Command("show vxlan vni | json", "eos.show-json", "VXLAN/EVPN VNIs"),
    ),
    "nxos_ssh": (
        Command("show ip route vrf all | json", "nxos.show-json", "routes per VRF"),
        Command("show ip access-lists | json", "nxos.show-json", "ACLs"),
        Command("show ip access-lists summary | json", "nxos.show-json", "where ACLs apply"),
        Command("show interface priority-flow-control | json", "nxos.show-json", "PFC per interface"),
        Command("show queuing interface | json", "nxos.show-json", "QoS queuing / ECN per interface"),
        Command("show nve vni | json", "nxos.show-json", "VXLAN/EVPN VNIs"),
    ),
    "ios": (
        Command("show ip route vrf *", "ios.show-text", "routes per VRF (TextFSM cisco_ios show ip route)"),
        Command("show ip access-lists", "ios.show-text", "ACLs (TextFSM)"),
        Command("show lldp neighbors detail", "ios.show-text", "LLDP (TextFSM)"),
    ),
    "cumulus": (Command("nv config show -o json", "cumulus.nvue-json", "the applied NVUE config"),),
    "sonic": (Command("show runningconfiguration all", "sonic.config-db", "the running config_db JSON"),),
    "onyx": (
        Command("show running-config", "onyx.running-config", "the running config"),
        Command("show interfaces ethernet", "onyx.show-text", "interfaces (TextFSM)"),
    ),
}
SHOW_COMMANDS["nxos"] = SHOW_COMMANDS["nxos_ssh"]


def commands_for(platform: str) -> tuple[Command, ...]:
    """The show commands sent to a platform, in order."""
    return SHOW_COMMANDS[platform]


def all_commands() -> list[str]:
    """Every command text the collector itself sends (NAPALM getters send their own; see readonly)."""
    return sorted({c.command for cmds in SHOW_COMMANDS.values() for c in cmds})
