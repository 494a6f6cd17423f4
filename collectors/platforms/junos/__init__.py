"""Juniper Junos: NAPALM's junos driver (NETCONF over SSH) live; `show configuration` in the curly
format or `| display set` offline."""

from __future__ import annotations

import re

from collectors.platforms.junos.detect import detect
from collectors.platforms.registry import Command, Platform

PLATFORM = Platform(
    name="junos",
    title="Juniper Junos",
    aliases=("juniper_junos", "juniper", "junipernetworks.junos.junos", "juniper-junos"),
    napalm_driver="junos",
    driver_class="collectors.platforms.junos.driver:ReadOnlyJunOSDriver",
    # The committed config, verbatim, in the curly format (the set format is read the same way offline).
    running_config=Command("show configuration", "junos.config", "the committed configuration"),
    normalizers={"junos.config": "collectors.platforms.junos.normalize:normalize_config"},
    offline_format="junos.config",
    detect=detect,
    fixtures="tests/fixtures/junos",
    # Junos CLI errors (Junos OS CLI User Guide): `syntax error, expecting <command>.`, `unknown command.`,
    # and `error: permission denied` for a command the login class does not allow
    error_replies=(re.compile(r"^\s*(error: )?(syntax error|unknown command|permission denied)", re.M),),
    config_formats=frozenset({"junos.config"}),
)
