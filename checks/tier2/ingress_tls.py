"""T2-INGRESS-TLS: every Ingress terminates TLS for every host it serves.

A host is covered by a `tls` entry listing it, or by a wildcard entry one label up (`*.example.com`
covers `api.example.com`, not `a.b.example.com`, as in TLS certificate matching), or by a `tls` entry
that lists no host: the API defaults its hosts to the controller's wildcard host, i.e. every host the
Ingress serves (the normalizer writes it `*`; the certificate in its Secret must then match them).
Rules without a host (and a default backend) answer any host name: they are covered only when the
Ingress has a `tls` entry at all. A Gateway API Gateway is judged the same way on its listeners: an
HTTPS or TLS listener covers its hostname (every host without one), an HTTP listener's hostname must be
covered by such a listener, and an HTTP listener without hostname is covered when the Gateway has any
(the usual redirect listener beside an HTTPS one; a Gateway with HTTP listeners only fails). Every
Ingress of every assessed cluster is judged, tenant or not: exposure does not care which namespace it
comes from.
"""

from __future__ import annotations

from collections.abc import Iterable

from auditor.enums import FactKind, Severity, Tier
from auditor.facts import K8sIngress
from auditor.facts.kubernetes import ANY_TLS_HOST
from checks.base import Check, CheckContext, CheckMeta, Finding

NEEDS = frozenset({FactKind.K8S_INGRESS})
EXPECTED = "every host served through a tls entry (TLS terminated at the ingress)"


def covered(host: str, tls_hosts: Iterable[str]) -> bool:
    for pattern in tls_hosts:
        if pattern in (host, ANY_TLS_HOST):
            return True
        if pattern.startswith("*.") and "." in host and host.split(".", 1)[1] == pattern[2:]:
            return True
    return False


class IngressTls(Check):
    meta = CheckMeta(
        id="T2-INGRESS-TLS",
        title="Ingresses terminate TLS for every host",
        tier=Tier.FRONTEND,
        severity=Severity.HIGH,
        needs=NEEDS,
        rationale=(
            "Inference and API endpoints carry prompts, outputs and bearer tokens. Without TLS at the "
            "ingress they cross the frontend network and the internet in clear text (PCI DSS 4.2.1, "
            "NIST SP 800-53 SC-8)."
        ),
        remediation=(
            "Add a `tls` entry to the Ingress listing each host (or a wildcard), with a certificate "
            "Secret (e.g. from cert-manager), and redirect HTTP to HTTPS at the controller."
        ),
    )

    def evaluate(self, ctx: CheckContext) -> Iterable[Finding]:
        clusters, gaps = self.split_assessable(ctx, [t for t in ctx.targets if t.kind == "kubernetes"], NEEDS)
        yield from gaps
        names = {c.name for c in clusters}
        seen: dict[str, int] = dict.fromkeys(names, 0)
        for fact in ctx.facts.of(K8sIngress):
            if fact.target not in names:
                continue
            seen[fact.target] += 1
            rec = fact.record
            missing = [h for h in rec.hosts if not covered(h, rec.tls_hosts)]
            has_tls = bool(rec.tls_hosts or rec.tls_secrets)
            hostless = any(b.host is None for b in rec.backends) or not rec.hosts
            if hostless and not has_tls:
                missing.append(
                    "any host (rules without a host, a default backend, an HTTP listener without hostname)"
                )
            served = ", ".join(rec.hosts) or "any host"
            if missing:
                tls = (
                    ", ".join(rec.tls_hosts)
                    if rec.tls_hosts
                    else "no tls entry"
                    if not has_tls
                    else "tls without hosts"
                )
                found = f"serves {served}; not covered by TLS: {', '.join(missing)} ({tls})"
                yield self.failed(rec.subject(), EXPECTED, found, fact, target=fact.target)
            else:
                secrets = ", ".join(rec.tls_secrets) or "no secret named"
                found = f"serves {served}; TLS for all (certificate secret(s): {secrets})"
                yield self.passed(rec.subject(), EXPECTED, found, fact, target=fact.target)
        for name in sorted(n for n, count in seen.items() if count == 0):
            yield self.passed(
                name, EXPECTED, "no Ingress in the cluster: nothing exposed through Ingress", target=name
            )
