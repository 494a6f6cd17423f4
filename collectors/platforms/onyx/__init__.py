"""NVIDIA Onyx (MLNX-OS): Netmiko's mellanox_mlnxos over SSH, flat-line running config."""

from __future__ import annotations

import re

from collectors.platforms.onyx.detect import detect
from collectors.platforms.registry import Command, Platform

PLATFORM = Platform(
    name="onyx",
    title="NVIDIA Onyx",
    aliases=("mellanox_mlnxos", "mlnx-os", "mlnxos", "onyx-os", "mellanox.onyx.onyx"),
    netmiko_device_type="mellanox_mlnxos",
    commands=(
        Command("show running-config", "onyx.running-config", "the running config"),
        Command("show interfaces ethernet", "onyx.show-text", "interfaces (TextFSM)"),
    ),
    normalizers={
        "onyx.running-config": "collectors.platforms.onyx.cli:normalize_running_config",
        "onyx.show-text": "collectors.platforms.onyx.cli:normalize_show_text",
    },
    offline_format="onyx.running-config",
    detect=detect,
    fixtures="tests/fixtures/onyx",
    # Onyx CLI errors (NVIDIA Onyx User Manual, "Command Line Interface"): `% Unrecognized command`,
    # `% Incomplete command`
    error_replies=(re.compile(r"^% (Unrecognized command|Incomplete command|Ambiguous command)", re.M),),
    config_formats=frozenset({"onyx.running-config"}),
    # Whole kinds the Onyx reader does not give: their checks are NOT_ASSESSED naming Onyx, never passed
    unavailable={
        "Acl": "Onyx ACL rules (ipv4 access-list) are not read; where ACLs apply is",
        "VxlanVni": "Onyx VXLAN (interface nve, vxlan vlan vni) is not read from its config",
    },
)
