"""Lateral-movement analysis: one reachability model over devices, AWS and Kubernetes.

Pure functions of facts (no I/O), used by the X-LATERAL-NO-PATH check and by `auditor reach`. It lives
under `checks/` because it is check-support analysis like `checks/netutil.py`: the core (`auditor/`)
must not depend on segmentation semantics, and DESIGN.md fixes the top-level packages.

Modules: `intervals` (canonical integer interval sets), `addresses` (IPv4/IPv6 sets), `conns`
(protocol/port sets), `k8s_*` (Kubernetes policy semantics and the netpol-analyzer connlist),
`net_*` (the zone graph of devices and AWS), `paths` (the search that the check runs).
"""
