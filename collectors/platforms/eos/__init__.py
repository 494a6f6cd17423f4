"""The eos platform."""
