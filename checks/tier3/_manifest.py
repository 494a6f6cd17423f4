"""The port manifest (`intent.ports`) as the port checks read it.

A port's entry is the first manifest entry covering it; a port-channel without an entry of its own
takes the entry of its first member that has one (manifests often list the physical ports). Backend
VLANs are the declared `intent.tiers.backend.vlans` and the VLANs of backend manifest entries.
"""

from __future__ import annotations

import fnmatch

from auditor.config.ifnames import matches_any
from auditor.config.segmentation import PortAssignment
from auditor.enums import Tier
from checks.base import CheckContext
from checks.tier3._common import DeviceInterfaces


class Manifest:
    """Manifest lookups for one run, cached per port."""

    def __init__(self, ctx: CheckContext) -> None:
        self.intent = ctx.intent
        self.declared = bool(ctx.intent.ports)
        self._cache: dict[tuple[str, str], PortAssignment | None] = {}
        self._by_device: dict[str, list[PortAssignment]] = {}
        backend = ctx.intent.tiers.backend
        ranges = list(backend.vlans) if backend else []
        ranges += [r for p in ctx.intent.ports if p.tier == Tier.BACKEND for r in p.vlan]
        self.backend_vlans = ranges

    @classmethod
    def of(cls, ctx: CheckContext) -> Manifest:
        return ctx.derived("tier3.manifest", lambda: cls(ctx))

    def entry(self, device: str, name: str, ifs: DeviceInterfaces | None = None) -> PortAssignment | None:
        if not self.declared:
            return None
        key = (device, name)
        if key not in self._cache:
            found = self._first(device, name)
            if found is None and ifs is not None:
                found = next(
                    (e for m in ifs.members.get(name, []) if (e := self._first(device, m)) is not None), None
                )
            self._cache[key] = found
        return self._cache[key]

    def _first(self, device: str, name: str) -> PortAssignment | None:
        """The first entry covering the port (as Intent.port), the device globs matched once per device."""
        if device not in self._by_device:
            self._by_device[device] = [
                p for p in self.intent.ports if any(fnmatch.fnmatchcase(device, g) for g in p.devices)
            ]
        return next((p for p in self._by_device[device] if matches_any(p.interfaces, name)), None)

    def backend_vlan(self, vid: int) -> bool:
        return any(lo <= vid <= hi for lo, hi in self.backend_vlans)
