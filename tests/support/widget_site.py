"""The widget pages (tests/pages/widgets: one form per component library) served on 127.0.0.1,
with what each page's own change callbacks commit, in order.

- ``/widgets/<lib>/...``: ``tests/pages/widgets/<lib>/`` with ``.suites/widgets/build/<lib>/``
  beside it (a React page's ``bundle.js``); ``/common.js`` (also ``/widgets/common.js``): the
  pages' shared script.
- ``/node_modules/...``: ``.suites/widgets/node_modules/`` (the libraries' browser builds).
- ``POST /commit`` ``{lib, field, value, page, seq}``: recorded (``page`` tells one load of a page
  from the next, ``seq`` is the commit's place on it: ``settle`` waits for them).
- ``GET /api/options?q=TEXT&list=NAME``: the labels of ``LISTS[NAME]`` containing TEXT, case-blind,
  answered 150 ms late (a real server's latency: an async field shows its options only then).

A test module takes the session fixture by importing it (``from tests.support.widget_site import
widget_site``); it skips, saying why, where ``ci/install.sh`` has not installed and bundled the
libraries. ``widget_catalog()`` lists every library's catalog entries for parametrizing.
"""

from __future__ import annotations

import json
import mimetypes
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, unquote, urlparse

import pytest
from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import Page

from tests.support.paths import PAGES, ROOT
from tests.support.serve import Served

WIDGET_PAGES = PAGES / "widgets"
SUITE = ROOT / ".suites" / "widgets"
BUILD = SUITE / "build"
NODE_MODULES = SUITE / "node_modules"
LATENCY = 0.15

# The lists an async field loads from the server (``list=NAME``). More than a page shows, and
# names that share words, so typing is what finds one.
LISTS: dict[str, list[str]] = {
    "customers": [
        "Adventure Works",
        "Alpine Ski House",
        "Blue Yonder Airlines",
        "Contoso Ltd",
        "Fabrikam Inc",
        "Fourth Coffee",
        "Litware Inc",
        "Margie's Travel",
        "Northwind Health",
        "Northwind Traders",
        "Proseware Inc",
        "Tailspin Toys",
        "Wide World Importers",
        "Wingtip Toys",
        "Woodgrove Bank",
    ],
    "countries": [
        "Austria",
        "Belgium",
        "Denmark",
        "Finland",
        "France",
        "Germany",
        "Ireland",
        "Italy",
        "Netherlands",
        "Norway",
        "Portugal",
        "Spain",
        "Sweden",
        "Switzerland",
        "United Kingdom",
    ],
}


def options(q: str, name: str) -> list[str]:
    """What ``/api/options`` answers: the labels of the list containing ``q``, case-blind."""
    needle = q.casefold()
    return [label for label in LISTS.get(name, []) if needle in label.casefold()]


@dataclass
class Commit:
    lib: str
    field: str
    value: Any
    page: str = ""
    seq: int = 0


@dataclass
class WidgetSite:
    """The served widget pages and the commits they posted."""

    base: str
    received: list[Commit] = field(default_factory=list)
    lock: threading.Condition = field(default_factory=threading.Condition)

    def url(self, lib: str) -> str:
        """The page of ``lib``; skips when it is a bundled page whose bundle was not built."""
        if (WIDGET_PAGES / lib / "entry.jsx").exists() and not (BUILD / lib / "bundle.js").exists():
            pytest.skip(f"{lib}: no .suites/widgets/build/{lib}/bundle.js (ci/install.sh bundles the widget pages)")
        return f"{self.base}/widgets/{lib}/index.html"

    def record(self, commit: Commit) -> None:
        with self.lock:
            self.received.append(commit)
            self.lock.notify_all()

    def commits(self, lib: str, field: str) -> list[Any]:
        """The values ``field`` of ``lib`` committed since the last ``clear()``, in order."""
        with self.lock:
            mine = [c for c in self.received if c.lib == lib and c.field == field]
        # In the order the page made them: its posts travel on connections of their own and the
        # server answers them in threads, so a slider's quick commits can land out of order.
        first: dict[str, int] = {}
        for i, c in enumerate(mine):
            first.setdefault(c.page, i)
        return [c.value for c in sorted(mine, key=lambda c: (first[c.page], c.seq))]

    def last(self, lib: str, field: str) -> Any:
        """The value ``field`` committed last (None when it committed nothing)."""
        values = self.commits(lib, field)
        return values[-1] if values else None

    def clear(self) -> None:
        with self.lock:
            self.received.clear()

    def settle(self, page: Page, timeout: float = 2.0) -> None:
        """Waits until every commit the page made (``window.__commits``) has reached the server:
        the page posts them without waiting, so a test reading ``last`` right after its last click
        could read the one before."""
        state = page.evaluate("() => [window.__pageId || '', (window.__commits || []).length]")
        page_id, made = state[0], int(state[1])
        deadline = time.monotonic() + timeout
        with self.lock:
            while sum(1 for c in self.received if c.page == page_id) < made:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError(f"the page made {made} commits; the server received fewer in {timeout} s")
                self.lock.wait(left)


