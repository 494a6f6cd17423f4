"""The sonic platform."""
