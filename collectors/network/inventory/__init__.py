"""Devices from inventories network teams already keep: Nornir SimpleInventory or Ansible YAML, and
NetBox `dcim/devices` exports. Each importer returns DeviceSource entries (so they go through the same
validation as devices written in the config) and Problems naming the file and host it could not use."""

from __future__ import annotations

from pathlib import Path

from auditor.config.models import InventorySource
from auditor.normalize import Problem
from collectors.network.inventory.ansible import load_ansible
from collectors.network.inventory.common import Imported
from collectors.network.inventory.netbox import load_netbox
from collectors.network.inventory.nornir import load_nornir

_LOADERS = {"nornir": load_nornir, "ansible": load_ansible, "netbox": load_netbox}


def load_inventory(source: InventorySource, base_dir: Path) -> Imported:
    path = source.path.expanduser()
    path = path if path.is_absolute() else base_dir / path
    if not path.exists():
        return Imported(
            problems=[
                Problem(
                    str(source.path),
                    "inventory path does not exist",
                    hint="fix sources.inventory in the config",
                )
            ]
        )
    return _LOADERS[source.format](path, source)


__all__ = ["Imported", "load_inventory"]
