"""The compiled-once TextFSM templates give exactly what ntc_templates.parse.parse_output gives, on every
captured output we have, whether a template is used for the first time, again, or from many threads at
once; a command without a template fails as parse_output fails."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from ntc_templates.parse import ParsingException, parse_output

from collectors.platforms.ios.templates import TemplateCache

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
COMMANDS = {
    "show_ip_route": "show ip route vrf *",
    "show_ip_access-lists": "show ip access-lists",
    "show_vrf": "show vrf",
    "show_ip_vrf_interfaces": "show ip vrf interfaces",
    "show_lldp_neighbors": "show lldp neighbors",
    "show_vlan": "show vlan",
    "show_interfaces_switchport": "show interfaces switchport",
}
CASES = [
    (command, raw)
    for folder, command in COMMANDS.items()
    for raw in sorted((FIXTURES / "ntc" / "cisco_ios" / folder).glob("*.raw"))
]
DEVSIM = {
    "show_ip_route_vrf_star.txt": "show ip route vrf *",
    "show_ip_access-lists.txt": "show ip access-lists",
    "show_lldp_neighbors_detail.txt": "show lldp neighbors detail",
}
CASES += [(command, FIXTURES / "devsim" / "ios" / name) for name, command in DEVSIM.items()]


def _library(command: str, text: str) -> list[dict[str, Any]]:
    return list(parse_output(platform="cisco_ios", command=command, data=text))


@pytest.mark.parametrize(("command", "raw"), CASES, ids=lambda c: c.name if isinstance(c, Path) else c)
def test_same_records_as_parse_output(command: str, raw: Path) -> None:
    text = raw.read_text()
    cache = TemplateCache()
    want = _library(command, text)
    assert cache.parse("cisco_ios", command, text) == want  # first use: template read and compiled
    assert cache.parse("cisco_ios", command, text) == want  # reused: state from the last parse is reset


def test_threads_share_templates_not_parse_state() -> None:
    cache = TemplateCache()
    jobs = [(command, raw.read_text()) for command, raw in CASES] * 4
    want = [_library(command, text) for command, text in jobs]
    with ThreadPoolExecutor(8) as pool:
        got = list(pool.map(lambda job: cache.parse("cisco_ios", *job), jobs))
    assert got == want


def test_unknown_command_fails_as_parse_output_does() -> None:
    with pytest.raises(ParsingException) as library:
        _library("show nothing at all", "x")
    with pytest.raises(ParsingException) as cached:
        TemplateCache().parse("cisco_ios", "show nothing at all", "x")
    assert str(cached.value) == str(library.value)
