"""One Kubernetes policy engine for the whole project.

Every policy flavor (NetworkPolicy, AdminNetworkPolicy/BaselineAdminNetworkPolicy, Cilium CNP/CCNP,
Calico NetworkPolicy/GlobalNetworkPolicy with NetworkSets, Profiles and Tiers) is compiled once
(`compile.py`) into one form (`ir.py`) and evaluated by one engine (`engine.py`). The tier-2 checks,
the lateral-movement model (checks/lateral/net_k8s.py) and `auditor reach k8s` all ask it; what it
cannot evaluate is a `Gap` that makes the affected findings NOT_ASSESSED.
"""
