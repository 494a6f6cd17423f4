"""Device VRF names as declared VRFs, for every check that compares them with the intent.

A device spells a VRF its own way (`Vrf-RDMA-A` on SONiC, `RDMA_A` elsewhere); `intent.vrf_aliases`
and SONiC's built-in `Vrf` prefix say which declared VRF it is (auditor/config/segmentation.py).
Checks never compare a fact's VRF name with `intent.tiers.*.vrfs` directly: they ask
`VrfNames.of(ctx).canonical(target, name)`, so one alias changes every verdict the same way. The
platform is the target's, or the Device fact's when the target does not carry one (offline files).
"""

from __future__ import annotations

from auditor.config.segmentation import declared_vrfs
from auditor.enums import Tier
from auditor.facts import Device
from checks.base import CheckContext


class VrfNames:
    """One run's canonical VRF names, computed once per (device, name)."""

    def __init__(self, ctx: CheckContext) -> None:
        self.intent = ctx.intent
        self.platforms: dict[str, str | None] = {t.name: t.platform for t in ctx.targets}
        for d in ctx.facts.of(Device):
            if not self.platforms.get(d.target):
                self.platforms[d.target] = d.record.platform
        self._cache: dict[tuple[str, str], str] = {}
        self._declared = declared_vrfs(ctx.intent.tiers)
        # Nothing to translate (the common case, and a fleet-sized saving): no alias, no SONiC device,
        # and no declared name that is another declared name's SONiC spelling.
        self._plain = (
            not ctx.intent.vrf_aliases
            and "sonic" not in self.platforms.values()
            and all(ctx.intent.canonical_vrf(n) == n for n in self._declared)
        )

    @classmethod
    def of(cls, ctx: CheckContext) -> VrfNames:
        return ctx.derived("vrf_names", lambda: cls(ctx))

    def canonical(self, target: str, name: str) -> str:
        """The declared VRF `name` stands for on `target`, or `name` itself."""
        if self._plain:
            return name
        key = (target, name)
        if key not in self._cache:
            self._cache[key] = self.intent.canonical_vrf(name, target, self.platforms.get(target))
        return self._cache[key]

    def spelt(self, target: str, name: str) -> str:
        """`name`, followed by the declared VRF it stands for when that differs (for finding texts)."""
        canonical = self.canonical(target, name)
        return name if canonical == name else f"{name} (= {canonical})"

    def tier(self, target: str, name: str, device_tier: Tier | None) -> Tier | None:
        """The tier whose VRF this is: the device's own tier when that tier declares it, else the first
        tier declaring it; an undeclared VRF belongs to no tier. The `default` VRF (the global table) is
        always its device's own network: backend on a backend leaf, OOB on an OOB switch, frontend on a
        frontend switch, whether or not that tier lists `default` among its VRFs (the OOB tier's VRFs
        name the management VRF of the other switches, not the OOB switch's own table); on a device of
        no tier it belongs to none."""
        vrf = self.canonical(target, name)
        if vrf == "default":
            return device_tier
        if device_tier is not None:
            intent = self.intent.tiers.get(device_tier)
            if intent is not None and vrf in intent.vrfs:
                return device_tier
        return self._declared.get(vrf)
