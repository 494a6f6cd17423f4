"""Tier 2 checks: the frontend (Kubernetes, APIs, inference, ingest, model-serving VPCs)."""

from checks.tier2.default_sg_empty import DefaultSgEmpty
from checks.tier2.dns_resolvers import DnsApprovedResolvers
from checks.tier2.egress_proxy_only import EgressProxyOnly
from checks.tier2.frontend_not_to_backend import FrontendNotToBackend
from checks.tier2.ingress_tls import IngressTls
from checks.tier2.nacl_default_deny import NaclDefaultDeny
from checks.tier2.no_cross_tenant import NoCrossTenant
from checks.tier2.ns_default_deny import NamespaceDefaultDeny
from checks.tier2.sg_default_deny import SgDefaultDeny
from checks.tier2.zero_egress_routes import ZeroEgressRoutes

CHECKS = [
    NamespaceDefaultDeny,
    NoCrossTenant,
    EgressProxyOnly,
    DnsApprovedResolvers,
    IngressTls,
    SgDefaultDeny,
    DefaultSgEmpty,
    NaclDefaultDeny,
    ZeroEgressRoutes,
    FrontendNotToBackend,
]
