"""The pages of one run and which one is current.

A run starts on one page; a click may open a pop-up window or a ``target=_blank`` tab, a page may
close itself, ``confirm()`` may ask something. Everything that acts on or looks at "the page"
(ops, DOM assertions, screenshots, the agent) asks this holder for the current one instead of
keeping a ``Page`` of its own, so following a pop-up is one assignment here.

It also answers and records dialogs (dismissed unless told otherwise, as Playwright does) and
records downloads, so the report can list them.
"""

from __future__ import annotations

import itertools
import logging
import re
import weakref
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from playwright.sync_api import BrowserContext, Dialog, Page
from playwright.sync_api import Error as PlaywrightError

log = logging.getLogger(__name__)


@dataclass
class DialogRecord:
    """A dialog the page showed and how it was answered."""

    type: str  # alert | confirm | prompt | beforeunload
    message: str
    answer: str  # accepted | dismissed
    page: str = ""  # the page that showed it (url)


@dataclass
class DownloadRecord:
    """A file the page sent, saved under the run's output folder."""

    name: str  # the file name the site suggested
    path: str  # where it was saved
    url: str = ""
    size: int = 0


@dataclass(frozen=True)
class DialogPolicy:
    """How to answer the next dialogs: accept or not, and the text for a ``prompt()``."""

    accept: bool = False
    text: str | None = None

    @classmethod
    def of(cls, answer: Any) -> DialogPolicy:
        """From the format's ``dialog:`` value (``accept`` | ``dismiss`` | ``{accept, text}``)."""
        if answer is None or answer == "dismiss":
            return cls(False)
        if answer == "accept":
            return cls(True)
        return cls(bool(answer.accept), answer.text)


