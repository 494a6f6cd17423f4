"""Cumulus Linux (NVUE): `nv config show -o json` live; NVUE's startup.yaml or that JSON offline."""

from __future__ import annotations

import re

from collectors.platforms.cumulus.detect import detect
from collectors.platforms.registry import Command, Platform

PLATFORM = Platform(
    name="cumulus",
    title="NVIDIA Cumulus Linux (NVUE)",
    aliases=(
        "cumulus_linux",
        "nvidia_cumulus",
        "cumulus-linux",
        "nvidia.nvue",
        "nvidia.nvue.nvue",
        "nvue",
    ),
    # NVUE over a Linux shell (netmiko's cumulus_linux class would try `net show`)
    netmiko_device_type="linux",
    commands=(Command("nv config show -o json", "cumulus.nvue-json", "the applied NVUE config"),),
    normalizers={
        "cumulus.nvue-json": "collectors.platforms.cumulus.nvue:normalize_nvue_json",
        "cumulus.nvue-yaml": "collectors.platforms.cumulus.nvue:normalize_nvue_yaml",
    },
    offline_format="cumulus.nvue-yaml",
    detect=detect,
    fixtures="tests/fixtures/cumulus",
    # NVUE (`nv`) prints `Error: ...` for a refused or failed command; a shell without NVUE says
    # `nv: command not found`
    error_replies=(re.compile(r"^(Error: |Invalid Command|nv: command not found)", re.M),),
)
