"""NVUE QoS (Cumulus Linux 5.x) -> QosInterface per switch port: PFC, ECN and trust.

Where each setting comes from, for a port (first that applies):
1. the profile the port names: interface/NAME/qos/{pfc,congestion-control,mapping}/profile P, read from
   qos/pfc/P, qos/congestion-control/P, qos/mapping/P;
2. the global profile `default-global` of the same branch, which every port without its own uses;
3. RoCE (`qos roce enable on`, mode lossless by default): NVIDIA's RoCE defaults, i.e. PFC on switch
   priority 3 (lossless mode only), ECN on traffic class 3 and trust l3 (DSCP);
4. nothing configured: the setting is not reported (the checks say "not configured"), except trust,
   which is l2 (802.1p) when the port has other QoS settings (NVUE's default mapping profile).
Profiles: pfc/P/switch-priority/{N: {}} are the no-drop priorities, PFC is on unless both rx and tx are
`disable`; congestion-control/P/traffic-class/{N: {ecn: enable|disable, red: ...}} marks ECN on the
egress queue of traffic class N when ecn is enable (NVUE's default for a configured class); mapping/P/trust
l3 is DSCP, l2 is 802.1p (cos), both trusts DSCP for IP packets, port trusts nothing. A profile a port
names that is not defined is a problem, and that setting is not reported for the port.
"""

from __future__ import annotations

from dataclasses import dataclass

from auditor.facts.network import Interface, QosInterface
from collectors.parsing.config_tree import Context
from collectors.parsing.live_common import as_int

Tree = dict[str, object]
ROCE_PRIORITY = 3
_TRUST = {"l3": "dscp", "both": "dscp", "l2": "cos", "port": "untrusted"}


def _d(value: object) -> Tree:
    return value if isinstance(value, dict) else {}


@dataclass(frozen=True)
class _Setting:
    """One port's value of one QoS branch, and where it came from (None: nothing configured)."""

    pfc: list[int] | None = None
    pfc_on: bool | None = None
    ecn: list[int] | None = None
    trust: str | None = None


def _ids(ctx: Context, where: str, keys: object) -> list[int]:
    out: list[int] = []
    for key in _d(keys):
        value = as_int(key)
        if value is None or not 0 <= value <= 7:
            ctx.problem(None, f"{where}: {key!r} is not a priority/traffic class 0-7; skipped")
            continue
        out.append(value)
    return sorted(set(out))


def _pfc(ctx: Context, name: str, body: Tree) -> _Setting:
    off = str(body.get("rx", "enable")) == "disable" and str(body.get("tx", "enable")) == "disable"
    priorities = _ids(ctx, f"qos pfc {name} switch-priority", body.get("switch-priority"))
    return _Setting(pfc=priorities, pfc_on=bool(priorities) and not off)


def _ecn(ctx: Context, name: str, body: Tree) -> _Setting:
    classes = _d(body.get("traffic-class"))
    marked = {k: v for k, v in classes.items() if str(_d(v).get("ecn", "enable")) == "enable"}
    return _Setting(ecn=_ids(ctx, f"qos congestion-control {name} traffic-class", marked))


def _mapping(ctx: Context, name: str, body: Tree) -> _Setting:
    trust = body.get("trust")
    if trust is None:
        return _Setting()
    if str(trust) not in _TRUST:
        ctx.problem(None, f"qos mapping {name}: unknown trust {trust!r}; not reported")
        return _Setting()
    return _Setting(trust=_TRUST[str(trust)])


_READERS = {"pfc": _pfc, "congestion-control": _ecn, "mapping": _mapping}


def _roce(qos: Tree) -> dict[str, _Setting]:
    roce = _d(qos.get("roce"))
    if str(roce.get("enable", "off")) != "on":
        return {}
    lossless = str(roce.get("mode", "lossless")) == "lossless"
    return {
        "pfc": _Setting(pfc=[ROCE_PRIORITY] if lossless else [], pfc_on=lossless),
        "congestion-control": _Setting(ecn=[ROCE_PRIORITY]),
        "mapping": _Setting(trust="dscp"),
    }


def named_mapping(port_qos: Tree) -> bool:
    return bool(_d(port_qos.get("mapping")).get("profile"))


def read_qos(ctx: Context, tree: Tree, interfaces: list[Interface]) -> list[QosInterface]:
    qos = _d(tree.get("qos"))
    roce = _roce(qos)
    profiles = {branch: _d(qos.get(branch)) for branch in _READERS}
    if not roce and not any(profiles.values()):
        return []
    raw_ports = _d(tree.get("interface"))
    out: list[QosInterface] = []
    for intf in interfaces:
        if intf.type != "ethernet":
            continue
        port_qos = _d(_d(raw_ports.get(intf.name)).get("qos"))
        got: dict[str, _Setting] = {}
        for branch, read in _READERS.items():
            named = _d(port_qos.get(branch)).get("profile")
            name = str(named) if named else "default-global"
            if name in profiles[branch]:
                got[branch] = read(ctx, name, _d(profiles[branch][name]))
            elif named:
                ctx.problem(None, f"interface {intf.name}: qos {branch} profile {name!r} is not defined")
                got[branch] = _Setting()
            else:
                got[branch] = roce.get(branch, _Setting())
        if not any(s != _Setting() for s in got.values()):
            continue
        if got["mapping"] == _Setting() and not named_mapping(port_qos):
            got["mapping"] = _Setting(trust=_TRUST["l2"])  # NVUE's default-global trusts 802.1p
        pfc, ecn, mapping = got["pfc"], got["congestion-control"], got["mapping"]
        out.append(
            QosInterface(
                device=ctx.device,
                interface=intf.name,
                pfc_enabled=pfc.pfc_on,
                pfc_no_drop_priorities=pfc.pfc or [],
                ecn_queues=ecn.ecn or [],
                trust=mapping.trust,
            )
        )
    return out
