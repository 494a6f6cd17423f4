"""The SQL store: runs, targets, raw captures (evidence), normalized facts, findings and problems."""
