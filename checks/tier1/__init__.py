"""tier1."""
