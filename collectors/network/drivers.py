"""NAPALM drivers wired to the read-only guard, through NAPALM's public options only.

- EOS: the driver's documented `transport` optional argument takes a subclass of pyeapi's
  EapiConnection; `ReadOnlyEapiConnection` checks commands and verifies TLS.
- Junos: `collectors.platforms.junos.driver.ReadOnlyJunOSDriver` (NETCONF; see there).
- Which class serves a NAPALM driver name is the platform record's `driver_class`.
- NX-OS (SSH) and IOS: these drivers open their Netmiko session in `open()`. The subclasses below
  override that public method to open the same Netmiko session through `netmiko_guard` (the guarded
  class for the same device type, with the same arguments NAPALM would pass) and otherwise leave the
  driver untouched: getters, parsing and `close()` are NAPALM's own.
"""

from __future__ import annotations

import importlib
import logging
from typing import Any, ClassVar

from napalm.base import NetworkDriver
from napalm.eos.eos import EOSDriver
from napalm.ios.ios import IOSDriver
from napalm.nxos_ssh.nxos_ssh import NXOSSSHDriver

from auditor.errors import PluginError
from collectors.network import netmiko_guard
from collectors.network.eapi import ReadOnlyEapiConnection, tls_context
from collectors.platforms.registry import platforms


class _OwnTemplateDirMiss(logging.Filter):
    """NAPALM looks for TextFSM templates next to each class of the driver's MRO, ours first, and logs an
    ERROR for every miss before it finds NAPALM's own or ntc-templates'. Those misses are expected."""

    def filter(self, record: logging.LogRecord) -> bool:
        # The misses are logged even when NAPALM then parses with its fallback template; when no template
        # parses, the getter raises and the collector reports that getter as a Problem.
        return "textfsmExtractorErr01" not in record.getMessage()


logging.getLogger("napalm.base.helpers").addFilter(_OwnTemplateDirMiss())


class _GuardedNetmikoOpen:
    """`open()` as NAPALM's `_netmiko_open`, but with the guarded Netmiko class."""

    netmiko_device_type: ClassVar[str]
    hostname: str
    username: str
    password: str
    timeout: int
    netmiko_optional_args: dict[str, Any]

    def open(self) -> None:
        conn = netmiko_guard.connect(
            self.netmiko_device_type,
            host=self.hostname,
            username=self.username,
            password=self.password,
            timeout=self.timeout,
            **self.netmiko_optional_args,
        )
        if not getattr(self, "force_no_enable", False):
            conn.enable()  # a no-op at a privileged prompt; never configuration mode
        self._netmiko_device = conn  # where NAPALM's own close() finds the session
        self.device = conn


class ReadOnlyNXOSSSHDriver(_GuardedNetmikoOpen, NXOSSSHDriver):  # type: ignore[misc]
    netmiko_device_type = "cisco_nxos"


class ReadOnlyIOSDriver(_GuardedNetmikoOpen, IOSDriver):  # type: ignore[misc]
    netmiko_device_type = "cisco_ios"


def _driver_class(driver: str) -> type[NetworkDriver]:
    """The read-only driver class a platform record names for this NAPALM driver."""
    for _, platform in platforms().items():
        if platform.napalm_driver == driver and platform.driver_class:
            module, _, attr = platform.driver_class.partition(":")
            cls: type[NetworkDriver] = getattr(importlib.import_module(module), attr)
            return cls
    raise PluginError(f"no read-only driver is registered for NAPALM driver {driver!r}")


def napalm_driver(
    driver: str,
    *,
    host: str,
    port: int | None,
    username: str,
    password: str | None,
    timeout: float,
    netmiko_args: dict[str, Any],
    verify_tls: bool = True,
    ca_file: str | None = None,
) -> NetworkDriver:
    """A NAPALM driver (not yet opened) whose every command passes the read-only guard."""
    if driver == "eos":
        optional: dict[str, Any] = {
            "transport": ReadOnlyEapiConnection,
            "context": tls_context(verify_tls, ca_file),
            "port": port or 443,
            # TCP connect + TLS handshake under the connect timeout, not the command timeout
            "connect_timeout": netmiko_args.get("conn_timeout"),
        }
        return EOSDriver(host, username, password or "", timeout=timeout, optional_args=optional)
    cls = _driver_class(driver)
    optional = dict(netmiko_args)
    if port:
        optional["port"] = port
    return cls(host, username, password or "", timeout=timeout, optional_args=optional)
