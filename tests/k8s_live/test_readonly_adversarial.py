"""The Kubernetes guard fed hostile requests: path tricks, encodings, methods and parameters that would
turn a declared list into something else. Each is refused before it is sent."""

from __future__ import annotations

import pytest

from auditor.errors import ReadOnlyViolation
from collectors.kubernetes.readonly import ReadOnlyGuard

BASE = "https://10.0.0.1:6443"


@pytest.mark.parametrize(
    ("method", "path", "query"),
    [
        ("HEAD", "/api/v1/pods", []),
        ("OPTIONS", "/api/v1/pods", []),
        ("CONNECT", "/api/v1/pods", []),
        ("GET", "/api/v1/pods/../secrets", []),
        ("GET", "/api/v1/pods%2F..%2Fsecrets", []),
        ("GET", "/api/v1/pods/", []),
        ("GET", "/api/v1//pods", []),
        ("GET", "/api/v1/pods;x", []),
        ("GET", "/api/v1/namespaces/kube-system/secrets", []),
        ("GET", "/api/v1/namespaces/default/pods/web/attach", []),
        ("GET", "/api/v1/namespaces/default/pods/web/portforward", []),
        ("GET", "/api/v1/nodes/n1/proxy/metrics", []),
        ("GET", "/apis/authentication.k8s.io/v1/tokenreviews", []),
        ("GET", "/api/v1/pods", [("watch", "1")]),
        ("GET", "/api/v1/pods", [("fieldSelector", "x")]),
        ("GET", "/api/v1/pods", [("limit", "1"), ("dryRun", "All")]),
        ("GET", "/api/v1/pods?limit=1&watch=true", []),
        ("GET", "/api/v1/pods?resourceVersion=0&watch=1", [("limit", "1")]),
        ("GET", "/apis", [("watch", "1")]),
        ("GET", "/openapi/v2", []),
        ("GET", "/logs/", []),
        ("GET", "/metrics", []),
    ],
)
def test_hostile_requests_are_refused(method: str, path: str, query: list[tuple[str, str]]) -> None:
    with pytest.raises(ReadOnlyViolation):
        ReadOnlyGuard().check(method, f"{BASE}{path}", query)
