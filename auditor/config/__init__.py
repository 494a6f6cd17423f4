"""The audit config (`auditor.yaml`): declared intent, sources, store and output."""

from auditor.config.loader import load_config
from auditor.config.models import AuditConfig, Intent

__all__ = ["AuditConfig", "Intent", "load_config"]
