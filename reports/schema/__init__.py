"""JSON Schemas of the machine-readable reports, shipped as package data so consumers can validate."""

from __future__ import annotations

import json
from importlib.resources import files
from typing import Any

REPORT_SCHEMA_FILE = "report.schema.json"


def load_report_schema() -> dict[str, Any]:
    """The JSON report's schema (draft 2020-12), read from the installed package."""
    text = files(__name__).joinpath(REPORT_SCHEMA_FILE).read_text(encoding="utf-8")
    schema: dict[str, Any] = json.loads(text)
    return schema