def resolve(path: str) -> Path | None:
    """The file a GET of ``path`` serves, or None."""
    parts = [p for p in path.split("/") if p]
    if ".." in parts:
        return None
    candidates: list[Path] = []
    if parts in (["common.js"], ["widgets", "common.js"]):
        candidates = [WIDGET_PAGES / "common.js"]
    elif parts[:1] == ["node_modules"]:
        candidates = [NODE_MODULES.joinpath(*parts[1:])]
    elif parts[:1] == ["widgets"] and len(parts) >= 2:
        rest = parts[2:] or ["index.html"]
        candidates = [WIDGET_PAGES / parts[1] / Path(*rest), BUILD / parts[1] / Path(*rest)]
    for candidate in candidates:
        found = candidate / "index.html" if candidate.is_dir() else candidate
        if found.is_file():
            return found
    return None


def _content_type(found: Path) -> str:
    kind = mimetypes.guess_type(found.name)[0] or "application/octet-stream"
    if kind.startswith("text/") or kind.endswith(("javascript", "json")):
        kind += "; charset=utf-8"
    return kind


def _commit(data: bytes) -> Commit | None:
    try:
        posted = json.loads(data)
        return Commit(
            lib=str(posted["lib"]),
            field=str(posted["field"]),
            value=posted.get("value"),
            page=str(posted.get("page", "")),
            seq=int(posted.get("seq", 0)),
        )
    except (ValueError, KeyError, TypeError):
        return None


def _handler(site: WidgetSite) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"  # keep-alive: a page's dozens of module requests on few sockets

        def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - stdlib signature
            pass

        def do_GET(self) -> None:  # noqa: N802 - the stdlib's name
            url = urlparse(self.path)
            path = unquote(url.path)
            if path == "/api/options":
                query = parse_qs(url.query)
                time.sleep(LATENCY)
                body = json.dumps(options(query.get("q", [""])[0], query.get("list", [""])[0]))
                self._send(200, body.encode(), "application/json")
                return
            if path == "/favicon.ico":  # asked by every page: no 404 in its console
                self._send(204, b"", "image/x-icon")
                return
            found = resolve(path)
            if found is None:
                self._send(404, b"not found", "text/plain")
                return
            self._send(200, found.read_bytes(), _content_type(found))

        def do_POST(self) -> None:  # noqa: N802 - the stdlib's name
            length = int(self.headers.get("Content-Length") or 0)
            data = self.rfile.read(length)
            if urlparse(self.path).path != "/commit":
                self._send(404, b"not found", "text/plain")
                return
            commit = _commit(data)
            if commit is None:
                self._send(400, b"bad commit", "text/plain")
                return
            site.record(commit)
            self._send(204, b"", "text/plain")

        def _send(self, status: int, body: bytes, kind: str) -> None:
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Cache-Control", "no-store")
            self.end_headers()
            if body:
                self.wfile.write(body)

    return Handler


@pytest.fixture(scope="session")
def widget_site() -> Iterator[WidgetSite]:
    """The widget pages served on 127.0.0.1 for the session (skips where they are not installed)."""
    if not NODE_MODULES.is_dir() or not BUILD.is_dir():
        pytest.skip("no .suites/widgets/node_modules or build: ci/install.sh installs and bundles the widget pages")
    site = WidgetSite(base="")
    with Served(_handler(site)) as served:
        site.base = served.url
        yield site


