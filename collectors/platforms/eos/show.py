"""Arista EOS `show ... | json` captures -> facts (entry point "eos.show-json").

One capture per command; meta["command"] says which, and the reader for it is picked here. What each
command yields and covers is listed in READERS; the field-level notes are in show_readers.
"""

from __future__ import annotations

from typing import Any

from auditor.capture import RawCapture
from auditor.enums import FactKind
from auditor.normalize import NormalizeResult
from collectors.parsing.config_tree import Context
from collectors.parsing.live_common import load_json
from collectors.parsing.show_common import CommandReader, dispatch
from collectors.platforms.eos import show_readers as r

K = FactKind
READERS = (
    CommandReader(r"show ip route( vrf \S+)?( .*)?", r.read_routes, frozenset({K.ROUTE})),
    CommandReader(r"show ipv6 route( vrf \S+)?( .*)?", r.read_routes, frozenset()),
    CommandReader(r"show ip access-lists( \S+)? summary", r.read_acl_summary, frozenset({K.ACL_BINDING})),
    CommandReader(r"show ipv6 access-lists( \S+)? summary", r.read_acl_summary, frozenset()),
    CommandReader(r"show ip access-lists( \S+)?", r.read_acls, frozenset({K.ACL})),
    CommandReader(r"show ipv6 access-lists( \S+)?", r.read_ipv6_acls, frozenset()),
    CommandReader(r"show vxlan vni", r.read_vxlan_vni, frozenset({K.VXLAN_VNI})),
    CommandReader(r"show interfaces? vxlan ?\d+", r.read_vxlan_interface, frozenset({K.VXLAN_VNI})),
    CommandReader(r"show priority-flow-control( status)?", r.read_pfc, frozenset({K.QOS_INTERFACE})),
    # Stored as evidence; their structured output is not documented publicly, so nothing reads them:
    # trust and ECN come from the running config.
    CommandReader(r"show qos interfaces( .*)?", None),
    CommandReader(r"show qos ecn( .*)?", None),
)


def _load(capture: RawCapture, ctx: Context) -> Any | None:
    return load_json(capture, ctx, f"output of {capture.meta.get('command')!r}")


def normalize_show_json(capture: RawCapture) -> NormalizeResult:
    """One EOS show command's JSON output. Never raises on bad content."""
    return dispatch(capture, READERS, _load)
