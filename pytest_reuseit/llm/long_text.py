"""Model text kept out of reports when it is long: a bounded excerpt there, the full text in the run folder.

A model may answer a 2 MB explanation. Every report (terminal, junit, ``result.json``, Allure)
shows what the run recorded, so the bound is applied where the answer enters the run: each
string field of an answer longer than :data:`LIMIT` is cut, with a note naming the file of the
run folder that holds the whole text. The runtime writes those files with the run's artifacts.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path

from pydantic import BaseModel

LIMIT = 2000
FOLDER = "model-text"


class LongTexts:
    """Full texts of the answers cut during one run (thread-safe: votes run in parallel)."""

    def __init__(self, mask: Callable[[str], str] = lambda text: text, limit: int = LIMIT) -> None:
        self.mask = mask
        self.limit = limit
        self.kept: dict[str, str] = {}
        self._lock = threading.Lock()

    def clip(self, text: str, label: str) -> str:
        if len(text) <= self.limit:
            return text
        with self._lock:
            name = f"{FOLDER}/{label}-{len(self.kept) + 1}.txt"
            self.kept[name] = text
        more = len(text) - self.limit
        return f"{text[: self.limit]}… ({more:,} more characters, full text in {name} of the run folder)"

    def clip_answer(self, answer: BaseModel, label: str) -> BaseModel:
        """A copy of ``answer`` with every long string (also inside lists) cut."""
        changes: dict[str, object] = {}
        for name, value in answer:
            if isinstance(value, str) and len(value) > self.limit:
                changes[name] = self.clip(value, f"{label}-{name}")
            elif isinstance(value, list) and any(isinstance(v, str) and len(v) > self.limit for v in value):
                changes[name] = [self.clip(v, f"{label}-{name}") if isinstance(v, str) else v for v in value]
        return answer.model_copy(update=changes) if changes else answer

    def write(self, folder: Path) -> list[Path]:
        """Write the kept texts (secrets masked, as everywhere else) under ``folder``."""
        written = []
        with self._lock:
            items = list(self.kept.items())
        for name, text in items:
            path = folder / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(self.mask(text), encoding="utf-8")
            written.append(path)
        return written
