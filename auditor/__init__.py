"""Live compliance auditor and evidence collector for the network segmentation of AI clusters."""

__version__ = "0.1.0"
