"""netutil compares integer spans and caches parsing; it must agree with the ipaddress methods."""

from __future__ import annotations

import ipaddress
import random

from checks.netutil import Network, address, inside, network, overlapping, span


def _random_prefix(rng: random.Random) -> str:
    if rng.random() < 0.25:
        return f"{rng.choice(['fd00', 'fe80', '2001:db8', '2600'])}::{rng.randrange(256):x}/{rng.randrange(0, 129)}"
    if rng.random() < 0.03:
        return rng.choice(["nonsense", "10.0.0.256/8", "", "10.0.0.0/33"])
    octets = [rng.choice([10, 172, 192, 100, 8, 0, 224, 203]), rng.randrange(256), rng.randrange(4), 0]
    return f"{'.'.join(map(str, octets))}/{rng.randrange(0, 33)}"


def _naive_inside(prefix: str, networks: list[Network]) -> Network | None:
    net = network(prefix)
    if net is None:
        return None
    return next((c for c in networks if net.version == c.version and net.subnet_of(c)), None)  # type: ignore[arg-type]


def _naive_overlapping(prefix: str, networks: list[Network]) -> Network | None:
    net = network(prefix)
    if net is None:
        return None
    return next((c for c in networks if net.version == c.version and net.overlaps(c)), None)


def test_span_comparisons_agree_with_ipaddress() -> None:
    rng = random.Random(7)
    for _ in range(3000):
        prefix = _random_prefix(rng)
        nets = [n for n in (network(_random_prefix(rng)) for _ in range(rng.randrange(4))) if n is not None]
        assert inside(prefix, nets) == _naive_inside(prefix, nets)
        assert overlapping(prefix, nets) == _naive_overlapping(prefix, nets)


def test_span() -> None:
    assert span(ipaddress.ip_network("10.0.0.0/31")) == (167772160, 167772161)
    assert span(ipaddress.ip_network("::/0")) == (0, 2**128 - 1)


def test_cached_parse() -> None:
    assert network("10.0.0.1/31") == ipaddress.ip_network("10.0.0.0/31")
    assert network("10.0.0.1/31") is network("10.0.0.1/31")
    assert network("not an address") is None


def _ipaddress_network(text: str) -> Network | None:
    try:
        return ipaddress.ip_network(text, strict=False)
    except ValueError:
        return None


EDGE = [
    "0.0.0.0/0",
    "0.0.0.0",
    "255.255.255.255/32",
    "10.0.0.1/31",
    "10.0.0.1",
    "10.0.0.1/08",
    "10.0.0.1/8",
    "010.0.0.1/8",
    "10.00.0.1",
    "256.0.0.1/8",
    "10.0.0.1/33",
    "10.0.0.1/",
    "10.0.0/8",
    "10.0.0.1/8 ",
    " 10.0.0.1",
    "10.0.0.1/255.0.0.0",
    "10.0.0.1/0.255.255.255",
    "1.2.3.4/+8",
    "\u0661.2.3.4",  # an Arabic-Indic digit: isdigit() but not ASCII
    "10.0.0.1\n",
    "fd00::1/64",
    "::/0",
    "::ffff:10.0.0.1",
    "",
    "/8",
    "1.2.3.4/123",
]


def test_fast_ipv4_reading_agrees_with_ipaddress() -> None:
    rng = random.Random(11)
    texts = [*EDGE]
    for _ in range(3000):
        octets = [
            str(rng.choice([0, 1, 9, 10, 99, 100, 199, 255, 256, 300, rng.randrange(256)])) for _ in range(4)
        ]
        if rng.random() < 0.1:
            octets[rng.randrange(4)] = "0" + octets[0]
        tail = rng.choice(["", f"/{rng.randrange(0, 40)}", f"/0{rng.randrange(10)}"])
        texts.append(".".join(octets) + tail)
    for text in texts:
        got, want = network(text), _ipaddress_network(text)
        assert got == want and str(got) == str(want), text
        assert type(got) is type(want), text
        assert address(text) == _ipaddress_address(text), text


def _ipaddress_address(text: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        return ipaddress.ip_address(text)
    except ValueError:
        return None


def test_a_check_run_leaves_no_parsed_text_behind() -> None:
    """The parsing caches are unbounded for the length of a run, so the runner must empty them."""
    from auditor.config.models import Intent
    from checks.base import CheckContext, FactView, check_registry
    from checks.runner import run_checks

    network("10.9.8.0/24"), address("10.9.8.7")
    assert network.cache_info().currsize > 0
    ctx = CheckContext(intent=Intent.model_validate({}), facts=FactView([]))
    run_checks(ctx, [c for _, c in check_registry().items()])
    assert [f.cache_info().currsize for f in (network, address)] == [0, 0]
