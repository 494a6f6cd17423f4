"""What the inventory importers share: platform names across tools, and building a DeviceSource."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from auditor.config.models import DeviceSource, InventorySource
from auditor.enums import Tier
from auditor.normalize import Problem

# NAPALM, Netmiko, Ansible collection and NetBox slug spellings -> DeviceSource.platform
PLATFORM_ALIASES: dict[str, str] = {
    "eos": "eos",
    "arista_eos": "eos",
    "arista.eos.eos": "eos",
    "arista-eos": "eos",
    "nxos": "nxos",
    "nxos_ssh": "nxos_ssh",
    "cisco_nxos": "nxos",
    "cisco.nxos.nxos": "nxos",
    "cisco-nxos": "nxos",
    "ios": "ios",
    "cisco_ios": "ios",
    "cisco_xe": "ios",
    "cisco.ios.ios": "ios",
    "cisco-ios": "ios",
    "cisco-ios-xe": "ios",
    "cumulus": "cumulus",
    "cumulus_linux": "cumulus",
    "nvidia_cumulus": "cumulus",
    "cumulus-linux": "cumulus",
    "nvidia.nvue": "cumulus",
    "nvidia.nvue.nvue": "cumulus",
    "nvue": "cumulus",
    "sonic": "sonic",
    "sonic-os": "sonic",
    "onyx": "onyx",
    "mellanox_mlnxos": "onyx",
    "mlnx-os": "onyx",
    "mlnxos": "onyx",
    "onyx-os": "onyx",
}


@dataclass
class Imported:
    devices: list[DeviceSource] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)


def platform_of(raw: object) -> str | None:
    if not isinstance(raw, str):
        return None
    key = raw.strip().lower()
    return PLATFORM_ALIASES.get(key) or PLATFORM_ALIASES.get(key.rsplit(".", 1)[-1])


def read_yaml(path: Path, out: Imported) -> Any:
    try:
        return yaml.safe_load(path.read_text()) or {}
    except (OSError, yaml.YAMLError) as exc:
        out.problems.append(Problem(str(path), f"cannot read inventory: {exc}", hint="fix the file"))
        return None


def make_device(
    out: Imported,
    origin: str,
    *,
    name: str,
    host: object,
    platform: object,
    port: object = None,
    tier: object = None,
    role: object = None,
    source: InventorySource,
) -> None:
    """Append a DeviceSource, or a Problem naming the host and what is wrong with it."""
    plat = platform_of(platform)
    if plat is None:
        out.problems.append(
            Problem(
                origin,
                f"host {name}: platform {platform!r} is not supported",
                hint=f"use one of {sorted(set(PLATFORM_ALIASES.values()))}",
            )
        )
        return
    if tier is not None and str(tier) not in {t.value for t in Tier if t != Tier.CROSS}:
        out.problems.append(
            Problem(origin, f"host {name}: unknown tier {tier!r}", hint="use oob, frontend or backend")
        )
        tier = None
    try:
        out.devices.append(
            DeviceSource.model_validate(
                {
                    "host": str(host or name),
                    "name": name,
                    "platform": plat,
                    "tier": str(tier) if tier is not None else None,
                    "role": str(role) if role is not None else None,
                    "port": port if port not in (None, "") else None,
                    "credentials": source.credentials,
                    "known_hosts": source.known_hosts,
                }
            )
        )
    except (ValidationError, ValueError, TypeError) as exc:
        out.problems.append(Problem(origin, f"host {name}: {exc}".splitlines()[0]))
