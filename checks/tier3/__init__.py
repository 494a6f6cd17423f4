"""Tier 3 checks: the backend RDMA fabric (RoCEv2 / InfiniBand)."""

from checks.tier3.vrf_no_default_route import BackendVrfNoDefaultRoute

CHECKS = [BackendVrfNoDefaultRoute]
