from __future__ import annotations


class AppUnavailable(Exception):
    """An application could not be started; the message says why and what to do."""
