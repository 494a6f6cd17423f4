"""Tier 1 checks: out-of-band management (BMC/IPMI, switch management)."""

from checks.tier1.mgmt_plane_in_oob_vrf import MgmtPlaneInOobVrf
from checks.tier1.oob_access_jump_hosts import OobAccessJumpHostsOnly
from checks.tier1.oob_flows_authorized import OobFlowsAuthorized
from checks.tier1.oob_no_default_route import OobNoDefaultRoute
from checks.tier1.oob_not_routed_elsewhere import OobNotRoutedElsewhere
from checks.tier1.oob_switch_dedicated import OobSwitchDedicated

CHECKS = [
    OobNotRoutedElsewhere,
    OobNoDefaultRoute,
    OobAccessJumpHostsOnly,
    MgmtPlaneInOobVrf,
    OobSwitchDedicated,
    OobFlowsAuthorized,
]
