"""Where the import's sources are listed, and how a file is told to be one of them.

A source is a :class:`~.source.Source` its family's folder declares (``playwright/``,
``chrome/``, ``selenium/``): adding one is a new folder and its line in :data:`SOURCES`
(docs/import.md, "Adding a source"). The rest of the import never names a source.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from . import chrome, playwright, selenium
from .demo import Demonstration, UnreadableInput
from .source import Source

# In the order a file given by name is offered to them: the first that says it is its file reads
# it. Those that tell their files by what they hold (a zip, codegen's first line) come before
# those that go by the file's name alone (.json: a Chrome recording).
SOURCES: tuple[Source, ...] = (
    *playwright.SOURCES,  # traces (Playwright Test, pytest-playwright); codegen's JSONL
    *selenium.SOURCES,  # Selenium IDE projects (.side); Katalon Recorder suites (.html)
    *chrome.SOURCES,  # Chrome DevTools Recorder exports (.json)
)


def find_sources(paths: list[str]) -> list[Path]:
    """The files to import: those given, and in folders every file one of the sources finds its
    own (and every file that looks like one but is damaged: it gets its line, the others are read)."""
    out: list[Path] = []
    for p in map(Path, paths):
        out.extend(sorted(f for f in _files_in(p) if _looks_importable(f)) if p.is_dir() else [p])
    return out


def _files_in(folder: Path) -> list[Path]:
    """Every regular file under ``folder``, links to folders not followed (a link loop ends
    nowhere); a pipe, a device or a link to nowhere is no source (reading a pipe waits for ever)."""
    found: list[Path] = []
    for root, _, names in os.walk(folder, onerror=lambda _: None, followlinks=False):
        found.extend(f for f in (Path(root, name) for name in names) if _regular(f))
        if len(found) > 100_000:
            break
    return found


def _regular(f: Path) -> bool:
    try:
        return stat.S_ISREG(f.stat().st_mode)
    except (OSError, ValueError):
        return False


def _looks_importable(f: Path) -> bool:
    """Whether a source finds ``f`` its own; a file that breaks the look in a way nobody foresaw
    gets its line."""
    try:
        return any(source.in_folder(f) for source in SOURCES)
    except Exception:  # noqa: BLE001 - one odd file must not stop the look at the others
        return True


def source_of(path: Path) -> Source:
    """The source that reads the file at ``path``, by what the file is (not by its name alone)."""
    if not path.exists():
        raise UnreadableInput(f"{path}: no such file")
    if path.is_dir():
        raise UnreadableInput(f"{path}: a folder with no trace, recording or codegen file in it")
    if not _regular(path):
        raise UnreadableInput(f"{path}: not a regular file (a pipe or a device is read by nothing here)")
    with path.open("rb") as f:
        head = f.read(2)
    if not head:
        raise UnreadableInput(f"{path}: an empty file")
    for source in SOURCES:
        if source.given(path, head):
            return source
    names = [s.name for s in SOURCES]
    raise UnreadableInput(f"{path}: not {', '.join(names[:-1])} or {names[-1]}")


def read_source(path: Path) -> list[Demonstration]:
    """The demonstrations in one file (a project or a suite holds several tests)."""
    return source_of(path).read(path)