def catalog(lib: str) -> dict[str, Any]:
    """``tests/pages/widgets/<lib>/catalog.json``."""
    loaded: dict[str, Any] = json.loads((WIDGET_PAGES / lib / "catalog.json").read_text(encoding="utf-8"))
    return loaded


def widget_libs() -> list[str]:
    """Every library with a catalog, by folder name."""
    return sorted(p.parent.name for p in WIDGET_PAGES.glob("*/catalog.json"))


def served(lib: str) -> bool:
    """Whether this server serves ``lib``'s page (a catalog with an ``app`` of its own, e.g. a
    Python framework's tool, is served by that app's process instead)."""
    return (WIDGET_PAGES / lib / "index.html").is_file()


def widget_catalog() -> list[tuple[str, dict[str, Any]]]:
    """Every library's catalog entries as ``(lib, entry)``, in folder then catalog order."""
    return [(lib, entry) for lib in widget_libs() for entry in catalog(lib)["fields"]]


def widget_params() -> list[Any]:
    """``widget_catalog()`` as ``pytest.param``s with ids ``lib-field``."""
    return [pytest.param(lib, entry, id=f"{lib}-{entry['field']}") for lib, entry in widget_catalog()]


def run_by_hand(page: Page, steps: list[list[Any]], timeout: float = 5000) -> None:
    """Runs a catalog entry's ``by_hand`` steps on ``page`` as a hand-written Playwright test does:
    ``["click", SEL]``, ``["fill", SEL, TEXT]``, ``["type", SEL, TEXT]`` (key by key), ``["press",
    SEL, KEY]``, ``["drag", SEL, DX]`` (the mouse from the element's centre, DX pixels across),
    ``["select", SEL, LABEL or [LABELS]]`` (a native ``<select>``: Playwright's select_option)."""
    for action, selector, *args in steps:
        target = page.locator(selector)
        if action == "click":
            target.click(timeout=timeout)
        elif action == "fill":
            target.fill(str(args[0]), timeout=timeout)
        elif action == "type":
            target.press_sequentially(str(args[0]), timeout=timeout)
        elif action == "press":
            target.press(str(args[0]), timeout=timeout)
        elif action == "select":
            target.select_option(label=args[0], timeout=timeout)
        elif action == "drag":
            box = target.bounding_box(timeout=timeout)
            assert box is not None, f"{selector} is not shown"
            x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
            page.mouse.move(x, y)
            page.mouse.down()
            page.mouse.move(x + float(args[0]), y, steps=8)
            page.mouse.up()
        else:
            raise ValueError(f"unknown by_hand action {action!r} (click, fill, type, press, select, drag)")


def page_last(page: Page, field: str) -> Any:
    """What ``field`` committed last on this load of the page (``window.__commits``), or None."""
    return page.evaluate(
        "(f) => { const c = (window.__commits || []).filter((x) => x.field === f); return c.length ? c[c.length - 1].value : null; }",
        field,
    )


def plain_playwright_attempt(page: Page, entry: dict[str, Any], timeout: float = 1000) -> bool:
    """The natural plain-Playwright attempt at an entry's op on a fresh page, with a short timeout:
    ``get_by_label(label)`` then ``select_option(option)``, ``check()``, ``uncheck()`` or
    ``fill(value)`` (the first value of a list), then the field left as the entry says it commits
    (``commits_on``: Enter, or leaving it). True when the page committed the entry's value."""
    ((name, args),) = entry["op"].items()
    target = page.get_by_label(args["label"])
    try:
        if name == "select":
            target.select_option(args["option"], timeout=timeout)
        elif name == "check":
            target.check(timeout=timeout)
        elif name == "uncheck":
            target.uncheck(timeout=timeout)
        elif name == "fill":
            value = args["value"]
            target.fill(str(value[0] if isinstance(value, list) else value), timeout=timeout)
        else:
            raise ValueError(f"no plain Playwright call for {name!r}")
        if entry.get("commits_on") == "enter":
            target.press("Enter", timeout=timeout)
        elif entry.get("commits_on") == "blur":
            target.blur(timeout=timeout)
    except PlaywrightError:
        return False
    page.wait_for_timeout(50)  # a library that commits from a timer or a microtask after the event
    return bool(page_last(page, entry["field"]) == entry["commits"])
