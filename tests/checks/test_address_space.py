"""AddressSpace: the one definition of public/internal/special space, and the intent that overrides it."""

from __future__ import annotations

import ipaddress
import re

import pytest

from auditor.config.loader import parse_config
from auditor.errors import ConfigError
from checks.address_space import AddressSpace, Space
from checks.netutil import SPECIAL_NETWORKS, is_public

BUILTIN = AddressSpace()


@pytest.mark.parametrize(
    ("prefix", "spaces"),
    [
        ("10.1.0.0/16", {Space.INTERNAL}),
        ("172.31.255.1", {Space.INTERNAL}),
        ("192.168.4.0/24", {Space.INTERNAL}),
        ("100.64.1.0/24", {Space.INTERNAL}),
        ("fd12:3456::/48", {Space.INTERNAL}),
        ("8.8.8.8", {Space.PUBLIC}),
        ("2600::/16", {Space.PUBLIC}),
        ("11.0.0.0/8", {Space.PUBLIC}),
        ("192.0.2.0/24", {Space.SPECIAL}),
        ("127.0.0.1", {Space.SPECIAL}),
        ("fe80::1", {Space.SPECIAL}),
        ("169.254.169.254", {Space.SPECIAL}),
        ("10.0.0.0/7", {Space.INTERNAL, Space.PUBLIC}),  # 10/8 and 11/8
        ("0.0.0.0/0", {Space.INTERNAL, Space.PUBLIC, Space.SPECIAL}),
        ("not-an-address", set()),
    ],
)
def test_builtin_spaces(prefix: str, spaces: set[Space]) -> None:
    assert BUILTIN.spaces(prefix) == spaces


def test_builtin_public_agrees_with_the_legacy_helper_on_route_prefixes() -> None:
    for text in ["8.0.0.0/7", "10.0.0.0/8", "192.0.2.0/24", "100.64.0.0/10", "203.0.113.0/25", "1.1.1.0/24"]:
        assert BUILTIN.is_public(text) == is_public(text), text
    assert all(not BUILTIN.is_public(n) for n in SPECIAL_NETWORKS)


def test_declared_ranges_override_builtin_and_the_more_specific_wins() -> None:
    space = AddressSpace(
        internal=(ipaddress.ip_network("11.0.0.0/8"),),
        external=tuple(ipaddress.ip_network(n) for n in ("11.5.0.0/16", "192.0.2.0/24", "10.99.0.0/16")),
    )
    assert space.is_internal("11.1.0.0/16")
    assert space.is_public("11.5.1.0/24") and not space.is_internal("11.5.1.0/24")
    assert space.is_public("192.0.2.10")  # a documentation range standing in for the internet
    assert space.is_public("10.99.3.4")  # external inside RFC 1918
    assert space.is_public("10.0.0.0/8")  # a route covering the declared external block reaches it
    assert not space.is_public("10.1.2.3/8", host=True)  # an interface address is one host
    assert space.is_public("10.99.2.3/8", host=True)
    assert not space.is_public("198.51.100.7")  # still special: only declared ranges change


def test_public_networks_cover_exactly_the_public_space() -> None:
    space = AddressSpace(external=(ipaddress.ip_network("192.0.2.0/24"),))
    v4 = space.public_networks(4)
    assert ipaddress.ip_network("192.0.2.0/24") in v4
    assert not any(n.overlaps(ipaddress.ip_network("10.0.0.0/8")) for n in v4)
    assert any(ipaddress.ip_address("8.8.8.8") in n for n in v4)
    assert sum(n.num_addresses for n in v4) < 2**32
    assert all(n.version == 6 for n in space.public_networks(6))


def test_from_intent_reads_the_addressing_section() -> None:
    config = parse_config(
        "intent:\n  addressing:\n    internal: [11.0.0.0/8]\n    external: [203.0.113.0/24]\n"
    )
    space = AddressSpace.from_intent(config.intent)
    assert space.is_internal("11.2.3.4") and space.is_public("203.0.113.9")


@pytest.mark.parametrize(
    ("text", "where"),
    [
        (
            "intent:\n  addressing:\n    internal: [11.0.0.0/8]\n    external: [11.0.0.0/8]\n",
            "4: intent.addressing.external",
        ),
        ("intent:\n  addressing:\n    external: [192.0.2.0/24, bogus]\n", "3: intent.addressing.external[1]"),
    ],
)
def test_addressing_errors_name_the_line(text: str, where: str) -> None:
    with pytest.raises(ConfigError, match=re.escape(where)):
        parse_config(text)
