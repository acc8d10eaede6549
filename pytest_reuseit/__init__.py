"""pytest-reuseit: guarded web workflows run as pytest tests in a real browser."""

from __future__ import annotations

__version__ = "0.1.0"
