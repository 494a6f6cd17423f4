"""Nornir SimpleInventory: hosts.yaml, groups.yaml and defaults.yaml; a host inherits from its groups
(in order, groups of groups too) and then from defaults, as Nornir resolves them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from auditor.config.models import InventorySource
from collectors.network.inventory.common import Imported, make_device, read_yaml


def load_nornir(path: Path, source: InventorySource) -> Imported:
    out = Imported()
    folder = path if path.is_dir() else path.parent
    hosts_file = path if path.is_file() else folder / "hosts.yaml"
    hosts = read_yaml(hosts_file, out)
    groups = read_yaml(folder / "groups.yaml", out) if (folder / "groups.yaml").exists() else {}
    defaults = read_yaml(folder / "defaults.yaml", out) if (folder / "defaults.yaml").exists() else {}
    if not isinstance(hosts, dict):
        return out
    for name, raw in hosts.items():
        entry = raw or {}
        chain = [entry, *_group_chain(entry.get("groups") or [], groups or {}), defaults or {}]
        data: dict[str, Any] = {}
        for level in reversed(chain):
            data.update(level.get("data") or {})
        make_device(
            out,
            str(hosts_file),
            name=str(name),
            host=_first(chain, "hostname"),
            platform=_first(chain, "platform"),
            port=_first(chain, "port"),
            tier=data.get("tier"),
            role=data.get("role"),
            source=source,
        )
    return out


def _group_chain(
    names: list[str], groups: dict[str, Any], seen: frozenset[str] = frozenset()
) -> list[dict[str, Any]]:
    chain: list[dict[str, Any]] = []
    for g in names:
        if g in seen or g not in groups:
            continue
        group = groups[g] or {}
        chain.append(group)
        chain += _group_chain(group.get("groups") or [], groups, seen | {g})
    return chain


def _first(chain: list[dict[str, Any]], key: str) -> Any:
    for level in chain:
        if level.get(key) not in (None, ""):
            return level[key]
    return None