class Pages:
    """Every page of the run's browser context in open order, each one's opener, and the current one.

    ``page`` is the current page. A page that opens (pop-up, new tab) is recorded with its opener but
    does not become current by itself: ``new_page: true`` or ``switch_page`` make it current. When the
    current page closes, its opener (or else the most recent open page) becomes current again.
    """

    # The holder following each browser context, so code that is handed a plain Page (the agent,
    # through the engine's Agent port) can find the run's pages: :meth:`of`.
    _holders: weakref.WeakKeyDictionary[BrowserContext, Pages] = weakref.WeakKeyDictionary()

    def __init__(self, page: Page, dialog: DialogPolicy | None = None) -> None:
        self.context: BrowserContext = page.context
        self.folder = "."  # where the run's relative file paths (uploads) are looked up
        self.order: list[Page] = []
        self.openers: dict[int, Page | None] = {}
        self.dialogs: list[DialogRecord] = []
        self.downloads: list[DownloadRecord] = []
        self.default_dialog = dialog or DialogPolicy()
        self.dialog = self.default_dialog  # the policy in force for the op running now
        self.visited: set[int] = set()  # pages that were current at some time
        self._current = page
        for existing in self.context.pages:
            self._track(existing, None)
        self._track(page, None)
        self.visited.add(id(page))
        self.context.on("page", self._on_page)
        Pages._holders[self.context] = self

    @classmethod
    def wrap(cls, target: Page | Pages) -> Pages:
        """``target`` as a holder: a page gets the holder already following its context (started
        afresh on that page, so two runs on one page never answer the same dialog twice) or a new one."""
        if isinstance(target, Pages):
            return target
        holder = cls.of(target)
        if holder is None:
            return cls(target)
        holder.restart(target)
        return holder

    def restart(self, page: Page) -> None:
        """Begin a new run on ``page``: it is the main page; earlier records are dropped."""
        self.order = [page] + [p for p in self.order if p is not page and not p.is_closed()]
        self.openers = {id(p): None for p in self.order}
        self.dialogs, self.downloads = [], []
        # Pages still open from an earlier run were not opened by this one: never "unvisited".
        self.visited = {id(p) for p in self.order}
        self._current = page
        self.dialog = self.default_dialog

    @classmethod
    def of(cls, page: Page) -> Pages | None:
        """The holder following ``page``'s context, if a run made one."""
        try:
            return cls._holders.get(page.context)
        except (TypeError, AttributeError):
            return None

    # ------------------------------------------------------------------ which page

    @property
    def page(self) -> Page:
        """The current page (its opener, when it closed and the close event is already known)."""
        if self._current.is_closed():
            self._on_close(self._current)
        return self._current

    @property
    def main(self) -> Page:
        return self.order[0]

    def open_pages(self) -> list[Page]:
        return [p for p in self.order if not p.is_closed()]

    def index(self, page: Page | None = None) -> int:
        return self.order.index(page or self._current)

    def name(self, page: Page | None = None) -> str:
        """How reports name a page: ``page 2 "Add publisher" (http://...)``; the main page is page 0."""
        pg = page or self._current
        try:
            title = pg.title() if not pg.is_closed() else ""
        except PlaywrightError:
            title = ""
        which = "main page" if pg is self.order[0] else f"page {self.order.index(pg)}"
        return f'{which} "{title}" ({pg.url})' if title else f"{which} ({pg.url})"

    def set_current(self, page: Page) -> None:
        self._track(page, self._current)
        self._current = page
        self.visited.add(id(page))
        try:
            page.bring_to_front()
        except PlaywrightError:
            pass

    def unvisited(self) -> list[Page]:
        """Pages that opened during the run and were never made current."""
        return [p for p in self.order if id(p) not in self.visited]

    # ------------------------------------------------------------------ opening and closing

    def _track(self, page: Page, opener: Page | None) -> None:
        if any(p is page for p in self.order):
            return
        self.order.append(page)
        self.openers[id(page)] = opener
        page.on("dialog", self._on_dialog)
        page.on("close", self._on_close)

    def _on_page(self, page: Page) -> None:
        try:
            opener = page.opener()
        except PlaywrightError:
            opener = None
        self._track(page, opener or self._current)

    def _on_close(self, page: Page) -> None:
        if page is not self._current:
            return
        nxt = self.openers.get(id(page))
        while nxt is not None and nxt.is_closed():
            nxt = self.openers.get(id(nxt))
        if nxt is None:
            still = self.open_pages()
            nxt = still[-1] if still else None
        if nxt is not None:
            log.info("the current page closed; back on %s", nxt.url)
            self._current = nxt

    @contextmanager
    def expect_new_page(self, timeout_ms: float) -> Iterator[Any]:
        """Around an op that opens a page: wait (up to ``timeout_ms``) for it, then make it current.

        Raises Playwright's TimeoutError when no page opened; the op layer says what that means.
        """
        with self.context.expect_page(timeout=timeout_ms) as info:
            yield info
        new = info.value
        until_loaded(new, timeout_ms)
        self._track(new, self._current)
        self.set_current(new)

    def switch(self, target: Any) -> Page:
        """``main`` | ``last`` | an index in open order | a :class:`~..workflow.op_args.PageUrl`."""
        pages = self.open_pages()
        if target == "main":
            found = self.order[0] if not self.order[0].is_closed() else None
        elif target == "last":
            found = pages[-1] if pages else None
        elif isinstance(target, int):
            found = self.order[target] if target < len(self.order) and not self.order[target].is_closed() else None
        else:
            found = next((p for p in reversed(pages) if _url_matches(p.url, target.url)), None)
        if found is None:
            raise LookupError(self._no_such_page(target))
        self.set_current(found)
        return found

    def _no_such_page(self, target: Any) -> str:
        listed = "; ".join(f"{self.order.index(p)}: {p.url}" for p in self.open_pages())
        what = target if isinstance(target, str | int) else f"url {_describe_url(target.url)}"
        return f"no open page matches {what} (open pages: {listed or 'none'})"

    def close_current(self) -> None:
        page = self._current
        page.close()
        self._on_close(page)  # the close event may come later; be current on the opener now

    # ------------------------------------------------------------------ dialogs and downloads

    def answer_with(self, policy: DialogPolicy | None) -> None:
        """Answer dialogs from now on as ``policy`` says (None: the workflow's default).

        Set when each op starts and left in force after it: a dialog raised by a click may reach
        us just after the click returned, and must still get that op's answer.
        """
        self.dialog = policy or self.default_dialog

    def _on_dialog(self, dialog: Dialog) -> None:
        policy = self.dialog
        try:
            url = dialog.page.url if dialog.page is not None else ""
        except PlaywrightError:
            url = ""
        record = DialogRecord(dialog.type, dialog.message, "accepted" if policy.accept else "dismissed", url)
        self.dialogs.append(record)
        try:
            if policy.accept:
                dialog.accept(policy.text) if policy.text is not None and dialog.type == "prompt" else dialog.accept()
            else:
                dialog.dismiss()
        except PlaywrightError as exc:  # the page went away with its dialog: nothing left to answer
            log.info("could not answer a %s dialog: %s", dialog.type, exc)

    def last_dialog(self) -> DialogRecord | None:
        return self.dialogs[-1] if self.dialogs else None

    def last_download(self) -> DownloadRecord | None:
        return self.downloads[-1] if self.downloads else None


