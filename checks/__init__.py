"""Built-in checks, grouped by tier, and the check contract."""
