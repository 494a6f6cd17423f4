"""What the live device collector asks each platform, and the capture format each answer is stored as.

The commands themselves are declared by each platform's record (collectors/platforms/<os>/); this
module is the collector's view of them. It is the contract between the live collector (which sends
exactly these commands) and the normalizers (which read the captures by `format` and
`meta["command"]`). Every command must pass the read-only allowlist in `collectors.network.readonly`;
a test holds them to it.
"""

from __future__ import annotations

from collectors.platforms.registry import Command, platforms
from collectors.platforms.registry import get as platform

__all__ = [
    "NAPALM_DRIVER",
    "NAPALM_GETTERS",
    "NETMIKO_DEVICE_TYPE",
    "RUNNING_CONFIG_FORMAT",
    "SHOW_COMMANDS",
    "Command",
    "all_commands",
    "commands_for",
    "live_commands",
]

# NAPALM getters run on every platform that has a NAPALM driver, in one session, stored as ONE capture
# of format "napalm.getters": content = {getter: result} as sorted JSON (a getter the driver lacks is left
# out), source = "napalm <driver> <getters...>", no meta["command"]. One capture, because an interface's
# state, addresses and VRF come from three getters and a fact rests on a single capture.
# get_config is deliberately NOT run: NAPALM strips header lines from the config it returns, so the
# running config is captured verbatim instead, with the platform's `running_config` command, as
# "<platform>.running-config" (Junos: "junos.config"). One fetch, exact bytes.
NAPALM_GETTERS: tuple[str, ...] = (
    "get_facts",
    "get_network_instances",
    "get_interfaces",
    "get_interfaces_ip",
    "get_vlans",
    "get_lldp_neighbors",
)


def _by_name() -> dict[str, str]:
    """Every name and alias of a registered platform -> the platform's name."""
    return {n: p.name for _, p in platforms().items() for n in p.names}


# Tables keyed by every name and alias a DeviceSource may carry, built from the platform records.
NAPALM_DRIVER: dict[str, str] = {
    n: d for n, p in _by_name().items() if (d := platform(p).napalm_driver) is not None
}
NETMIKO_DEVICE_TYPE: dict[str, str] = {
    n: t for n, p in _by_name().items() if (t := platform(p).netmiko_device_type) is not None
}
RUNNING_CONFIG_FORMAT: dict[str, str] = {
    n: c.format for n, p in _by_name().items() if (c := platform(p).running_config) is not None
}
SHOW_COMMANDS: dict[str, tuple[Command, ...]] = {n: platform(p).commands for n, p in _by_name().items()}


def commands_for(name: str) -> tuple[Command, ...]:
    """The show commands sent to a platform after its running config, in order."""
    return platform(name).commands


def live_commands(name: str) -> tuple[Command, ...]:
    """Every command sent to a platform, its running-config command (NAPALM platforms) first."""
    return platform(name).live_commands()


def all_commands() -> list[str]:
    """Every command text the collector itself sends (NAPALM getters send their own; see readonly)."""
    return sorted({c.command for _, p in platforms().items() for c in p.live_commands()})
