"""Emulated network devices for tests and benchmarks: an asyncssh CLI server that answers each
platform's commands with captured outputs, and an eAPI JSON-RPC server over HTTPS with its own CA.

Every command a server receives is logged (`CommandLog`) and checked against an allowlist kept here,
independently of the collector's own guard, so a guard bug cannot hide itself.
"""
