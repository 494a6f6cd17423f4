"""SONiC: the running config_db JSON, over SSH (Netmiko's linux class: SONiC's admin shell); offline also
the FRR configuration kept beside it."""

from __future__ import annotations

import re

from collectors.platforms.registry import Command, Platform
from collectors.platforms.sonic.detect import detect

PLATFORM = Platform(
    name="sonic",
    title="SONiC",
    aliases=("sonic-os", "dellemc.enterprise_sonic.sonic", "enterprise_sonic"),
    netmiko_device_type="linux",
    commands=(Command("show runningconfiguration all", "sonic.config-db", "the running config_db JSON"),),
    normalizers={
        "sonic.config-db": "collectors.platforms.sonic.config_db:normalize_config_db",
        # the FRR config beside config_db.json (frr.conf, bgpd.conf): BGP in split routing mode
        "sonic.frr": "collectors.platforms.sonic.frr:normalize_frr",
    },
    offline_format="sonic.config-db",
    detect=detect,
    fixtures="tests/fixtures/sonic",
    # sonic-utilities is a Click CLI: an unknown command prints Click's `Error: No such command "x".`
    # after a `Usage:` line; commands needing root print `Root privileges are required for this operation`
    error_replies=(
        re.compile(r"^(Usage: |Error: No such command|Error: Got unexpected extra argument)", re.M),
        re.compile(r"Root privileges are required", re.M),
    ),
)
