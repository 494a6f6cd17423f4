"""SONiC PORT_QOS_MAP, PFC_WD, QUEUE and WRED_PROFILE -> QosInterface per port.

- PORT_QOS_MAP|PORT "pfc_enable" ("3,4") lists the lossless (no-drop) priorities; empty or absent means
  PFC is off on the port. "pfcwd_sw_enable", or a PFC_WD|PORT entry, turns the PFC watchdog on.
- ECN: QUEUE|PORT|Q (Q a queue or a range "3-4") names a WRED_PROFILE; a profile whose "ecn" is not
  "ecn_none" marks ECN on those queues.
- Trust: a dscp_to_tc_map on the port (or on PORT_QOS_MAP|global, newer images) means DSCP is trusted;
  else a dot1p_to_tc_map means CoS; else nothing is said (None).
- Older images key these tables by comma-joined port lists ("Ethernet0,Ethernet4|3-4"); both are read.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from auditor.facts.network import QosInterface
from collectors.parsing.config_tree import Context
from collectors.platforms.sonic.db import Db, Row, as_list, deref

_NO_ECN = ("", "ecn_none")


@dataclass
class _Qos:
    row: Row | None = None
    ecn: set[int] = field(default_factory=set)


def _ids(ctx: Context, db: Db, table: str, key: str, text: str) -> list[int]:
    out: list[int] = []
    for part in text.split(","):
        lo, _, hi = part.strip().partition("-")
        if not lo.isdigit() or (hi and not hi.isdigit()):
            ctx.problem(db.line_of(table, key), f"{table}|{key}: cannot read {text!r} as priorities/queues")
            return []
        out.extend(range(int(lo), int(hi or lo) + 1))
    return out


def read_qos(ctx: Context, db: Db) -> list[QosInterface]:
    ports: dict[str, _Qos] = {}
    maps = db.table("PORT_QOS_MAP")
    for key, row in maps.items():
        if key == "global":
            continue
        for port in key.split(","):
            ports.setdefault(port.strip(), _Qos()).row = row
    wred = db.table("WRED_PROFILE")
    for key, row in db.table("QUEUE").items():
        port_list, _, queues = key.rpartition("|")
        profile = deref(row.get("wred_profile"))
        if not profile or not port_list:
            continue
        if str(wred.get(profile, {}).get("ecn", "")) in _NO_ECN:
            continue
        for port in port_list.split(","):
            ports.setdefault(port.strip(), _Qos()).ecn.update(_ids(ctx, db, "QUEUE", key, queues))
    watchdog = {p for key in db.table("PFC_WD") if key != "GLOBAL" for p in key.split(",")}
    global_row = maps.get("global", {})
    out: list[QosInterface] = []
    for name, q in ports.items():
        row = q.row or {}
        text = ",".join(as_list(row.get("pfc_enable")))
        priorities = _ids(ctx, db, "PORT_QOS_MAP", name, text) if text else []
        trust = None
        if row.get("dscp_to_tc_map") or global_row.get("dscp_to_tc_map"):
            trust = "dscp"
        elif row.get("dot1p_to_tc_map") or global_row.get("dot1p_to_tc_map"):
            trust = "cos"
        out.append(
            QosInterface(
                device=ctx.device,
                interface=name,
                pfc_enabled=bool(priorities) if q.row is not None else None,
                pfc_no_drop_priorities=sorted(set(priorities)),
                pfc_watchdog=(name in watchdog or bool(as_list(row.get("pfcwd_sw_enable"))))
                if q.row is not None
                else None,
                ecn_queues=sorted(q.ecn),
                trust=trust,
            )
        )
    return out
