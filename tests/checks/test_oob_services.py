"""Declared OOB services: what they authorise (requests and replies), as every check reads them."""

from __future__ import annotations

from auditor.config.loader import parse_config
from checks.oob_services import OobServices, protocol_of

CONFIG = """
intent:
  tiers:
    oob:
      cidrs: [10.250.0.0/16]
      services:
        - {name: snmp, sources: [10.20.9.0/28], destinations: [10.250.0.0/16], protocol: udp, ports: [161]}
        - {name: ntp, sources: [10.250.0.0/16], destinations: [10.20.0.123/32], protocol: udp, ports: [123]}
        - {name: icmp-mon, sources: [10.20.9.0/28], destinations: [10.250.0.0/16], protocol: icmp}
"""


def _services() -> OobServices:
    return OobServices.of(parse_config(CONFIG).intent)


def test_protocol_names_and_numbers() -> None:
    assert protocol_of(6) == protocol_of("TCP") == "tcp"
    assert protocol_of("17") == "udp"
    assert protocol_of(58) == protocol_of(1) == "icmp"
    assert protocol_of(None) is None and protocol_of("-1") is None and protocol_of("ip") is None


def test_requests_need_source_destination_protocol_and_port() -> None:
    s = _services()
    assert s.admitting("10.20.9.3", "10.250.1.1", 17, 161) is not None
    assert s.admitting("10.20.9.3/32", "10.250.1.0/24", "udp", 161) is not None
    assert s.admitting("10.20.9.0/24", "10.250.1.1", 17, 161) is None  # wider than the pollers
    assert s.admitting("10.20.9.3", "10.250.1.1", 6, 161) is None  # wrong protocol
    assert s.admitting("10.20.9.3", "10.250.1.1", 17, 623) is None  # wrong port
    assert s.admitting("10.20.9.3", "10.251.1.1", 17, 161) is None  # outside the destinations
    assert s.admitting("10.20.9.3", "10.250.1.1", None, None) is None  # "every protocol" is more
    assert s.admitting("10.20.9.3", "10.250.1.1", 1, None) is not None  # the ICMP service


def test_replies_go_back_to_the_sources_on_ephemeral_or_own_ports() -> None:
    s = _services()
    assert s.answering("10.20.0.123", "10.250.3.3", 17, 123) is not None  # NTP 123 -> 123
    assert s.answering("10.20.0.123", "10.250.3.3", 17, 40000) is not None
    assert s.answering("10.20.0.123", "10.250.3.3", 17, 623) is None  # IPMI is no NTP reply
    assert s.answering("10.20.0.123", "10.250.3.3", 6, 40000) is None
    assert s.answering("10.20.0.124", "10.250.3.3", 17, 40000) is None
    assert s.covering("10.20.9.3", "10.250.1.1", 17, 161) is not None


def test_a_route_is_needed_only_inside_the_destinations_where_the_sources_live() -> None:
    s = _services()
    assert s.needs_route("10.250.10.0/24", ["10.20.9.1/28"]) is not None  # the pollers' VRF
    assert s.needs_route("10.250.10.0/24", ["10.20.10.1/24"]) is None  # no poller lives there
    assert s.needs_route("10.0.0.0/8", ["10.20.9.1/28"]) is None  # wider than the destinations
