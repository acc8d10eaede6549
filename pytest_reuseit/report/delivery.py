"""Delivering a night's news to a receiver that may be down, slow or refusing: the alert webhook
and the Pushgateway share one rule.

A few attempts with a short backoff, never one started past a deadline, so a receiver that is
down costs a report seconds, not minutes; an answer that may change on the next attempt is
retried, any other refusal is not; what went wrong comes back as one line naming the receiver's
host only (a Slack or Teams webhook carries its token in the path, a gateway URL may carry a
password), never as an exception: the report itself still succeeds.
"""

from __future__ import annotations

import time
import urllib.error
from collections.abc import Callable
from urllib.parse import urlsplit

BACKOFF = 0.5
DEADLINE = 20.0
# Answers that may change on the next attempt (a receiver restarting, overloaded or rate-limiting);
# any other refusal (404 for a revoked webhook, 400 for a body it will not take, 501) would only repeat.
RETRIED = (408, 429, 500, 502, 503, 504)
MAX_REASON = 200

# One attempt: "" when delivered, else (what went wrong, whether another attempt may succeed).
Attempt = Callable[[], tuple[str, bool]]


def deliver(attempt: Attempt, *, attempts: int = 3, timeout: float = 5.0) -> tuple[str, int, float]:
    """Run ``attempt`` until it delivers or may not be retried: ("" or the last error, tries, seconds)."""
    start = time.monotonic()
    error = "not tried"
    tried = 0
    for n in range(max(1, attempts)):
        if n:
            pause = BACKOFF * 2 ** (n - 1)
            if time.monotonic() - start + pause + timeout > DEADLINE:
                break
            time.sleep(pause)
        tried += 1
        error, retry = attempt()
        if not error or not retry:
            break
    return error, tried, time.monotonic() - start


def failure_line(what: str, url: str, error: str, tried: int, seconds: float, consequence: str) -> str:
    return f"{what} {host(url)}: {error} ({tried} attempt{'s' if tried != 1 else ''}, {seconds:.1f} s); {consequence}"


def http_error(exc: BaseException) -> tuple[str, bool]:
    """What went wrong in one attempt of an HTTP exchange, and whether to try again."""
    if isinstance(exc, urllib.error.HTTPError):
        return f"answered {exc.code} {exc.reason}", exc.code in RETRIED
    if isinstance(exc, urllib.error.URLError):
        return reason(exc.reason), True
    if isinstance(exc, ValueError):  # a URL urllib cannot use: the next attempt would be the same
        return reason(exc), False
    return reason(exc), True  # a read that timed out, a connection reset mid-answer


def reason(exc: object) -> str:
    if isinstance(exc, TimeoutError) or "timed out" in str(exc):
        return "no answer in time"
    if isinstance(exc, ConnectionRefusedError):
        return "connection refused"
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror.lower()
    return (str(exc).splitlines() or [type(exc).__name__])[0][:MAX_REASON]


def host(url: str) -> str:
    """scheme://host:port of ``url``: what an error line may show of it."""
    try:
        parts = urlsplit(url if "://" in url else f"http://{url}")
        name = parts.hostname or ""
        port = f":{parts.port}" if parts.port else ""
    except ValueError:
        return "(unreadable URL)"
    return f"{parts.scheme}://{name}{port}" if name else "(no host)"
