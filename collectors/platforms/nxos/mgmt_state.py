"""NX-OS `show feature | json` -> the management services as the switch reports them running.

NX-API's rows (TABLE_cfcFeatureCtrlTable.ROW_cfcFeatureCtrlTable[{cfcFeatureCtrlName2,
cfcFeatureCtrlInstanceNum2, cfcFeatureCtrlOpStatus2}], as Ansible's nxos_feature and public NX-API
clients read them) say whether each feature runs. For the management plane:
- ssh and telnet answer on every VRF when their feature runs (NX-OS has no per-VRF switch for them), so
  the state is one MgmtService in vrf "*" that holds in every VRF (all_vrfs);
- nxapi, when disabled, is off in every VRF (superseding the config's `nxapi use-vrf` reading); when
  enabled, the VRF it serves is the config's (`nxapi use-vrf`), which the config reader gives.
Any status starting "enabled" (also "enabled(not-running)") counts as on: a listener must not be hidden.
"""

from __future__ import annotations

from typing import Any, Literal

from auditor.facts import FactRecord, MgmtService
from collectors.parsing.config_tree import Context
from collectors.parsing.show_common import rows

_SERVICES: dict[str, Literal["ssh", "telnet", "nxapi"]] = {"ssh": "ssh", "telnet": "telnet", "nxapi": "nxapi"}


def read_features(ctx: Context, doc: Any) -> list[FactRecord]:
    table = rows(doc, "TABLE_cfcFeatureCtrlTable", "ROW_cfcFeatureCtrlTable")
    if not table:
        raise ValueError("no TABLE_cfcFeatureCtrlTable rows: not the output of `show feature | json`")
    state: dict[str, bool] = {}
    for row in table:
        name = str(row.get("cfcFeatureCtrlName2", "")).strip()
        if name in _SERVICES:
            on = str(row.get("cfcFeatureCtrlOpStatus2", "")).strip().lower().startswith("enabled")
            state[name] = state.get(name, False) or on  # several instances: on if any is
    return [
        MgmtService(
            device=ctx.device,
            service=_SERVICES[name],
            vrf="*",
            enabled=on,
            source="operational",
            all_vrfs=True,
        )
        for name, on in state.items()
        if name != "nxapi" or not on
    ]
