"""Every derived section of one run, in one call (see reports.sections for the API)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

from auditor.enums import FactKind
from auditor.facts import FactRecord
from auditor.store.reader import StoredFact
from reports.model import ReportData
from reports.sections.assessment import not_assessed
from reports.sections.common import Facts
from reports.sections.custody import custody
from reports.sections.default_deny import default_deny
from reports.sections.flows import flow_analysis
from reports.sections.grouping import finding_groups
from reports.sections.lateral import lateral_analysis
from reports.sections.matrix import segmentation_matrix
from reports.sections.overview import overview
from reports.sections.ports import port_manifest
from reports.sections.records import Sections
from reports.sections.responsibility import responsibility
from reports.sections.tiers import tier_picture

# The fact kinds the sections read (build.py loads only these).
FACT_KINDS = frozenset(
    {
        FactKind.INTERFACE,
        FactKind.VRF,
        FactKind.VLAN,
        FactKind.QOS_INTERFACE,
        FactKind.ACL,
        FactKind.AWS_SECURITY_GROUP,
        FactKind.AWS_NETWORK_ACL,
        FactKind.K8S_NAMESPACE,
        FactKind.K8S_NETWORK_POLICY,
        FactKind.FLOW_LOG_STATS,
        FactKind.FLOW_CONVERSATION,
        FactKind.AWS_FLOW_LOG_DESTINATION,
    }
)


def index_facts(facts: Iterable[StoredFact[FactRecord]]) -> Facts:
    out: dict[FactKind, list[StoredFact[FactRecord]]] = defaultdict(list)
    for f in facts:
        out[f.kind].append(f)
    return out


def derive_sections(data: ReportData, facts: Iterable[StoredFact[FactRecord]] = ()) -> Sections:
    """All sections of `data`; without `facts` the fact-derived parts are empty and say so."""
    index = index_facts(facts)
    notes = [] if index else ["The run's facts were not read for this report: observed values are not shown."]
    return Sections(
        overview=overview(data),
        tiers=tier_picture(data),
        matrix=segmentation_matrix(data, index),
        ports=port_manifest(data, index),
        default_deny=default_deny(data, index),
        flows=flow_analysis(data, index),
        lateral=lateral_analysis(data),
        responsibility=responsibility(data),
        not_assessed=not_assessed(data),
        custody=custody(data),
        groups=finding_groups(data),
        notes=notes,
    )
