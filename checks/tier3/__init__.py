"""tier3."""
