"""`frontend.egress_proxy` takes an address or a DNS name with a port; anything else is a line-precise
config error (a proxy declared by name is what Cilium toFQDNs / Calico domains rules may name)."""

from __future__ import annotations

import pytest

from auditor.config.loader import parse_config
from auditor.errors import ConfigError

TEXT = "intent:\n  tiers:\n    frontend:\n      egress_proxy: [{}]\n"


@pytest.mark.parametrize(
    "item",
    [
        "10.20.5.10:3128",
        "[2001:db8::5]:3128",
        "proxy.example.com:3128",
        "Proxy.Example.COM.:8080",
        "squid:3128",
    ],
)
def test_addresses_and_names_are_accepted(item: str) -> None:
    cfg = parse_config(TEXT.format(f'"{item}"'), source="a.yaml")
    assert cfg.intent.tiers.frontend is not None
    assert cfg.intent.tiers.frontend.egress_proxy == [item]


@pytest.mark.parametrize(
    ("item", "words"),
    [
        ("proxy.example.com", "host:port"),
        ("proxy.example.com:0", "host:port"),
        ("proxy.example.com:70000", "host:port"),
        ("proxy_1.example.com:3128", "neither an IP address nor a DNS name"),
        ("-proxy.example.com:3128", "neither an IP address nor a DNS name"),
        ("10.20.5:3128", "neither an IP address nor a DNS name"),  # a mistyped address is not a name
        ("prox y:3128", "neither an IP address nor a DNS name"),
    ],
)
def test_other_hosts_are_errors_with_their_line(item: str, words: str) -> None:
    with pytest.raises(ConfigError) as info:
        parse_config(TEXT.format(f'"{item}"'), source="a.yaml")
    err = info.value
    assert (err.file, err.line, err.field) == ("a.yaml", 4, "intent.tiers.frontend.egress_proxy")
    assert words in str(err)
