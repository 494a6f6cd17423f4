"""The ios platform."""
