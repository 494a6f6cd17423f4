"""CheckContext.target looks targets up in an index built once; it must answer as a scan in order."""

from __future__ import annotations

from auditor.config.models import Intent
from auditor.enums import TargetStatus, Tier
from checks.base import CheckContext, FactView, TargetView


def _target(name: str, kind: str = "device", tier: Tier | None = None) -> TargetView:
    return TargetView(name, kind, None, tier, None, TargetStatus.OK, None)


def test_target_lookup_agrees_with_a_scan() -> None:
    targets = (
        _target("a"),
        _target("b", tier=Tier.BACKEND),
        _target("a", kind="kubernetes"),  # a duplicate name: the first one wins, as in a scan
        _target("c", tier=Tier.OOB),
    )
    ctx = CheckContext(intent=Intent.model_validate({}), facts=FactView([]), targets=targets)
    for name in ("a", "b", "c", "missing", ""):
        assert ctx.target(name) is next((t for t in targets if t.name == name), None)


def test_context_without_targets() -> None:
    ctx = CheckContext(intent=Intent.model_validate({}), facts=FactView([]))
    assert ctx.target("a") is None
    ctx.target("b")  # builds the index: it is no field, so equality still compares fields only
    assert ctx == CheckContext(intent=ctx.intent, facts=ctx.facts)
