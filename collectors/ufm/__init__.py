"""NVIDIA UFM: InfiniBand partitions (P_Keys) read over UFM's REST API, read-only."""
