"""The response cache: one JSON file per answer, keyed by a hash of everything that decides it.

The key covers the model, the schema, the full messages (image bytes included, as their data
URLs) and the sampling parameters, so an unchanged page asked the same question gets the stored
answer and anything else asks the model. Writes go to a temporary file and are renamed into
place under a per-key file lock, so parallel workers (``-n 4``) neither corrupt nor lose entries,
and two workers asking the same question wait for one answer instead of paying twice.
"""

from __future__ import annotations

import hashlib
import json
import logging
from pathlib import Path
from typing import Any

from filelock import FileLock

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

    def lock(self, key: str) -> FileLock:
        path = self._path(key)
        path.parent.mkdir(parents=True, exist_ok=True)
        return FileLock(str(path) + ".lock", timeout=300)

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
