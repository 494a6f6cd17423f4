"""Tier 3 checks: the backend RDMA fabric (RoCEv2 / InfiniBand)."""

from checks.tier3.lossless import DscpTrustAtEdge, EcnOnLossless, PfcLosslessOnly
from checks.tier3.mtu_jumbo import BackendMtuJumbo
from checks.tier3.no_mgmt_or_public import BackendNoMgmtOrPublic
from checks.tier3.no_route_leak import BackendNoRouteLeak
from checks.tier3.non_blocking import BackendNonBlocking
from checks.tier3.port_segregation import BackendPortSegregation
from checks.tier3.tenant_isolation import BackendTenantIsolation
from checks.tier3.vrf_no_default_route import BackendVrfNoDefaultRoute
from checks.tier3.vrf_no_foreign_prefixes import BackendVrfNoForeignPrefixes

CHECKS = [
    BackendVrfNoDefaultRoute,
    BackendVrfNoForeignPrefixes,
    BackendNoRouteLeak,
    BackendPortSegregation,
    BackendMtuJumbo,
    PfcLosslessOnly,
    EcnOnLossless,
    DscpTrustAtEdge,
    BackendNonBlocking,
    BackendNoMgmtOrPublic,
    BackendTenantIsolation,
]
