"""Collectors: one module or sub-package per source family, and the normalizers per platform."""
