"""Several captures of one device describe the same subject: checks see one record, the best one."""

from __future__ import annotations

from auditor.enums import FactKind
from auditor.facts import FactRecord, FlowConversation, Interface, QosInterface
from auditor.store.reader import StoredFact
from checks.base import FactView
from checks.reconcile import reconcile


def _f(i: int, record: FactRecord, fmt: str) -> StoredFact[FactRecord]:
    return StoredFact(i, record.kind, "leaf1", i, f"{i:064x}", record, fmt)


def test_running_config_wins_and_gaps_are_filled_from_napalm() -> None:
    from_napalm = Interface(device="leaf1", name="Ethernet1", type="ethernet", mtu=9000, speed_mbps=400000)
    from_config = Interface(device="leaf1", name="Ethernet1", type="ethernet", mtu=9214, vrf="RDMA-A")
    merged = reconcile([_f(1, from_napalm, "napalm.getters"), _f(2, from_config, "eos.running-config")])
    assert len(merged) == 1
    rec = merged[0].record
    assert isinstance(rec, Interface)
    assert (rec.mtu, rec.vrf, rec.speed_mbps) == (9214, "RDMA-A", 400000)  # config wins, speed filled in
    assert merged[0].id == 2
    assert merged[0].also_from == ((1, f"{1:064x}"),)  # the finding cites both captures


def test_partial_show_record_does_not_shadow_the_config() -> None:
    pfc_only = QosInterface(
        device="leaf1", interface="Ethernet3", pfc_enabled=True, pfc_no_drop_priorities=[3]
    )
    full = QosInterface(
        device="leaf1",
        interface="Ethernet3",
        pfc_enabled=True,
        pfc_no_drop_priorities=[3],
        ecn_queues=[3],
        trust="dscp",
    )
    view = FactView([_f(1, pfc_only, "eos.show-json"), _f(2, full, "eos.running-config")])
    [only] = view.of(QosInterface)
    assert only.record.ecn_queues == [3] and only.record.trust == "dscp"


def test_flow_conversations_are_never_merged() -> None:
    conv = FlowConversation(
        source="a",
        src_addr="10.0.0.1",
        dst_addr="10.0.0.2",
        dst_port=443,
        protocol=6,
        action="ACCEPT",
        packets=1,
        bytes=10,
        records=1,
    )
    facts = [_f(1, conv, "aws.flowlog"), _f(2, conv, "aws.flowlog")]
    assert len(reconcile(facts)) == 2
    assert all(f.kind == FactKind.FLOW_CONVERSATION for f in reconcile(facts))
