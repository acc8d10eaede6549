"""Streamlit's, Gradio's, Dash's and NiceGUI's own widgets, each framework's form
(``apps/<framework>_widgets.py``) served once per test module by a process of its own, with what
its server-side change callbacks received: the value the app committed.

A test module takes a framework's fixture by importing it (``from tests.support.framework_widgets
import streamlit_widgets``, listed in its ``__all__``); the fixture skips, saying why, where the
framework is not installed. What each field is and how a hand-written Playwright test sets it is
in ``tests/pages/widgets/<framework>/catalog.json`` (the widget pages' format); ``by_hand`` runs
such a sequence.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page

from tests.support.frameworks import available, missing_reason, serve_app
from tests.support.paths import ROOT

NAMES = ("streamlit", "gradio", "dash", "nicegui")
CATALOGS = ROOT / "tests" / "pages" / "widgets"
COMMITS_ENV = "WIDGET_COMMITS"  # the file the apps append their commits to

# When a loaded app takes input: its widgets are drawn before the app can receive what they do
# (Streamlit's script still running, NiceGUI's socket not connected yet, Dash's callbacks not
# fetched), and a click then is lost.
_READY = {
    "streamlit": "() => document.querySelector('[data-testid=stApp]')"
    "?.getAttribute('data-test-script-state') === 'notRunning'",
    "gradio": "() => !!document.querySelector('gradio-app .main input')",
    "dash": "() => !!document.getElementById('sink') && !document.querySelector('[data-dash-is-loading]')",
    "nicegui": "() => !!(window.socket && window.socket.connected)",
}

_NOTHING = object()  # no commit of that field yet


def catalog(name: str) -> dict[str, Any]:
    """The framework's ``catalog.json``."""
    return dict(json.loads((CATALOGS / name / "catalog.json").read_text(encoding="utf-8")))


@dataclass
class Commits:
    """What the app's change callbacks received, in order, read from its commits file."""

    path: Path

    def all(self) -> list[dict[str, Any]]:
        if not self.path.exists():
            return []
        lines = self.path.read_text(encoding="utf-8").splitlines()
        return [json.loads(line) for line in lines if line.strip()]

    def last(self, name: str, default: Any = None) -> Any:
        """The value the field ``name`` committed last; ``default`` when it committed nothing."""
        values = [c["value"] for c in self.all() if c["field"] == name]
        return values[-1] if values else default

    def clear(self) -> None:
        self.path.write_text("", encoding="utf-8")

    def wait_for(self, name: str, value: Any, timeout: float = 5) -> Any:
        """The last value ``name`` committed once it is ``value``, or when ``timeout`` seconds
        passed (a server-side callback runs a moment after the browser sent it)."""
        deadline = time.monotonic() + timeout
        while True:
            last = self.last(name, _NOTHING)
            if last == value or time.monotonic() > deadline:
                return None if last is _NOTHING else last
            time.sleep(0.05)


@dataclass
class WidgetApp:
    """A framework's widget form, served: its URL, its commits, its catalog, how long it took to
    start."""

    name: str
    url: str
    commits: Commits
    started_in: float
    catalog: dict[str, Any] = field(default_factory=dict)

    def load(self, page: Page, timeout: float = 30_000) -> None:
        """A fresh load of the form (a new session of the app: every widget at its first value),
        returned once the app takes input; the commits file emptied."""
        self.commits.clear()
        page.goto(self.url + "/")
        page.wait_for_function(_READY[self.name], timeout=timeout)
        self.commits.clear()  # nothing a first render reported counts


def by_hand(page: Page, steps: list[list[Any]], timeout: float = 10_000) -> None:
    """A catalog entry's ``by_hand`` sequence run as Playwright runs it (README's step kinds)."""
    for step in steps:
        kind, selector, *args = step
        target = page.locator(selector)
        if kind == "click":
            target.click(timeout=timeout)
        elif kind == "fill":
            target.fill(args[0], timeout=timeout)
        elif kind == "type":
            target.press_sequentially(args[0], timeout=timeout)
        elif kind == "press":
            target.press(args[0], timeout=timeout)
        elif kind == "drag":
            box = target.bounding_box(timeout=timeout)
            assert box is not None, f"{selector} is not drawn"
            x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
            page.mouse.move(x, y)
            page.mouse.down()
            page.mouse.move(x + args[0], y, steps=8)
            page.mouse.up()
        else:
            raise ValueError(f"unknown by_hand step {step!r}")


def _serve(name: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[WidgetApp]:
    if not available(name):
        pytest.skip(missing_reason(name))
    folder = tmp_path_factory.mktemp(f"{name}_widgets")
    commits = Commits(folder / "commits.jsonl")
    started = time.monotonic()
    env = {COMMITS_ENV: str(commits.path)}
    with serve_app(name, folder / "app", script=f"{name}_widgets", env=env) as url:
        yield WidgetApp(name, url, commits, time.monotonic() - started, catalog(name))


@pytest.fixture(scope="module")
def streamlit_widgets(tmp_path_factory: pytest.TempPathFactory) -> Iterator[WidgetApp]:
    yield from _serve("streamlit", tmp_path_factory)


@pytest.fixture(scope="module")
def gradio_widgets(tmp_path_factory: pytest.TempPathFactory) -> Iterator[WidgetApp]:
    yield from _serve("gradio", tmp_path_factory)


@pytest.fixture(scope="module")
def dash_widgets(tmp_path_factory: pytest.TempPathFactory) -> Iterator[WidgetApp]:
    yield from _serve("dash", tmp_path_factory)


@pytest.fixture(scope="module")
def nicegui_widgets(tmp_path_factory: pytest.TempPathFactory) -> Iterator[WidgetApp]:
    yield from _serve("nicegui", tmp_path_factory)
