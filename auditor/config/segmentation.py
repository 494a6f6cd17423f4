"""Intent that names things per device: VRF aliases and the port manifest.

VRF aliases: the same tenant VRF is spelt differently per NOS (`RDMA-A` on EOS, `Vrf-RDMA-A` on
SONiC, `RDMA_A` elsewhere). `intent.vrf_aliases` maps a device's spelling to one declared VRF, for
every device or only for some (hostname globs, platforms). One function, `canonical_vrf`, turns a
device's VRF name into the declared one; every check compares VRFs through it. Built-in, documented
in the README: on SONiC, whose VRF names must start with `Vrf`, `Vrf-X`, `Vrf_X` and `VrfX` stand for
a declared VRF `X` when the SONiC spelling is not itself declared.

Port manifest: `intent.ports` places ports (device and interface globs) in a tier, a tenant, VLANs, a
VRF and a role, so port checks judge each port against what it is for. The first entry that matches a
port wins: put specific entries before broad ones.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Mapping
from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator
from pydantic_core import InitErrorDetails, PydanticCustomError

from auditor.config.ifnames import compile_pattern, matches_any
from auditor.enums import Tier

if TYPE_CHECKING:
    from auditor.config.models import Intent, Tiers

SONIC_PREFIXES = ("Vrf-", "Vrf_", "Vrf")
EDGE_ROLES = frozenset({"gpu", "storage", "host"})
PortRole = Literal["gpu", "storage", "host", "uplink", "fabric"]
Loc = tuple[str | int, ...]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class VrfAlias(_Strict):
    """`name` on the matching devices is the declared VRF `vrf`."""

    name: str = Field(min_length=1, description="the VRF as the device spells it, e.g. Vrf-RDMA-A")
    vrf: str = Field(min_length=1, description="the declared VRF it stands for, e.g. RDMA-A")
    devices: list[str] = Field(default=[], description="hostname globs; empty: every device")
    platforms: list[str] = Field(default=[], description="platforms (eos, sonic, ...); empty: every one")

    def applies(self, name: str, device: str | None, platform: str | None) -> bool:
        if name != self.name:
            return False
        if self.devices and (device is None or not any(fnmatch.fnmatchcase(device, p) for p in self.devices)):
            return False
        return not self.platforms or (platform is not None and platform in self.platforms)


class PortAssignment(_Strict):
    """What the ports matching these globs are for. Unset fields are not judged."""

    devices: list[str] = Field(min_length=1, description="hostname globs")
    interfaces: list[str] = Field(
        min_length=1, description="interface globs with ranges: Ethernet1-32, Ethernet1/*, swp1-4s0-3"
    )
    tier: Tier
    tenant: str | None = None
    vlan: list[tuple[int, int]] = Field(
        default=[], description="the access VLAN, or the VLANs a trunk may carry: 3001 or '3001-3004'"
    )
    vrf: str | None = Field(default=None, description="the declared VRF of a routed port or SVI")
    role: PortRole | None = Field(
        default=None, description="gpu, storage, host (edge ports), uplink or fabric (switch-to-switch)"
    )

    @field_validator("vlan", mode="before")
    @classmethod
    def _vlans(cls, v: object) -> list[tuple[int, int]]:
        from auditor.config.models import _vlan_ranges  # noqa: PLC0415 (models imports this module)

        return _vlan_ranges(v)

    @field_validator("interfaces")
    @classmethod
    def _patterns(cls, v: list[str]) -> list[str]:
        for pattern in v:
            compile_pattern(pattern)
        return v

    @field_validator("tier")
    @classmethod
    def _real_tier(cls, v: Tier) -> Tier:
        if v == Tier.CROSS:
            raise ValueError("a port belongs to oob, frontend or backend")
        return v

    def covers(self, device: str, interface: str) -> bool:
        return any(fnmatch.fnmatchcase(device, p) for p in self.devices) and matches_any(
            self.interfaces, interface
        )

    @property
    def edge(self) -> bool | None:
        """True for host-facing roles, False for switch-to-switch ones, None when no role is given."""
        return None if self.role is None else self.role in EDGE_ROLES

    def carries(self, vid: int) -> bool:
        return any(lo <= vid <= hi for lo, hi in self.vlan)


def alias_list(value: object) -> object:
    """The mapping form `{Vrf-RDMA-A: RDMA-A}` as the list form `[{name: Vrf-RDMA-A, vrf: RDMA-A}]`."""
    if isinstance(value, Mapping):
        return [{"name": k, "vrf": v} for k, v in value.items()]
    return value


def declared_vrfs(tiers: Tiers) -> dict[str, Tier]:
    """Every declared VRF name and the tier declaring it (the first tier, for `default`)."""
    out: dict[str, Tier] = {}
    for tier in tiers.declared():
        intent = tiers.get(tier)
        for name in intent.vrfs if intent else []:
            out.setdefault(name, tier)
    return out


def check_references(intent: Intent) -> None:
    """Aliases and manifest entries that name undeclared VRFs or tiers would silently judge nothing:
    refuse them, each error located at its list item so the loader names the line."""
    errors = _alias_errors(intent.vrf_aliases, intent.tiers) + _port_errors(intent.ports, intent.tiers)
    if errors:
        raise ValidationError.from_exception_data("Intent", errors)


def _alias_errors(aliases: list[VrfAlias], tiers: Tiers) -> list[InitErrorDetails]:
    declared = declared_vrfs(tiers)
    errors: list[InitErrorDetails] = []
    for i, alias in enumerate(aliases):
        if alias.vrf not in declared:
            msg = _undeclared(alias.vrf, declared, f"alias {alias.name!r}")
            errors.append(_error(("vrf_aliases", i, "vrf"), alias.vrf, msg))
    return errors


def _port_errors(ports: list[PortAssignment], tiers: Tiers) -> list[InitErrorDetails]:
    """A manifest entry must agree with the declared tiers: its tier declared, its VRF one of that
    tier's, its VLANs inside that tier's ranges (when it declares any), and a VRF given to one tenant."""
    declared = declared_vrfs(tiers)
    tenants: dict[str, tuple[str, int]] = {}
    errors: list[InitErrorDetails] = []
    for i, entry in enumerate(ports):
        intent = tiers.get(entry.tier)
        if intent is None:
            msg = f"tier {entry.tier.value} is not declared under intent.tiers; declare it or fix the tier"
            errors.append(_error(("ports", i, "tier"), entry.tier.value, msg))
            continue
        if entry.vrf is not None and entry.vrf not in intent.vrfs:
            if entry.vrf in declared:
                msg = (
                    f"vrf {entry.vrf!r} is declared under tier {declared[entry.vrf].value}, not under "
                    f"tier {entry.tier.value}; fix the tier or the vrf"
                )
            else:
                msg = _undeclared(entry.vrf, declared, f"a port of tier {entry.tier.value}")
            errors.append(_error(("ports", i, "vrf"), entry.vrf, msg))
        outside = [
            _vlan_text(lo, hi) for lo, hi in entry.vlan if intent.vlans and not _within(lo, hi, intent.vlans)
        ]
        if outside:
            msg = f"VLAN {', '.join(outside)} is outside tier {entry.tier.value}'s declared vlans"
            errors.append(_error(("ports", i, "vlan"), ",".join(outside), msg))
        if entry.vrf is not None and entry.tenant is not None:
            other = tenants.setdefault(entry.vrf, (entry.tenant, i))
            if other[0] != entry.tenant:
                msg = (
                    f"vrf {entry.vrf} is given to tenant {other[0]!r} at ports[{other[1]}] and to tenant "
                    f"{entry.tenant!r} here; a VRF belongs to one tenant"
                )
                errors.append(_error(("ports", i, "tenant"), entry.tenant, msg))
    return errors


def canonical_vrf(intent: Intent, name: str, device: str | None, platform: str | None) -> str:
    """The declared VRF that `name` on `device` (of `platform`) stands for; `name` when none does.

    Explicit aliases first. Then SONiC's `Vrf` prefix: `Vrf-X` is the declared `X` on a SONiC device
    when `Vrf-X` itself is not declared, and on any device when a tier declares both spellings (a
    config listing `[RDMA-A, Vrf-RDMA-A]` means one VRF, not two tenants sharing a VNI)."""
    for alias in intent.vrf_aliases:
        if alias.applies(name, device, platform):
            return alias.vrf
    declared = declared_vrfs(intent.tiers)
    for prefix in SONIC_PREFIXES:
        base = name[len(prefix) :]
        if not name.startswith(prefix) or base not in declared:
            continue
        if name not in declared and platform == "sonic":
            return base
        if name in declared and _same_tier(intent, name, base):
            return base
    return name


def _same_tier(intent: Intent, a: str, b: str) -> bool:
    return any(
        t is not None and a in t.vrfs and b in t.vrfs
        for t in (intent.tiers.get(tier) for tier in intent.tiers.declared())
    )


def port_assignment(intent: Intent, device: str, interface: str) -> PortAssignment | None:
    """The first manifest entry covering this port, or None."""
    return next((p for p in intent.ports if p.covers(device, interface)), None)


def vrf_tenants(intent: Intent) -> dict[str, str]:
    """Canonical VRF -> tenant, as the port manifest gives them."""
    return {
        canonical_vrf(intent, p.vrf, None, None): p.tenant
        for p in intent.ports
        if p.vrf is not None and p.tenant is not None
    }


def _vlan_text(lo: int, hi: int) -> str:
    return str(lo) if lo == hi else f"{lo}-{hi}"


def _within(lo: int, hi: int, ranges: list[tuple[int, int]]) -> bool:
    return all(any(a <= v <= b for a, b in ranges) for v in range(lo, hi + 1))


def _undeclared(vrf: str, declared: Mapping[str, Tier], what: str) -> str:
    known = ", ".join(sorted(declared)) or "none"
    return f"{what} names vrf {vrf!r}, which no tier declares (declared: {known}); add it to a tier's vrfs"


def _error(loc: Loc, value: object, message: str) -> InitErrorDetails:
    return InitErrorDetails(
        type=PydanticCustomError("undeclared_reference", "{message}", {"message": message}),
        loc=loc,
        input=value,
    )
