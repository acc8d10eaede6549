"""How long a server asks us to wait before the next request (``Retry-After``)."""

from __future__ import annotations

import time
from collections.abc import Mapping
from email.utils import parsedate_to_datetime

#: Longest wait taken from a server's header; a longer one is cut to this (the call budget still applies).
MAX_WAIT = 60.0


def retry_after(headers: Mapping[str, str]) -> float | None:
    """Seconds from ``retry-after-ms`` or ``retry-after`` (seconds or an HTTP date), bounded; None if absent."""
    value: float | None = None
    ms = headers.get("retry-after-ms")
    if ms is not None:
        try:
            value = float(ms) / 1000
        except ValueError:
            value = None
    raw = headers.get("retry-after")
    if value is None and raw is not None:
        try:
            value = float(raw)
        except ValueError:
            try:
                value = parsedate_to_datetime(raw).timestamp() - time.time()
            except (TypeError, ValueError, IndexError):
                value = None
    if value is None:
        return None
    return max(0.0, min(value, MAX_WAIT))
