"""The response cache: one JSON file per answer, keyed by a hash of everything that decides it.

The key covers the model, the schema, the full messages (image bytes included, as their data
URLs) and the sampling parameters, so an unchanged page asked the same question gets the stored
answer and anything else asks the model. Writes go to a temporary file and are renamed into
place under a per-key file lock, so parallel workers (``-n 4``) neither corrupt nor lose entries,
and two workers asking the same question wait for one answer instead of paying twice. The lock's
file is removed when the lock is released, so the cache folder holds answers only.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import time
from pathlib import Path
from types import TracebackType
from typing import Any

from filelock import FileLock, Timeout

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows: filelock's lock, whose files stay
    fcntl = None  # type: ignore[assignment]

from ..atomic import write_text_atomic

log = logging.getLogger(__name__)


def cache_key(material: dict[str, Any]) -> str:
    blob = json.dumps(material, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


class ResponseCache:
    def __init__(self, folder: str | Path) -> None:
        self.folder = Path(folder)

    def _path(self, key: str) -> Path:
        return self.folder / key[:2] / f"{key}.json"

    def lock(self, key: str) -> KeyLock | FileLock:
        path = self._path(key)
        path.parent.mkdir(parents=True, exist_ok=True)
        if fcntl is None:  # pragma: no cover
            return FileLock(str(path) + ".lock", timeout=300)
        return KeyLock(str(path) + ".lock", timeout=300)

    def get(self, key: str) -> dict[str, Any] | None:
        path = self._path(key)
        try:
            entry = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return None
        except (OSError, ValueError) as exc:
            log.warning("ignoring unreadable cache entry %s: %s", path, exc)
            return None
        return entry if isinstance(entry, dict) and "answer" in entry else None

    def put(self, key: str, entry: dict[str, Any]) -> None:
        write_text_atomic(self._path(key), json.dumps(entry, indent=1, sort_keys=True))

    def entries(self) -> int:
        return sum(1 for _ in self.folder.glob("*/*.json")) if self.folder.is_dir() else 0


class KeyLock:
    """An exclusive lock on one cache key, across threads and processes, whose file is removed on release.

    Removing a lock file is safe with this protocol: the holder unlinks the file *before* unlocking,
    and whoever acquires a lock checks that the file it locked is still the one at the path (else it
    locked a removed file and starts over on the new one).
    """

    def __init__(self, path: str, timeout: float) -> None:
        self.path = path
        self.timeout = timeout
        self._fd: int | None = None

    def __enter__(self) -> KeyLock:
        deadline = time.monotonic() + self.timeout
        while True:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(fd)
                if time.monotonic() > deadline:
                    raise Timeout(self.path) from None
                time.sleep(0.02)
                continue
            try:
                current = os.stat(self.path).st_ino == os.fstat(fd).st_ino
            except FileNotFoundError:
                current = False
            if current:
                self._fd = fd
                return self
            os.close(fd)  # the previous holder removed this file: lock the new one

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        assert self._fd is not None
        try:
            os.unlink(self.path)
        except FileNotFoundError:
            pass
        fcntl.flock(self._fd, fcntl.LOCK_UN)
        os.close(self._fd)
        self._fd = None
