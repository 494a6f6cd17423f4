"""Live Kubernetes collection through the official client, read-only (see `readonly.py`)."""
