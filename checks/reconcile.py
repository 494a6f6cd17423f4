"""One record per subject when several captures describe the same thing.

A live device answers several ways: its running config, NAPALM getters and show commands can each
yield the same VRF, VLAN, interface or QoS record. Checks must see one record per subject, or a
partial record (a PFC-only QoS reading whose empty ECN list means "not shown") would be judged as if
it were the whole truth. The most authoritative source wins; values it lacks (None) are filled from
the others, and the finding then cites those captures too. For the management plane, what the device
reports running (MgmtService.source "operational") wins over what its configuration implies.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from auditor.enums import FactKind
from auditor.facts import FactRecord
from auditor.store.reader import StoredFact

# Records that add up rather than repeat: never merged.
ADDITIVE_KINDS = frozenset({FactKind.COVERAGE, FactKind.FLOW_CONVERSATION, FactKind.FLOW_LOG_STATS})
WHOLE_CONFIG_FORMATS = frozenset({"cumulus.nvue-json", "sonic.config-db"})


def source_rank(capture_format: str) -> int:
    """Lower is more authoritative: the whole configuration, then NAPALM's models, then show commands."""
    if capture_format.endswith(".running-config") or capture_format in WHOLE_CONFIG_FORMATS:
        return 0
    if capture_format.startswith("napalm."):
        return 1
    if ".show-" in capture_format:
        return 2
    return 3


def _operational(f: StoredFact[FactRecord]) -> bool:
    """A management-plane reading of what the device runs, which beats any inference from config."""
    return f.kind == FactKind.MGMT_SERVICE and getattr(f.record, "source", None) == "operational"


def _superseded(facts: Sequence[StoredFact[FactRecord]]) -> dict[tuple[str, str], set[str]]:
    """(target, service) whose operational reading holds in every VRF (MgmtService.all_vrfs) -> the
    VRFs it names (a config record of one of those is merged with it, e.g. for its ACL)."""
    out: dict[tuple[str, str], set[str]] = {}
    for f in facts:
        if _operational(f) and getattr(f.record, "all_vrfs", False):
            out.setdefault((f.target, getattr(f.record, "service", "")), set()).add(
                getattr(f.record, "vrf", "")
            )
    return out


def reconcile(facts: Sequence[StoredFact[FactRecord]]) -> list[StoredFact[FactRecord]]:
    groups: dict[tuple[FactKind, str, str], list[StoredFact[FactRecord]]] = {}
    order: list[StoredFact[FactRecord] | tuple[FactKind, str, str]] = []
    everywhere = _superseded(facts)
    for f in facts:
        if everywhere and f.kind == FactKind.MGMT_SERVICE and not _operational(f):
            vrfs = everywhere.get((f.target, getattr(f.record, "service", "")))
            if vrfs is not None and getattr(f.record, "vrf", "") not in vrfs:
                continue  # the device reported this service's state in every VRF
        if f.kind in ADDITIVE_KINDS:
            order.append(f)
            continue
        key = (f.kind, f.target, f.record.subject())
        if key not in groups:
            groups[key] = []
            order.append(key)
        groups[key].append(f)
    out: list[StoredFact[FactRecord]] = []
    for item in order:
        if isinstance(item, StoredFact):
            out.append(item)
        else:
            out.append(_merge(groups[item]))
    return out


def _merge(group: list[StoredFact[FactRecord]]) -> StoredFact[FactRecord]:
    if len(group) == 1:
        return group[0]
    # stable: first seen wins ties; an operational management-plane reading beats the config
    ranked = sorted(group, key=lambda f: (not _operational(f), source_rank(f.capture_format)))
    best = ranked[0]
    values = best.record.model_dump()
    donors: list[tuple[int, str]] = []
    for other in ranked[1:]:
        filled = False
        for name, value in other.record.model_dump().items():
            if values.get(name) is None and value is not None:
                values[name] = value
                filled = True
        if filled and (other.capture_seq, other.capture_sha256) != (best.capture_seq, best.capture_sha256):
            donors.append((other.capture_seq, other.capture_sha256))
    if not donors:
        return best
    record = type(best.record).model_validate(values)
    return dataclasses.replace(best, record=record, also_from=tuple(donors))
