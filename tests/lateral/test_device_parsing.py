"""Device addresses are read by a fast IPv4 path; it must give what ipaddress gives."""

from __future__ import annotations

import ipaddress
import random

from checks.lateral.addresses import IPSet
from checks.lateral.net_devices import _interface, _prefix


def _slow_interface(text: str) -> tuple[IPSet, int, str] | None:
    try:
        iface = ipaddress.ip_interface(text)
    except ValueError:
        return None
    return IPSet.parse(str(iface.network)), iface.network.prefixlen, str(iface.ip)


def _slow_prefix(text: str) -> tuple[IPSet, int] | None:
    try:
        net = ipaddress.ip_network(text, strict=False)
    except ValueError:
        return None
    return IPSet.parse(str(net)), net.prefixlen


def test_fast_reading_agrees_with_ipaddress() -> None:
    rng = random.Random(3)
    texts = ["10.0.0.1/31", "10.0.0.1", "0.0.0.0/0", "010.0.0.1/8", "10.0.0.1/33", "fd00::1/64", "junk", ""]
    for _ in range(2000):
        octets = [str(rng.choice([0, 10, 255, 256, rng.randrange(256)])) for _ in range(4)]
        texts.append(".".join(octets) + rng.choice(["", f"/{rng.randrange(0, 34)}"]))
    for text in texts:
        assert _interface(text) == _slow_interface(text), text
        assert _prefix(text) == _slow_prefix(text), text
