"""The session's model bill, and the limit past which no more calls are made (``--reuseit-max-cost``).

In one process the spend is a number in memory. Under pytest-xdist each worker is its own
process, so the workers of one session share a small ledger file (named after xdist's test-run
id) updated under a file lock: the limit holds for the session as a whole, not per worker. The
check comes before each call and the cost is added after it, so calls already in flight when the
limit is reached still finish (by at most one call per worker and vote).
"""

from __future__ import annotations

import json
import os
import threading
import time
from pathlib import Path

from filelock import FileLock

from ..atomic import write_text_atomic
from ..errors import BrokenRun

LEDGER_DIR = ".reuseit/cost"
STALE_AFTER = 24 * 3600  # ledgers of sessions older than this are removed


class CostLimitReached(BrokenRun):
    """The session spent its model budget: checks that need a call cannot be judged (the run is broken)."""


class CostGuard:
    def __init__(self, limit: float, ledger: Path | None = None) -> None:
        self.limit = limit
        self.ledger = ledger
        self._spent = 0.0
        self._lock = threading.Lock()
        if ledger is not None:
            ledger.parent.mkdir(parents=True, exist_ok=True)
            _remove_stale(ledger.parent)

    @property
    def spent(self) -> float:
        if self.ledger is None:
            with self._lock:
                return self._spent
        with FileLock(str(self.ledger) + ".lock", timeout=30):
            return _read(self.ledger)

    def check(self) -> None:
        """Raise when the limit is reached: no more calls this session."""
        if self.limit <= 0:
            return
        spent = self.spent
        if spent >= self.limit:
            raise CostLimitReached(
                f"model cost limit reached: ${spent:.4f} spent this session, limit ${self.limit:.4f} "
                "(--reuseit-max-cost); no more model calls, so this could not be judged"
            )

    def add(self, cost: float) -> None:
        if cost <= 0:
            return
        if self.ledger is None:
            with self._lock:
                self._spent += cost
            return
        with FileLock(str(self.ledger) + ".lock", timeout=30):
            write_text_atomic(self.ledger, json.dumps({"spent": _read(self.ledger) + cost}))


def session_ledger(root: Path) -> Path | None:
    """The shared ledger of this xdist session (None outside xdist: the spend stays in memory)."""
    run = os.environ.get("PYTEST_XDIST_TESTRUNUID")
    return root / LEDGER_DIR / f"{run}.json" if run else None


def _read(path: Path) -> float:
    try:
        return float(json.loads(path.read_text(encoding="utf-8"))["spent"])
    except (OSError, ValueError, KeyError, TypeError):
        return 0.0


def _remove_stale(folder: Path) -> None:
    now = time.time()
    # A session's ledger and its lock file (filelock leaves the file in place on release).
    for old in [*folder.glob("*.json"), *folder.glob("*.json.lock")]:
        try:
            if now - old.stat().st_mtime > STALE_AFTER:
                old.unlink()
        except OSError:
            pass
