"""Offline evidence: files from air-gapped audits."""
