"""Under ``-n``, the workflow runs that took longest last time start first.

pytest-xdist hands items out in collection order, and each worker holds its next item before it
starts it. A long run collected near the end (a check that fails on purpose and waits out its
timeout, a cookie banner's pre check) then runs alone while the other worker has nothing left:
the example workflows took 49 s on two workers, 79 s serially, the last 8 s on one worker only.
Longest first (the classic LPT rule for parallel machines) leaves the short runs for the end, where
they fill both workers: 42 s. ``worksteal`` (the plugin's default under ``-n``) first splits the list
into one contiguous part per worker, and an idle worker takes from the end of a busy one's part: the
longest runs are dealt round the parts (1st, 3rd, 5th... to the first of two), so each part starts
with its longest and ends with its shortest. ``load`` hands items out one by one in list order, so
there the plain longest-first order is kept.

The durations are kept in pytest's own cache (``reuseit/durations``, beside what ``--lf`` keeps),
written by the controlling process when a session ends, whether it ran with ``-n`` or not, and
read by it when it starts its workers, which get them with their ``workerinput``. With no
cache (``-p no:cacheprovider``) or none recorded yet, the order is the collection's. A run with no
duration recorded (a new file, a new variation) goes first, as ``--nf`` puts new tests first:
nothing says it is short. Only workflow runs move, and only into the places workflow runs held;
Python tests keep theirs. A serial session keeps the collection order: it gains nothing.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import pytest

CACHE_KEY = "reuseit/durations"
# Where xdist's controller puts them in each worker's ``workerinput``: workers do not read the cache.
WORKER_KEY = "reuseit_durations"
# Runs kept in the cache at most: a suite's renamed or deleted files drop out, the oldest first.
_KEEP = 20_000


def slowest_first(
    items: list[pytest.Item], durations: dict[str, float], moves: Callable[[pytest.Item], bool], parts: int = 1
) -> None:
    """Reorder ``items`` in place: those ``moves`` accepts, longest recorded duration first (none
    recorded counts as longest), in the positions they held; ties keep their collection order.
    With ``parts`` > 1, dealt round that many contiguous parts, each longest first."""
    slots = [n for n, item in enumerate(items) if moves(item)]
    chosen = [items[n] for n in slots]
    chosen.sort(key=lambda item: -durations.get(item.nodeid, math.inf))  # sort is stable
    if parts > 1:
        chosen = [item for k in range(parts) for item in chosen[k::parts]]
    for n, item in zip(slots, chosen, strict=True):
        items[n] = item


def cached_durations(config: pytest.Config) -> dict[str, float]:
    """What the cache holds, or nothing when there is no cache or its entry is not ours."""
    cache = getattr(config, "cache", None)
    if cache is None:
        return {}
    raw: Any = cache.get(CACHE_KEY, {})
    if not isinstance(raw, dict):
        return {}
    return {k: float(v) for k, v in raw.items() if isinstance(k, str) and isinstance(v, int | float)}


class DurationLog:
    """Adds up each workflow run's setup, call and teardown time as the reports come in (from
    every worker, under xdist) and merges them into the cache when the session ends."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.seen: dict[str, float] = {}

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if "reuseit" in report.keywords:
            self.seen[report.nodeid] = self.seen.get(report.nodeid, 0.0) + report.duration

    def pytest_sessionfinish(self) -> None:
        cache = getattr(self.config, "cache", None)
        if cache is None or not self.seen:
            return
        merged = cached_durations(self.config)
        for nodeid in self.seen:
            merged.pop(nodeid, None)  # re-inserted last: the newest entries survive the trim
        merged.update({k: round(v, 3) for k, v in self.seen.items()})
        cache.set(CACHE_KEY, dict(list(merged.items())[-_KEEP:]))
