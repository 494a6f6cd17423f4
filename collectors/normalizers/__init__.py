"""Normalizers: pure functions from one raw capture to typed facts."""
