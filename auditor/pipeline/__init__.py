"""The run pipeline: plan -> collect (read-only) -> redact, hash, chain -> normalize -> check -> seal."""
