"""SSH host-key and TLS policy per device, expressed through Netmiko's and NAPALM's public options.

Default: the server's host key must already be in a known_hosts file (the device's `known_hosts`, else
~/.ssh/known_hosts); an unknown or changed key refuses the connection (paramiko's RejectPolicy, via
Netmiko `ssh_strict=True`). `accept_unknown_host_key: true` is an explicit opt-out that is written into
the target's notes, so the report shows it. With the opt-out, the user's own known_hosts is still
loaded read-only (`system_host_keys`), so a *changed* key for a known host is still refused; the
device's `known_hosts` file is then not loaded, because paramiko would append new keys to it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from auditor.config.models import DeviceSource

DEFAULT_KNOWN_HOSTS = Path("~/.ssh/known_hosts")


@dataclass(frozen=True)
class Trust:
    """How this device's identity is checked, and the notes the report shows about it."""

    netmiko: dict[str, object] = field(default_factory=dict)
    known_hosts: str | None = None
    verify_tls: bool = True
    ca_file: str | None = None
    notes: tuple[str, ...] = ()


def trust_for(device: DeviceSource, *, base_dir: Path, known_hosts: Path | None = None) -> Trust:
    """`known_hosts` is the inventory's file, used when the device entry names none."""
    notes: list[str] = []
    path = device.known_hosts or known_hosts or DEFAULT_KNOWN_HOSTS
    path = path.expanduser()
    if not path.is_absolute():
        path = base_dir / path
    if device.accept_unknown_host_key:
        netmiko: dict[str, object] = {"ssh_strict": False, "system_host_keys": True}
        notes.append(
            "SSH host key NOT verified: accept_unknown_host_key is set for this device (explicit opt-out)"
        )
    else:
        netmiko = {"ssh_strict": True, "alt_host_keys": True, "alt_key_file": str(path)}
    ca_file = None
    if device.ca_file is not None:
        ca = device.ca_file.expanduser()
        ca_file = str(ca if ca.is_absolute() else base_dir / ca)
    if not device.verify_tls and device.platform == "eos":
        notes.append("TLS certificate NOT verified: verify_tls is false for this device (explicit opt-out)")
    return Trust(netmiko, str(path), device.verify_tls, ca_file, tuple(notes))
