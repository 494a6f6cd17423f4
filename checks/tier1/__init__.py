"""Tier 1 checks: out-of-band management (BMC/IPMI, switch management)."""

from checks.tier1.oob_not_routed_elsewhere import OobNotRoutedElsewhere

CHECKS = [OobNotRoutedElsewhere]
