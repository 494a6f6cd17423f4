"""tier2."""
