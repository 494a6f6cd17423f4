"""AddressSpace: the one definition of public/internal/special space, and the intent that overrides it."""

from __future__ import annotations

import ipaddress
import random
import re

import pytest

from auditor.config.loader import parse_config
from auditor.errors import ConfigError
from checks.address_space import BUILTIN_INTERNAL, BUILTIN_SPECIAL, AddressSpace, Space
from checks.netutil import network

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


def _naive_public(prefix: str, space: AddressSpace) -> bool:
    """Brute force: some address of `prefix` lies outside every non-public range."""
    net = network(prefix)
    if net is None:
        return False
    rest = [net]
    for blocked in (*BUILTIN_INTERNAL, *BUILTIN_SPECIAL):
        nxt = []
        for piece in rest:
            if piece.version != blocked.version or not piece.overlaps(blocked):
                nxt.append(piece)
            elif not piece.subnet_of(blocked):  # type: ignore[arg-type]
                nxt.extend(piece.address_exclude(blocked))  # type: ignore[arg-type]
        rest = nxt
    return bool(rest)


def test_builtin_public_agrees_with_brute_force() -> None:
    rng = random.Random(11)
    for _ in range(400):
        if rng.random() < 0.2:
            text = f"{rng.choice(['fd00', 'fe80', '2001:db8', '2600', 'ff02'])}::/{rng.randrange(1, 65)}"
        else:
            first = rng.choice([0, 8, 10, 11, 100, 127, 169, 172, 192, 198, 203, 224, 240])
            text = f"{first}.{rng.randrange(256)}.{rng.randrange(256)}.0/{rng.randrange(1, 33)}"
        assert BUILTIN.is_public(text) == _naive_public(text, BUILTIN), text
    assert not BUILTIN.is_public("224.0.0.0/3")  # multicast and reserved together: still not public


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
