"""A FactView that reads each kind of fact on first use and lets go of the kinds no check still needs
(how `auditor check` and the audit read a stored run) sees what a view holding every fact sees, and the
runner returns the same findings, in check id order, whatever order it ran the checks in."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from auditor.config.models import Intent
from auditor.enums import FactKind, Severity, Status, Tier
from auditor.facts import Coverage, FactRecord, Interface, MgmtService, Vrf
from auditor.store.reader import StoredFact
from checks.base import Check, CheckContext, CheckMeta, FactView, Finding
from checks.runner import run_checks


def _f(
    i: int, record: FactRecord, fmt: str = "eos.running-config", target: str = "leaf1"
) -> StoredFact[FactRecord]:
    return StoredFact(i, record.kind, target, i, f"{i:064x}", record, fmt)


FACTS = [
    _f(1, Coverage(target="leaf1", covers=FactKind.INTERFACE)),
    _f(2, Interface(device="leaf1", name="Ethernet1", type="ethernet", mtu=9000), "napalm.getters"),
    _f(3, MgmtService(device="leaf1", service="ssh", vrf="MGMT")),
    _f(4, Interface(device="leaf1", name="Ethernet1", type="ethernet", vrf="RDMA-A")),
    _f(5, MgmtService(device="leaf1", service="ssh", vrf="default")),
    _f(6, Vrf(device="leaf1", name="RDMA-A")),
    # the device reports ssh in every VRF: the config records of other VRFs are superseded
    _f(
        7,
        MgmtService(device="leaf1", service="ssh", vrf="MGMT", source="operational", all_vrfs=True),
        "eos.show-mgmt",
    ),
    _f(8, Coverage(target="leaf1", covers=FactKind.VRF, gap="command refused")),
    _f(9, Interface(device="leaf1", name="Ethernet2", type="ethernet")),
]


class Loader:
    """One kind's facts in row order, as RunReader.facts((kind,)) gives them; counts each read."""

    def __init__(self, facts: Sequence[StoredFact[FactRecord]]) -> None:
        self.facts = facts
        self.reads: list[FactKind] = []

    def __call__(self, kind: FactKind) -> list[StoredFact[FactRecord]]:
        self.reads.append(kind)
        return [f for f in self.facts if f.kind == kind]

    def counts(self) -> dict[FactKind, int]:
        out: dict[FactKind, int] = {}
        for f in self.facts:
            out[f.kind] = out.get(f.kind, 0) + 1
        return out


def _lazy(facts: Sequence[StoredFact[FactRecord]] = FACTS) -> tuple[FactView, Loader]:
    loader = Loader(facts)
    return FactView(load=loader, counts=loader.counts), loader


def test_a_lazy_view_sees_what_a_view_of_every_fact_sees() -> None:
    eager, (lazy, loader) = FactView(FACTS), _lazy()
    assert loader.reads == []  # nothing read until asked
    for model in (Interface, MgmtService, Vrf, Coverage):
        assert lazy.of(model) == eager.of(model)
    assert [f.record.vrf for f in lazy.of(MgmtService)] == ["MGMT"]  # merged, the default one superseded
    [eth1, _] = lazy.of(Interface)
    assert eth1.record.mtu == 9000 and eth1.record.vrf == "RDMA-A" and eth1.also_from == ((2, f"{2:064x}"),)
    for kind in (FactKind.INTERFACE, FactKind.VRF, FactKind.ROUTE):
        assert lazy.covered("leaf1", kind) == eager.covered("leaf1", kind)
        assert lazy.gap("leaf1", kind) == eager.gap("leaf1", kind)
        assert lazy.covering(kind) == eager.covering(kind)
    assert sorted(loader.reads) == sorted(
        [FactKind.INTERFACE, FactKind.MGMT_SERVICE, FactKind.VRF, FactKind.COVERAGE]
    )


def test_a_released_kind_read_again_is_reloaded_and_counted() -> None:
    view, loader = _lazy()
    before = view.of(Interface)
    assert view.release([FactKind.INTERFACE, FactKind.COVERAGE, FactKind.VRF]) == {FactKind.INTERFACE}
    assert view.held == frozenset()
    assert view.covered("leaf1", FactKind.INTERFACE)  # coverage is never let go
    assert view.of(Interface) == before
    assert view.reloads == {FactKind.INTERFACE: 1}
    assert loader.reads.count(FactKind.INTERFACE) == 2


