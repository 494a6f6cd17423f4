"""Tier 2 checks: the frontend (Kubernetes, APIs, inference, ingest, model-serving VPCs)."""

from checks.tier2.ns_default_deny import NamespaceDefaultDeny

CHECKS = [NamespaceDefaultDeny]
