"""Cisco NX-OS `show ... | json` captures -> facts (entry point "nxos.show-json").

One capture per command; meta["command"] says which (READERS). Field-level notes: show_readers.py.
"""

from __future__ import annotations

from typing import Any

from auditor.capture import RawCapture
from auditor.enums import FactKind
from auditor.normalize import NormalizeResult
from collectors.parsing.config_tree import Context
from collectors.parsing.live_common import load_json
from collectors.parsing.show_common import CommandReader, dispatch
from collectors.platforms.nxos import show_readers as r
from collectors.platforms.nxos.mgmt_state import read_features

K = FactKind
READERS = (
    # Stored as evidence, read by nothing: no public schema of their JSON; the running config gives
    # the ACL bindings and the queuing/ECN policy. (Listed first: "summary" is not an ACL name.)
    CommandReader(r"show ip access-lists? summary", None),
    CommandReader(r"show queuing interface( .*)?", None),
    CommandReader(r"show ip route( vrf \S+)?( .*)?", r.read_routes, frozenset({K.ROUTE})),
    CommandReader(r"show ipv6 route( vrf \S+)?( .*)?", r.read_routes, frozenset()),
    CommandReader(r"show ip access-lists?( \S+)?", r.read_acls, frozenset({K.ACL})),
    CommandReader(r"show access-lists( \S+)?", r.read_acls, frozenset({K.ACL})),
    CommandReader(r"show nve vni( .*)?", r.read_nve_vni, frozenset({K.VXLAN_VNI})),
    CommandReader(r"show interface priority-flow-control", r.read_pfc, frozenset({K.QOS_INTERFACE})),
    CommandReader(r"show feature", read_features, frozenset({K.MGMT_SERVICE})),
)


def _load(capture: RawCapture, ctx: Context) -> Any | None:
    return load_json(capture, ctx, f"output of {capture.meta.get('command')!r}")


def normalize_show_json(capture: RawCapture) -> NormalizeResult:
    """One NX-OS show command's JSON output. Never raises on bad content."""
    return dispatch(capture, READERS, _load)
