"""Ansible YAML inventory: `all` with hosts, children and vars; host vars win over group vars, a child
group's vars over its parent's. Reads ansible_host, ansible_port, ansible_network_os and tier/role."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from auditor.config.models import InventorySource
from collectors.network.inventory.common import Imported, make_device, read_yaml


def load_ansible(path: Path, source: InventorySource) -> Imported:
    out = Imported()
    doc = read_yaml(path, out)
    if not isinstance(doc, dict):
        return out
    hosts: dict[str, dict[str, Any]] = {}
    for name, group in doc.items():
        _walk(str(name), group or {}, {}, hosts)
    for name, hv in hosts.items():
        make_device(
            out,
            str(path),
            name=name,
            host=hv.get("ansible_host"),
            platform=hv.get("ansible_network_os") or hv.get("platform"),
            port=hv.get("ansible_port"),
            tier=hv.get("tier"),
            role=hv.get("role"),
            source=source,
        )
    return out


def _walk(
    name: str, group: dict[str, Any], inherited: dict[str, Any], hosts: dict[str, dict[str, Any]]
) -> None:
    gvars = {**inherited, **(group.get("vars") or {})}
    for host, hvars in (group.get("hosts") or {}).items():
        merged = {**hosts.get(str(host), {}), **gvars, **(hvars or {})}
        hosts[str(host)] = merged
    for child, sub in (group.get("children") or {}).items():
        _walk(str(child), sub or {}, gvars, hosts)
