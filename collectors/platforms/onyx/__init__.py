"""The onyx platform."""
