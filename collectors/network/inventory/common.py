"""What the inventory importers share: platform names across tools (from the platform registry), and
building a DeviceSource."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from auditor.config.models import DeviceSource, InventorySource
from auditor.enums import Tier
from auditor.normalize import Problem
from collectors.platforms.registry import canonical, platforms


@dataclass
class Imported:
    devices: list[DeviceSource] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)


def platform_of(raw: object) -> str | None:
    """The registered platform a tool's spelling stands for (NAPALM, Netmiko, Ansible collection or
    NetBox slug names are each platform's aliases; see collectors/platforms/<os>/__init__.py)."""
    return canonical(raw) if isinstance(raw, str) else None


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
                hint=f"use one of {[name for name, _ in platforms().items()]}",
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
