"""NAPALM's junos driver, held to the read-only guard and to host-key verification.

NAPALM's JunOSDriver talks NETCONF over SSH through junos-eznc (PyEZ) and ncclient. Two of their
defaults do not suit an auditor, and both are changed through public constructor options only:

- PyEZ does not verify the SSH host key unless `hostkey_verify=True`. The driver here always asks for
  it, with ncclient reading the known_hosts file the device's trust policy names (an ssh_config with
  `UserKnownHostsFile`, ncclient's documented way) - or, under the explicit `accept_unknown_host_key`
  opt-out (Netmiko's `ssh_strict=False`), the user's own known_hosts read-only.
- `cli()` sends free text. Each command passes `collectors.network.readonly.check_command` first, and
  every method that would change the device (load, commit, rollback, discard, lock) refuses. Getters
  send fixed `get-*` RPCs, which read only.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any, NoReturn

from jnpr.junos import Device
from napalm.junos.junos import JunOSDriver

from auditor.errors import ReadOnlyViolation
from collectors.network.readonly import check_command


class ReadOnlyJunOSDriver(JunOSDriver):  # type: ignore[misc]
    """JunOSDriver whose CLI commands are allowlisted, whose config methods refuse, and whose SSH host
    key is always verified against known_hosts."""

    def __init__(
        self,
        hostname: str,
        username: str,
        password: str,
        timeout: int = 60,
        optional_args: dict[str, Any] | None = None,
    ) -> None:
        args = dict(optional_args or {})
        known_hosts = _known_hosts(args)
        verify = args.get("ssh_strict") is not False  # accept_unknown_host_key is the explicit opt-out
        # NAPALM's own options only (port, key_file, keepalive); Netmiko's are not Device arguments.
        napalm_args = {k: v for k, v in args.items() if k in ("port", "key_file", "keepalive")}
        napalm_args.setdefault("port", 830)
        super().__init__(hostname, username, password, timeout=timeout, optional_args=napalm_args)
        self._ssh_config = tempfile.NamedTemporaryFile(  # noqa: SIM115 - lives as long as the driver
            "w", prefix="auditor-ncclient-", suffix=".conf"
        )
        self._ssh_config.write(f"Host *\n  UserKnownHostsFile {known_hosts}\n")
        self._ssh_config.flush()
        self.device = Device(
            hostname,
            user=username,
            password=password,
            port=napalm_args["port"],
            ssh_private_key_file=napalm_args.get("key_file"),
            ssh_config=self._ssh_config.name,
            hostkey_verify=verify,
            gather_facts=False,  # facts are read by get_facts when asked, not at every connect
            conn_open_timeout=int(args.get("conn_timeout") or timeout),
        )

    def cli(self, commands: list[str], encoding: str = "text") -> dict[str, str]:
        for command in commands:
            check_command(command, target=self.hostname)
        result: dict[str, str] = super().cli(commands, encoding=encoding)
        return result

    def close(self) -> None:
        try:
            super().close()
        finally:
            self._ssh_config.close()

    def _refuse(self, *_: Any, **__: Any) -> NoReturn:
        raise ReadOnlyViolation(f"{self.hostname}: the auditor never changes a device's configuration")

    load_merge_candidate = _refuse
    load_replace_candidate = _refuse
    load_template = _refuse
    commit_config = _refuse
    confirm_commit = _refuse
    discard_config = _refuse
    rollback = _refuse
    compare_config = _refuse
    _lock = _refuse


def _known_hosts(netmiko_args: dict[str, Any]) -> str:
    """The known_hosts file to check the host key against, from the Netmiko trust options."""
    path = netmiko_args.get("alt_key_file")
    return str(Path(str(path)).expanduser()) if path else str(Path("~/.ssh/known_hosts").expanduser())
