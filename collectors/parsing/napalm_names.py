"""One name per interface across NAPALM getters, before any fact is built from them.

A driver's getters do not agree on names: NAPALM's nxos_ssh `get_interfaces` says `Management0` and
`Port-channel12` where `get_network_instances` (and the running config) say `mgmt0` and
`port-channel12`. Read as given, one port becomes two Interface facts, and the getter-built one lands
in the wrong VRF (its name is not among the management VRF's members). Every interface name is put
through the platform's own canonical-name function (`Platform.interface_name`), and entries that then
share a name are merged into one.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from auditor.capture import RawCapture
from collectors.platforms.registry import platforms

Namer = Callable[[str], str]
_KEYED = ("get_interfaces", "get_interfaces_ip", "get_lldp_neighbors")  # {interface: entry}


def namer_for(capture: RawCapture) -> Namer:
    """The canonical-name function of the capture's platform (identity when it names none)."""
    name = capture.meta.get("platform")
    platform = platforms().resolve(name) if name else None
    return platform.interface_namer() if platform else _same


def _same(name: str) -> str:
    return name


def canonical_getters(results: dict[str, Any], canon: Namer) -> dict[str, Any]:
    """`results` ({getter: its value}) with every interface name canonical and duplicates merged."""
    if canon is _same:
        return results
    out = dict(results)
    for getter in _KEYED:
        if isinstance(out.get(getter), dict):
            out[getter] = _rekey(out[getter], canon)
    instances = out.get("get_network_instances")
    if isinstance(instances, dict):
        out["get_network_instances"] = {k: _instance(v, canon) for k, v in instances.items()}
    vlans = out.get("get_vlans")
    if isinstance(vlans, dict):
        out["get_vlans"] = {k: _vlan(v, canon) for k, v in vlans.items()}
    return out


def _rekey(table: dict[str, Any], canon: Namer) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, entry in table.items():
        key = canon(str(name))
        out[key] = _merge(out[key], entry) if key in out else entry
    return out


def _merge(first: Any, second: Any) -> Any:
    """Two readings of one interface: the first wins, the second fills what the first lacks
    (dicts merged key by key, lists joined without repeats)."""
    if isinstance(first, dict) and isinstance(second, dict):
        merged = dict(first)
        for key, value in second.items():
            merged[key] = _merge(merged[key], value) if key in merged else value
        return merged
    if isinstance(first, list) and isinstance(second, list):
        return first + [x for x in second if x not in first]
    return second if first in (None, "", -1) else first


def _instance(entry: Any, canon: Namer) -> Any:
    if not isinstance(entry, dict) or not isinstance(entry.get("interfaces"), dict):
        return entry
    members = entry["interfaces"].get("interface")
    if not isinstance(members, dict):
        return entry
    return {**entry, "interfaces": {**entry["interfaces"], "interface": _rekey(members, canon)}}


def _vlan(entry: Any, canon: Namer) -> Any:
    if not isinstance(entry, dict) or not isinstance(entry.get("interfaces"), list):
        return entry
    names = [canon(str(n)) for n in entry["interfaces"]]
    return {**entry, "interfaces": list(dict.fromkeys(names))}
