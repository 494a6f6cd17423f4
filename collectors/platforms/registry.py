"""The Platform record every network OS package provides, and the registry that collects them.

A platform registers one entry point in the `auditor.platforms` group naming its `PLATFORM` record.
Everything that used to keep its own per-OS table reads the registry instead: config validation
(`DeviceSource.platform`, `FileSource.platform`), inventory import (aliases), the live collector's
command sets and NAPALM/Netmiko drivers, the offline classifier (content detection), and the
normalizer registry (capture format -> normalizer). The record names its normalizers and driver
as "module:attribute" strings so that loading the registry imports no parser and no driver.
"""

from __future__ import annotations

import functools
import importlib
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from auditor.registry import Registry

GROUP = "auditor.platforms"


@dataclass(frozen=True)
class Command:
    """One show command and how its answer is stored."""

    command: str  # the exact text sent to the device, stored as meta["command"] and in `source`
    format: str  # the capture format (normalizer key)
    covers: str  # what it is read for (documentation, and the permissions list)
    # Fact kinds (FactKind values) a "not configured" reply to this command proves absent
    kinds: tuple[str, ...] = ()
    empty_means_none: bool = False  # an empty answer is the OS's way of saying "none" (IOS: no ACLs)
    # Replies meaning "the feature this command reads is not configured here" (EOS without a Vxlan1
    # interface: `% Interface does not exist`): evidence that covers `kinds`, not a gap. Declared per
    # command, from the OS's own texts: the same words answering another command are an error.
    absent: tuple[re.Pattern[str], ...] = ()
    # A running-config statement without which the OS does not have this command at all (NX-OS shows
    # `show nve` only under `feature nv overlay`, answering "% Invalid command" otherwise, the same words
    # as a typo). The live collector then does not send it: the running config, collected first and
    # stored, is the evidence that the feature is off.
    requires: re.Pattern[str] | None = None
    # Fact kinds only this command's answer can tell (the running config cannot: a route table holds the
    # routes learned by BGP). When it fails, those kinds are not covered on the device, whatever the
    # config covers, so the checks needing them are NOT_ASSESSED, not passed on the config's few routes.
    live_only: tuple[str, ...] = ()


@dataclass(frozen=True)
class Detected:
    """What a platform's detector saw in a file: the capture format to read it as, the device's name
    when the file says it, and how sure the detector is (markers only this OS writes score higher;
    the classifier takes the highest score and refuses a tie)."""

    format: str
    hostname: str | None = None
    score: int = 1


Detector = Callable[[str, str], "Detected | None"]  # (lower-case file name, decoded head) -> Detected


@dataclass(frozen=True)
class Platform:
    """Everything the auditor knows about one network OS, in one place."""

    name: str  # the value of DeviceSource.platform / FileSource.platform
    title: str  # for people: "Arista EOS"
    # Other spellings, accepted wherever a platform is named (NAPALM/Netmiko/Ansible/NetBox names)
    aliases: tuple[str, ...] = ()
    napalm_driver: str | None = None  # NAPALM's driver name, when the platform is collected through NAPALM
    # "module:Class" of the read-only NetworkDriver subclass (see collectors.network.drivers)
    driver_class: str | None = None
    netmiko_device_type: str | None = None  # when collected with Netmiko instead (no NAPALM driver)
    # NAPALM platforms: the command that fetches the running config verbatim, and the format it is stored as
    running_config: Command | None = None
    commands: tuple[Command, ...] = ()  # further read-only commands, in the order they are sent
    normalizers: Mapping[str, str] = field(default_factory=dict)  # capture format -> "module:function"
    offline_format: str | None = None  # what a file named by `platform:` on sources.files is read as
    detect: Detector | None = None  # offline content detection
    fixtures: str = ""  # tests/fixtures folder with this platform's real samples (the conformance suite's)
    # Replies that mean "the command was refused or failed", per the OS's documentation or public captures
    error_replies: tuple[re.Pattern[str], ...] = ()
    # Formats holding a whole text configuration: a capture of one must contain a config statement
    config_formats: frozenset[str] = frozenset()
    # "Kind.field" -> why this OS cannot give it (shown as n/a in the coverage table of FORMATS.md).
    # A whole kind ("QosInterface") declared unavailable is a gap on every device of this platform: the
    # checks needing it are NOT_ASSESSED naming the platform and the reason, whatever else covers it.
    unavailable: Mapping[str, str] = field(default_factory=dict)
    # "module:function" giving an interface's canonical name (the running config's spelling) from any
    # spelling a getter or command prints (NAPALM's nxos_ssh says `Management0`/`Port-channel1` where
    # NX-OS says `mgmt0`/`port-channel1`); None: names are used as given
    interface_name: str | None = None

    @property
    def names(self) -> tuple[str, ...]:
        return (self.name, *self.aliases)

    def live_commands(self) -> tuple[Command, ...]:
        """Every command the live collector sends this platform, running config first."""
        return ((self.running_config,) if self.running_config else ()) + self.commands

    def interface_namer(self) -> Callable[[str], str]:
        """The function named by `interface_name` (imported on first use), or the identity."""
        return _load_namer(self.interface_name) if self.interface_name else _same_name

    def command(self, text: str | None) -> Command | None:
        """The declared command sent as `text` (None for an offline file or an undeclared command)."""
        return next((c for c in self.live_commands() if c.command == text), None) if text else None


def _same_name(name: str) -> str:
    return name


@functools.cache
def _load_namer(target: str) -> Callable[[str], str]:
    module, _, attr = target.partition(":")
    found: Callable[[str], str] = getattr(importlib.import_module(module), attr)
    return found


def _validate(name: str, entry: object) -> Platform:
    if not isinstance(entry, Platform):
        raise TypeError(f"platform {name!r} is not a Platform record")
    if entry.name != name:
        raise ValueError(f"entry point {name!r} names platform {entry.name!r}; they must agree")
    for fmt, target in entry.normalizers.items():
        if ":" not in target:
            raise ValueError(f"normalizer of {fmt!r} must be 'module:function', got {target!r}")
    return entry


class PlatformRegistry(Registry[Platform]):
    """Registered platforms, and every name (or alias) they answer to."""

    def __init__(self) -> None:
        super().__init__(GROUP, validate=_validate)

    def resolve(self, name: str) -> Platform | None:
        """The platform a name or alias stands for (case-insensitive; Ansible's `cisco.ios.ios`
        is also tried by its last part), or None."""
        key = name.strip().lower()
        for candidate in (key, key.rsplit(".", 1)[-1]):
            for _, platform in self.items():
                if candidate in platform.names:
                    return platform
        return None

    def all_names(self) -> list[str]:
        return sorted({n for _, p in self.items() for n in p.names})


@functools.cache
def platforms() -> PlatformRegistry:
    """The registered platforms (built-ins and plugins alike), loaded once per process."""
    registry = PlatformRegistry()
    registry.load_entry_points()
    return registry


def get(name: str) -> Platform:
    """The platform named `name` or one of its aliases; PluginError when none is registered."""
    found = platforms().resolve(name)
    if found is None:
        return platforms().get(name)  # raises, listing the known names
    return found


def canonical(name: str) -> str | None:
    """The registered platform name for a name or alias, None when unknown."""
    found = platforms().resolve(name)
    return found.name if found else None
