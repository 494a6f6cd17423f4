"""Alembic migrations of the store. Every schema change is a migration."""

from pathlib import Path

LOCATION = Path(__file__).resolve().parent
