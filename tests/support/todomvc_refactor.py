"""TodoMVC after a refactor that renames its ids and a class, the app otherwise the same; and
TodoMVC with real bugs made in its code, or harmless changes (benchmarks/bench_import.py).

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
    return make_variant(package, into, refactor=True)


# Real bugs, each one edit of the app's own code: (file under examples/vanillajs, old, new).
BUGS: dict[str, tuple[str, str, str]] = {
    "counter off by one": (
        "js/template.js",
        "'<strong>' + activeTodos + '</strong> item'",
        "'<strong>' + (activeTodos + 1) + '</strong> item'",
    ),
    "plural the wrong way round": ("js/template.js", "activeTodos === 1 ? '' : 's'", "activeTodos === 1 ? 's' : ''"),
    "Active filter shows every todo": (
        "js/controller.js",
        "that.model.read({ completed: false }, function (data) {\n\t\t\tthat.view.render('showEntries', data);",
        "that.model.read(function (data) {\n\t\t\tthat.view.render('showEntries', data);",
    ),
    "Clear completed removes nothing": ("js/controller.js", "\t\t\t\tthat.removeItem(item.id);", "\t\t\t\tvoid item;"),
    "a new todo is not saved": (
        "js/store.js",
        "todos.push(updateData);\n\t\t\tlocalStorage[this._dbName] = JSON.stringify(data);",
        "todos.push(updateData);",
    ),
    "a completed row loses its class": (
        "js/view.js",
        "listItem.className = completed ? 'completed' : '';",
        "listItem.className = '';",
    ),
    "a new todo goes to the top": ("js/store.js", "todos.push(updateData);", "todos.unshift(updateData);"),
}
# Changes a user would not call a bug: the page's words and layout around the app.
HARMLESS: dict[str, tuple[str, str, str]] = {
    "footer hint reworded": (
        "index.html",
        "<p>Double-click to edit a todo</p>",
        "<p>Double-click a todo to edit it</p>",
    ),
    "a line added to the footer": ("index.html", "<p>Part of", "<p>Served locally</p>\n\t\t\t<p>Part of"),
}


def make_variant(
    package: Path, into: Path, edit: tuple[str, str, str] | None = None, *, refactor: bool = False
) -> Path:
    """A copy of the package's vanillajs example with one edit of its code (and, with ``refactor``,
    the renames); an edit whose text is not found is an error, not a silent copy of the original."""
    if into.exists():
        shutil.rmtree(into)
    example = Path("examples/vanillajs")
    (into / "examples").mkdir(parents=True)
    shutil.copytree(package / example, into / example)
    if (package / "learn.json").exists():
        shutil.copy(package / "learn.json", into / "learn.json")
    if edit is not None:
        name, old, new = edit
        target = into / example / name
        text = target.read_text(encoding="utf-8")
        if old not in text:
            raise ValueError(f"{name}: {old!r} is not in the file: the variant would be the original")
        target.write_text(text.replace(old, new, 1), encoding="utf-8")
    if refactor:
        files = [into / example / "index.html", *(into / example / "js").glob("*.js")]
        files.append(into / example / "bower_components/todomvc-common/base.css")
        for f in files:
            f.write_text(_rename(f.read_text(encoding="utf-8")), encoding="utf-8")
    return into
