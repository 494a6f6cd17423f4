"""The artifacts the frameworks ask for by name: the switch-port segregation manifest, the default-deny
declarations and the shared-responsibility matrix."""

from __future__ import annotations

from reports.html.markup import esc, row, status_pill, table
from reports.sections.common import words
from reports.sections.records import DefaultDenyRow, PortManifest, ResponsibilityRow


def ports_section(ports: PortManifest) -> str:
    groups = [
        row(
            [
                esc(g.tier),
                esc(g.vrf),
                esc(g.vlans),
                esc(g.tenant),
                f"{g.devices:,}",
                f"{g.ports:,}",
                esc(g.example),
            ]
        )
        for g in ports.groups
    ]
    listing = [
        row(
            [
                esc(p.device),
                esc(p.port),
                esc(p.kind),
                esc(p.mode),
                esc(p.vrf),
                esc(p.vlans),
                esc(p.tier),
                esc(p.tenant),
                esc(p.declared),
            ]
        )
        for p in ports.rows
    ]
    if not ports.total:
        body = "<p>No switch port was observed in this run.</p>"
    else:
        more = (
            f" (the first {len(ports.rows):,} of {ports.total:,}; the pack's facts hold the rest)"
            if len(ports.rows) < ports.total
            else ""
        )
        body = (
            f"<p>{ports.total:,} ports on {ports.devices:,} devices; port placement checks: "
            f"{status_pill(ports.status, ports.result)}</p>"
            + table(["Tier", "VRF", "VLANs", "Tenant", "Devices", "Ports", "For example"], groups)
            + f"<details><summary>Every port{esc(more, empty='')}</summary>"
            + table(
                ["Device", "Port", "Kind", "Mode", "VRF", "VLANs", "Tier", "Tenant", "Declared"],
                listing,
                ident="ports-table",
            )
            + "</details>"
        )
    return f'<section id="ports"><h2>5. Switch-port segregation manifest</h2>{body}</section>'


def default_deny_section(rows: list[DefaultDenyRow]) -> str:
    body = [
        row(
            [
                f"<strong>{esc(r.family)}</strong>",
                esc(r.scope),
                f"{r.total:,}",
                f"{r.deny_by_default:,}",
                f"{r.opening:,}",
                esc(r.detail),
                status_pill(r.status, r.result),
                esc(words(r.checks)),
            ]
        )
        for r in rows
    ]
    head = ["Filters", "Scope", "Total", "Deny by default", "Open to anyone", "Detail", "Result", "Checks"]
    shown = table(head, body, ident="default-deny-table") if body else "<p>No filters were observed.</p>"
    return (
        '<section id="default-deny"><h2>6. Default-deny declarations</h2>'
        "<p>Security groups, network ACLs, device ACLs and Kubernetes policies per scope: how many deny "
        f"by default and how many open something to anyone.</p>{shown}</section>"
    )


def responsibility_section(rows: list[ResponsibilityRow]) -> str:
    body = [
        row(
            [
                f"<strong>{esc(r.area)}</strong>",
                esc(r.owner),
                status_pill(r.status, r.result),
                esc(words(r.checks, 12)),
            ]
        )
        for r in rows
    ]
    shown = (
        table(["Control area", "Operated by", "Result", "Checks"], body, ident="responsibility-table")
        if body
        else "<p>The audit config declares no shared-responsibility matrix.</p>"
    )
    return (
        '<section id="responsibility"><h2>9. Shared responsibility</h2>'
        "<p>Who operates each control area, as the config declares, beside the checks it affects.</p>"
        f"{shown}</section>"
    )
