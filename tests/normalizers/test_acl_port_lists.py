"""ACL port matches with lists of named and numeric ports, on EOS, IOS and NX-OS.

`eq isakmp non500-isakmp` is a set of two ports; reading it as `eq isakmp` misses traffic on 4500.
Each case parses a real config line through the platform's ACL reader and compares the port set the
lateral checks derive from the fact (so parser and consumer are tested together).
"""

from __future__ import annotations

import pytest

from auditor.facts.network import Acl, AclEntry
from checks.lateral.conns import PORT_MAX, PORT_MIN
from checks.lateral.device_acl import ports
from checks.lateral.intervals import IntervalSet
from checks.tier1._acl import ports_match
from collectors.parsing.acl import parse_acls as read_eos_acls
from collectors.parsing.config_tree import Context, parse_tree
from collectors.platforms.ios.mgmt import read_acls as read_ios_acls
from collectors.platforms.nxos.acl import read_acls as read_nxos_acls
from collectors.platforms.nxos.tree import Ctx
from collectors.platforms.nxos.tree import parse_tree as nxos_tree


def _eos(line: str) -> AclEntry:
    acls = read_eos_acls(Context(device="d", origin="t"), parse_tree(["ip access-list A", f"   {line}"]))
    return _only(acls)


def _ios(line: str) -> AclEntry:
    acls = read_ios_acls(
        Context(device="d", origin="t"), parse_tree(["ip access-list extended A", f" {line}"])
    )
    return _only(acls)


def _nxos(line: str) -> AclEntry:
    ctx = Ctx(origin="t", device="d")
    acls = read_nxos_acls(nxos_tree(["ip access-list A", f"  {line}"]), ctx)
    assert not ctx.problems
    return _only(acls)


def _only(acls: list[Acl]) -> AclEntry:
    assert len(acls) == 1 and len(acls[0].entries) == 1
    return acls[0].entries[0]


def _set(*values: int) -> IntervalSet:
    return IntervalSet.from_spans((v, v) for v in values)


_ALL = IntervalSet.of((PORT_MIN, PORT_MAX))

CASES = [
    ("eos", "10 permit udp any any eq isakmp non500-isakmp", None, _set(500, 4500)),
    ("eos", "permit tcp any any eq www https log", None, _set(80, 443)),
    ("eos", "permit tcp any eq bgp host 10.0.0.1 eq 22 23", _set(179), _set(22, 23)),
    ("eos", "permit tcp any any eq 80 https 8080", None, _set(80, 443, 8080)),
    ("eos", "permit udp any any neq snmp snmptrap", None, _ALL.subtract(_set(161, 162))),
    ("eos", "permit tcp any any range 1000 2000", None, IntervalSet.of((1000, 2000))),
    ("eos", "permit tcp any any gt 1023", None, IntervalSet.of((1024, PORT_MAX))),
    ("eos", "permit udp any any lt ntp", None, IntervalSet.of((PORT_MIN, 122))),
    ("ios", "permit udp any any eq isakmp non500-isakmp", None, _set(500, 4500)),
    ("ios", "permit tcp any any eq www https established", None, _set(80, 443)),
    ("ios", "permit tcp 10.0.0.0 0.0.0.255 eq telnet ssh any", _set(22, 23), _ALL),
    ("ios", "permit udp any any eq tftp bootps bootpc", None, _set(67, 68, 69)),
    ("ios", "permit tcp any any range ftp-data ftp", None, IntervalSet.of((20, 21))),
    ("ios", "permit tcp any host 10.1.1.1 eq tacacs ldap", None, _set(49, 389)),
    ("ios", "permit udp any any eq domain syslog ntp", None, _set(53, 123, 514)),
    ("nxos", "10 permit udp any any eq isakmp", None, _set(500)),
    ("nxos", "20 permit tcp any any eq www", None, _set(80)),
    ("nxos", "30 permit tcp any any range 1000 2000", None, IntervalSet.of((1000, 2000))),
    ("nxos", "40 permit tcp any eq bgp any neq 22", _set(179), _ALL.subtract(_set(22))),
    ("nxos", "50 permit tcp any any gt 1023", None, IntervalSet.of((1024, PORT_MAX))),
]

_READERS = {"eos": _eos, "ios": _ios, "nxos": _nxos}


@pytest.mark.parametrize(("platform", "line", "source", "destination"), CASES)
def test_port_match_reads_every_port(
    platform: str, line: str, source: IntervalSet | None, destination: IntervalSet
) -> None:
    entry = _READERS[platform](line)
    assert ports(entry.source_ports) == (source if source is not None else _ALL)
    assert ports(entry.destination_ports) == destination


@pytest.mark.parametrize("platform", ["eos", "ios"])
def test_second_named_port_is_matched_by_tier1(platform: str) -> None:
    entry = _READERS[platform]("permit tcp any any eq www https")
    assert ports_match(entry.destination_ports, 443, sure=True)
    assert ports_match(entry.destination_ports, 80, sure=True)
    assert not ports_match(entry.destination_ports, 22, sure=True)


def test_port_list_stops_at_the_destination_address() -> None:
    entry = _eos("permit tcp any eq www https host 10.0.0.9 eq ssh")
    assert entry.source_ports == "eq www https"
    assert entry.destination == "host 10.0.0.9"
    assert entry.destination_ports == "eq ssh"


def test_unknown_port_name_in_a_list_is_taken_as_any_port() -> None:
    """A name the checks do not know may be any port: the lateral reading widens, never narrows."""
    entry = _ios("permit tcp any any eq www 8080")
    assert ports(entry.destination_ports) == _set(80, 8080)
    assert ports("eq www frobnicate") == _ALL
