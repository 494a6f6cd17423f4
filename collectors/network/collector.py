"""Live network devices, read-only: NAPALM where it has a driver (EOS over eAPI, NX-OS and IOS over
SSH), Netmiko where it has none (Cumulus NVUE, SONiC, Onyx). Registered as the `devices` collector."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from auditor.capture import RawCapture
from auditor.config.models import AuditConfig, CollectionSettings, DeviceSource
from auditor.enums import TargetKind, Tier
from auditor.normalize import Problem
from collectors.base import Plan, TargetSpec
from collectors.network.commands import NAPALM_GETTERS, all_commands
from collectors.network.credentials import resolve
from collectors.network.hostkeys import trust_for
from collectors.network.inventory import load_inventory


@dataclass(frozen=True)
class DevicePlan:
    """A TargetSpec payload: the device entry and what is needed to reach it (no secrets)."""

    device: DeviceSource
    base_dir: Path
    settings: CollectionSettings
    meta: tuple[tuple[str, str], ...]


class DeviceCollector:
    """Plans one target per device (config and inventories) and collects it over a guarded session."""

    name: ClassVar[str] = "devices"
    permissions: ClassVar[dict[str, list[str]]] = {
        "device commands": [
            *(f"napalm {g}" for g in NAPALM_GETTERS),
            "show running-config",
            *all_commands(),
        ],
        "device privilege": ["read-only (show) access; eAPI for EOS, SSH for the others"],
    }

    def plan(self, config: AuditConfig) -> Plan:
        plan = Plan()
        devices = list(config.sources.devices)
        for inv in config.sources.inventory:
            imported = load_inventory(inv, config.base_dir)
            devices += imported.devices
            plan.problems += imported.problems
        seen: set[str] = set()
        for device in devices:
            name = device.target_name
            if name in seen:
                plan.problems.append(
                    Problem(name, "device listed twice (config and/or inventories); the first entry is used")
                )
                continue
            seen.add(name)
            plan.targets.append(self._spec(config, device))
        return plan

    def _spec(self, config: AuditConfig, device: DeviceSource) -> TargetSpec:
        name = device.target_name
        tier = device.tier or config.intent.tier_of_device(name)
        role = device.role or _role(config, tier, name)
        meta = {"device": name, "platform": device.platform}
        if tier:
            meta["tier"] = tier.value
        if role:
            meta["role"] = role
        trust = trust_for(device, base_dir=config.base_dir)
        payload = DevicePlan(device, config.base_dir, config.collection, tuple(sorted(meta.items())))
        return TargetSpec(
            TargetKind.DEVICE,
            name,
            self.name,
            device.platform,
            tier,
            role,
            payload=payload,
            notes=trust.notes,
        )

    def collect(self, target: TargetSpec) -> Iterator[RawCapture | Problem]:
        # NAPALM and Netmiko take seconds to import: only runs that reach a live device pay for them.
        from collectors.network.deadline import collect_within  # noqa: PLC0415
        from collectors.network.session import DeviceJob  # noqa: PLC0415

        p: DevicePlan = target.payload
        d = p.device
        login = resolve(d.credentials, target=target.name, base_dir=p.base_dir)
        job = DeviceJob(
            target=target.name,
            host=d.host,
            port=d.port,
            platform=d.platform,
            login=login,
            trust=trust_for(d, base_dir=p.base_dir),
            meta=dict(p.meta),
            connect_timeout=p.settings.connect_timeout,
            command_timeout=p.settings.command_timeout,
            retries=p.settings.retries,
            backoff=p.settings.retry_backoff,
        )
        # The hard deadline holds whatever the driver does: connect, every command and the disconnect.
        yield from collect_within(job, p.settings.deadline_for_device())


def _role(config: AuditConfig, tier: Tier | None, name: str) -> str | None:
    intent = config.intent.tiers.get(tier) if tier else None
    return intent.role_of(name) if intent else None
