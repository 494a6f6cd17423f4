"""Errors of distributed collection."""

from __future__ import annotations

from auditor.errors import AuditorError


class DistributedError(AuditorError):
    hint = "see `auditor worker --help` and the README's 'Distributed collection'"
