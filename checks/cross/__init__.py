"""Cross-cutting checks: flow-log evidence, lateral movement, declared-vs-live drift."""

CHECKS: list[type] = []
