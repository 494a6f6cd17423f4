"""The nxos platform."""
