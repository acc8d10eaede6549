"""TodoMVC after a refactor that renames its ids and a class, the app otherwise the same.

The import tests and the import benchmark serve this copy beside the original: a suite that
finds elements by ``#new-todo`` or ``.toggle`` fails on it although every feature works, where a
workflow that finds them as a person does (role, label, placeholder) passes, and one whose
step used the old id recovers through its fallback, naming it. The renames are applied to the
HTML, the scripts and the style sheet alike, so the page looks and behaves as before.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

# Old id or class -> new one (the page's ids; the checkbox of each row's class).
ID_RENAMES = {
    "new-todo": "new-entry",
    "todo-list": "entries",
    "todo-count": "entry-count",
    "clear-completed": "clear-done",
    "toggle-all": "check-every",
}
CLASS_RENAMES = {"toggle": "tick"}


def _rename(text: str) -> str:
    for old, new in ID_RENAMES.items():
        text = re.sub(rf"(?<=[#\"'\s=]){re.escape(old)}(?![\w-])", new, text)
    for old, new in CLASS_RENAMES.items():
        text = re.sub(rf"\.{old}(?![\w-])", f".{new}", text)
        text = re.sub(rf'class="{old}"', f'class="{new}"', text)
    return text


def make_refactored(package: Path, into: Path) -> Path:
    """A copy of the npm package at ``package`` with the vanillajs example refactored; returns ``into``."""
    if into.exists():
        shutil.rmtree(into)
    example = Path("examples/vanillajs")
    (into / "examples").mkdir(parents=True)
    shutil.copytree(package / example, into / example)
    if (package / "learn.json").exists():
        shutil.copy(package / "learn.json", into / "learn.json")
    files = [into / example / "index.html", *(into / example / "js").glob("*.js")]
    files.append(into / example / "bower_components/todomvc-common/base.css")
    for f in files:
        f.write_text(_rename(f.read_text(encoding="utf-8")), encoding="utf-8")
    return into
