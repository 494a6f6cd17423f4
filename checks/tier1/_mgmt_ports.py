"""Platform management ports: the out-of-band port of a switch, which is not a data-plane port.

Every switch's management port is cabled to the OOB network, so an OOB switch's LLDP neighbours include
the management ports of the fabric's switches, and its own management port faces the OOB core. Neither
is a data-plane neighbour. A management port is:
- any interface the evidence types as `management`;
- by name on every platform: Management0/Management1 (EOS), Ma1, mgmt0 (NX-OS, Onyx);
- eth0 (eth<N>) on SONiC and Cumulus, where it is the dedicated management port (on a server it is a
  data NIC: it counts only for a switch, i.e. a device whose platform is known, or a neighbour that is a
  target of the audit or a declared device of some tier);
- fxp0/em0/me0 on Junos (switches only, as for eth0: em1 is also a server's embedded NIC);
- GigabitEthernet0/0 or GigabitEthernet0 (IOS/IOS-XE) only when it sits in a management VRF (Mgmt-intf,
  or a declared one).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from auditor.config.models import Intent
from auditor.facts import Interface
from auditor.store.reader import StoredFact
from checks.base import CheckContext
from checks.vrf_names import VrfNames

_BY_NAME = re.compile(r"(?i)^(management|mgmt|ma)\s*\d+(/\d+)*$")
_LINUX_MGMT = re.compile(r"(?i)^eth\d+$")
_IOS_MGMT = re.compile(r"(?i)^(gigabitethernet|gi)\s*0(/0)?$")
_JUNOS_MGMT = re.compile(r"(?i)^(fxp|em|me)\d+$")
LINUX_SWITCH_PLATFORMS = {"sonic", "cumulus"}
IOS_MGMT_VRFS = {"mgmt-intf", "management", "mgmt"}


def is_mgmt_port(
    name: str,
    *,
    platform: str | None,
    vrf: str | None = None,
    kind: str | None = None,
    mgmt_vrfs: Iterable[str] = (),
    switch: bool = False,
) -> bool:
    """Whether `name` is the platform's management port. `switch`: the device is known to be a switch
    (needed to read eth0 as a management port when its platform is not known)."""
    text = name.strip()
    if kind == "management" or _BY_NAME.match(text):
        return True
    if _LINUX_MGMT.match(text):
        return (platform or "").lower() in LINUX_SWITCH_PLATFORMS or (platform is None and switch)
    if _JUNOS_MGMT.match(text):  # em1 is also a Linux server's embedded NIC: a switch's only
        return (platform or "").lower() == "junos" or (platform is None and switch)
    if _IOS_MGMT.match(text):
        vrfs = {v.lower() for v in mgmt_vrfs} | IOS_MGMT_VRFS
        return vrf is not None and vrf.lower() in vrfs
    return False


class MgmtPorts:
    """Answers "is this a management port" for the devices of one run, local or seen over LLDP."""

    def __init__(self, ctx: CheckContext) -> None:
        self.intent: Intent = ctx.intent
        oob = ctx.intent.tiers.oob
        self.mgmt_vrfs = set(oob.vrfs) if oob is not None else set()
        self.platforms = {t.name: t.platform for t in ctx.targets if t.kind == "device"}
        self.names = VrfNames.of(ctx)
        self.interfaces: dict[tuple[str, str], Interface] = {}
        for i in ctx.facts.of(Interface):
            self.interfaces[(i.target, i.record.name)] = i.record

    def local(self, device: str, intf: Interface | StoredFact[Interface] | str) -> bool:
        """A port of an audited device."""
        record = intf.record if isinstance(intf, StoredFact) else intf
        if isinstance(record, str):
            record_or_none = self.interfaces.get((device, record))
            name = record
        else:
            record_or_none, name = record, record.name
        return is_mgmt_port(
            name,
            platform=self.platforms.get(device),
            vrf=self.names.canonical(device, record_or_none.vrf) if record_or_none else None,
            kind=record_or_none.type if record_or_none else None,
            mgmt_vrfs=self.mgmt_vrfs,
            switch=True,
        )

    def remote(self, neighbor: str, port: str | None) -> bool:
        """A neighbour's port seen over LLDP (the neighbour may or may not be audited)."""
        if not port:
            return False
        target = self._target(neighbor)
        if target is not None:
            return self.local(target, port)
        switch = (
            self.intent.tier_of_device(neighbor) is not None
            or self.intent.tier_of_device(neighbor.split(".", maxsplit=1)[0]) is not None
        )
        return is_mgmt_port(port, platform=None, mgmt_vrfs=self.mgmt_vrfs, switch=switch)

    def _target(self, neighbor: str) -> str | None:
        for candidate in (neighbor, neighbor.split(".", maxsplit=1)[0]):
            if candidate in self.platforms:
                return candidate
        return None