def test_a_view_given_its_facts_releases_nothing() -> None:
    view = FactView(FACTS)
    assert view.release([FactKind.INTERFACE]) == set()
    assert len(view.of(Interface)) == 2


def _meta(check_id: str, needs: Iterable[FactKind]) -> CheckMeta:
    return CheckMeta(check_id, check_id, Tier.CROSS, Severity.LOW, frozenset(needs), "r", "r")


class Reads(Check):
    """Reports the subjects of the kinds it reads, through a derived view for interfaces."""

    def __init__(self, check_id: str, needs: Iterable[FactKind], reads: Iterable[type[FactRecord]]) -> None:
        self.meta = _meta(check_id, needs)  # type: ignore[misc]
        self.reads = list(reads)

    def evaluate(self, ctx: CheckContext) -> Iterable[Finding]:
        for model in self.reads:
            if model is Interface:
                facts = ctx.derived("interfaces", lambda: ctx.facts.of(Interface))
            else:
                facts = ctx.facts.of(model)
            for f in facts:
                yield Finding(Status.PASS, f.record.subject(), self.meta.id, facts=(f,))


def _checks() -> list[Check]:
    return [
        Reads("X-A", [FactKind.INTERFACE], [Interface]),
        # reads VRFs and interfaces without declaring them: it still gets them, after their release
        Reads("X-B", [FactKind.MGMT_SERVICE], [MgmtService, Vrf, Interface]),
        Reads("X-C", [FactKind.VRF], [Vrf]),
        Reads("X-D", [FactKind.INTERFACE, FactKind.VRF], [Interface, Vrf]),
    ]


def _findings(ctx: CheckContext, checks: list[Check]) -> list[tuple[str, str, tuple[int, ...]]]:
    return [
        (v.meta.id, v.finding.subject, tuple(f.id for f in v.finding.facts)) for v in run_checks(ctx, checks)
    ]


def test_the_runner_releases_kinds_yet_gives_the_same_findings_in_id_order() -> None:
    intent = Intent.model_validate({})
    eager = _findings(CheckContext(intent=intent, facts=FactView(FACTS)), _checks())
    view, _ = _lazy()
    ctx = CheckContext(intent=intent, facts=view)
    assert _findings(ctx, list(reversed(_checks()))) == eager
    assert [check_id for check_id, _, _ in eager] == sorted(check_id for check_id, _, _ in eager)
    # X-B ran last and read VRFs and interfaces without declaring them, after their declared readers had
    # run and they had been let go: read again, then kept (another such reader would not be foreseen)
    assert view.reloads == {FactKind.VRF: 1, FactKind.INTERFACE: 1}
    assert view.held == {FactKind.VRF, FactKind.INTERFACE}
    assert list(ctx._derived) == ["interfaces"]  # dropped with the interfaces, built again by X-B


def test_a_derived_view_goes_with_the_kinds_it_was_built_from() -> None:
    view, loader = _lazy()
    ctx = CheckContext(intent=Intent.model_validate({}), facts=view)
    both = ctx.derived("both", lambda: ctx.derived("interfaces", lambda: view.of(Interface)) + view.of(Vrf))
    only_vrfs = ctx.derived("vrfs", lambda: view.of(Vrf))
    ctx.release([FactKind.INTERFACE])
    assert list(ctx._derived) == ["vrfs"]  # "both" rests on interfaces through the view it used
    assert ctx.derived("vrfs", list) is only_vrfs
    assert (
        ctx.derived("both", lambda: ctx.derived("interfaces", lambda: view.of(Interface)) + view.of(Vrf))
        == both
    )
    assert loader.reads.count(FactKind.INTERFACE) == 2


def test_the_runner_reads_each_declared_kind_once() -> None:
    view, loader = _lazy()
    checks: list[Check] = [c for c in _checks() if c.meta.id != "X-B"]
    run_checks(CheckContext(intent=Intent.model_validate({}), facts=view), checks)
    assert sorted(loader.reads) == sorted([FactKind.INTERFACE, FactKind.VRF])
    assert not view.reloads