def _url_matches(url: str, want: Any) -> bool:
    if isinstance(want, str):
        return want in url
    if want.equals is not None:
        return bool(url == want.equals)
    if want.contains is not None:
        return want.contains in url
    return re.search(want.matches, url) is not None


def _describe_url(want: Any) -> str:
    if isinstance(want, str):
        return f"containing {want!r}"
    for key in ("equals", "contains", "matches"):
        if getattr(want, key) is not None:
            return f"{key} {getattr(want, key)!r}"
    return "?"


# How long an op waits for a parsed page's scripts after the document itself. Async scripts delay
# the load event; they are what moves the focus or wires the controls on load.
LOAD_WAIT_MS = 2_000


def until_loaded(page: Page, timeout_ms: float) -> None:
    """Let a page finish loading before acting on it, as a person would.

    The document is waited for up to ``timeout_ms``, then its load event (the async scripts) up to
    :data:`LOAD_WAIT_MS` more. Sites move the focus and wire their controls from such scripts:
    Django's admin focuses a form's first field from an async script, so a value typed into a
    later field of a page still loading goes into the first one. A page whose load never comes
    (a resource that hangs) is acted on as it is after that; one already loaded returns at once.
    Opening a page (``start_url``, ``goto``, ``back``, ``reload``) waits the same way: a hung
    frame is the site's fault for the checks to judge, not a run that cannot be judged.
    """
    try:
        page.wait_for_load_state("domcontentloaded", timeout=timeout_ms)
        page.wait_for_load_state("load", timeout=min(timeout_ms, LOAD_WAIT_MS))
    except PlaywrightError:
        pass  # timed out or closed: the op itself finds out and says so


# Set on the page before a history step: a page that comes back without it and without a network
# response is a different document the browser kept (the back/forward cache).
_MARK = "__reuseitHistoryStep"
_STEPS = itertools.count(1)


def history_step(page: Page, method: str, navigation_ms: float, action_ms: float) -> str:
    """``page.go_back`` / ``go_forward`` / ``reload``, waited for as :func:`until_loaded` does;
    '' when it was done, else why not (there was nowhere to go).

    A browser reached over CDP keeps Chromium's back/forward cache (Playwright gives only the
    browsers it launches --disable-back-forward-cache). A page restored from it fires no load
    events, and Playwright's load states for it never come: waiting for them would time out as if
    the site never answered, on that step and every later one. Such a page is loaded again, as a
    browser without that cache loads it."""
    before = page.url
    token = next(_STEPS)
    try:
        page.evaluate(f"window.{_MARK} = {token}")
    except PlaywrightError:
        pass  # no script runs here (a page still loading): nothing to compare with, no restore told apart
    response = getattr(page, method)(timeout=navigation_ms, wait_until="commit")
    if response is None and method != "reload" and _restored(page, token):
        log.info("%s: the page came back from the browser's back/forward cache; loading it again", method)
        response = page.reload(timeout=navigation_ms, wait_until="domcontentloaded")
    else:
        page.wait_for_load_state("domcontentloaded", timeout=navigation_ms)
    until_loaded(page, action_ms)
    # No response also means a same-document step (a #hash route of a single-page app): only an
    # unchanged URL says there was nowhere to go.
    if response is None and method != "reload" and page.url == before:
        return f"there is no {'previous' if method == 'go_back' else 'next'} page in this page's history"
    return ""


def _restored(page: Page, token: int) -> bool:
    try:
        return bool(page.evaluate(f"document.readyState === 'complete' && window.{_MARK} !== {token}"))
    except PlaywrightError:
        return False
