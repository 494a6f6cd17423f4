"""Policies declared as code (`sources.declared`), collected for comparison with the live ones."""
