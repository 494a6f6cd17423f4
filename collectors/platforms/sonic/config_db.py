"""SONiC config_db JSON -> network facts (entry point "sonic.config-db").

The capture is `show runningconfiguration all` (nested layout) or a redis dump of CONFIG_DB (flat
"TABLE|key" layout); db.py reads both into the same tables. Each table family is read by its own
module; a value that cannot be read costs that entry (a Problem naming the line of its key), and an
unexpected failure costs that family, never the capture.
"""

from __future__ import annotations

from auditor.capture import RawCapture
from auditor.facts import FactRecord
from auditor.facts.network import Acl, AclBinding, Interface, MgmtService, QosInterface, Vlan
from auditor.normalize import RUNNING_CONFIG_COVERS, NormalizeResult
from collectors.parsing.live_common import context_of, decode_text, device_fact, finish, guard, load_json
from collectors.platforms.sonic.acl import read_acls, read_mgmt
from collectors.platforms.sonic.db import build_db
from collectors.platforms.sonic.interfaces import read_interfaces
from collectors.platforms.sonic.qos import read_qos
from collectors.platforms.sonic.routing import Routing, read_routing

COVERS = RUNNING_CONFIG_COVERS


def normalize_config_db(capture: RawCapture) -> NormalizeResult:
    """Facts, problems and coverage of one config_db capture. Never raises on bad content."""
    result = NormalizeResult()
    ctx = context_of(capture)
    doc = load_json(capture, ctx, "config_db")
    db = build_db(doc, ctx, decode_text(capture)) if doc is not None else None
    if db is None:
        return finish(result, ctx)  # nothing read, nothing covered: checks say NOT_ASSESSED
    if not db.tables:
        ctx.problem(1, "config_db holds no table")
        return finish(result, ctx)
    meta = db.table("DEVICE_METADATA").get("localhost", {})
    result.add(
        device_fact(
            capture,
            ctx,
            "sonic",
            hostname=str(meta.get("hostname") or "") or None,
            model=str(meta.get("hwsku") or meta.get("platform") or "") or None,
        )
    )
    pair: tuple[list[Interface], list[Vlan]] = guard(
        ctx, "interfaces", lambda: read_interfaces(ctx, db), (list[Interface](), list[Vlan]())
    )
    interfaces, vlans = pair
    routing = guard(ctx, "routing", lambda: read_routing(ctx, db, interfaces), Routing())
    acl_pair: tuple[list[Acl], list[AclBinding]] = guard(
        ctx, "ACLs", lambda: read_acls(ctx, db), (list[Acl](), list[AclBinding]())
    )
    acls, bindings = acl_pair
    services: list[MgmtService] = guard(ctx, "management services", lambda: read_mgmt(ctx, db, bindings), [])
    qos: list[QosInterface] = guard(ctx, "QoS", lambda: read_qos(ctx, db), [])
    facts: list[FactRecord] = [*interfaces, *routing.vrfs, *vlans, *routing.vnis, *routing.routes]
    facts += [*routing.neighbors, *acls, *bindings, *services, *qos]
    result.facts.extend(facts)
    result.covers = set(COVERS)
    return finish(result, ctx)
