"""What the model sees of a page: a bounded screenshot and a compact, contextualized text view.

LCoW's finding is that a compact view of the page with the elements that matter makes the model
decide better than raw HTML; Playwright's AI-mode aria snapshot already gives roles, names, state
and stable ``[ref=eN]`` ids (usable as ``aria-ref=eN`` locators). We keep its interactive lines
first and cut the rest to a character budget.
"""

from __future__ import annotations

import base64
import logging
import re
import time
import weakref
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from playwright.async_api import Page as AsyncPage
from playwright.sync_api import BrowserContext, CDPSession, Page
from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from ..workflow.settings import NAVIGATION_TIMEOUT_S
from .aria import hide, values_to_hide, values_to_hide_async
from .masking import ScreenMasks, masked_text, painted
from .scripts import STUCK, close_if_stuck, close_unanswered

log = logging.getLogger(__name__)

INTERACTIVE = (
    "button",
    "link",
    "textbox",
    "searchbox",
    "checkbox",
    "radio",
    "combobox",
    "listbox",
    "option",
    "tab",
    "menuitem",
    "switch",
    "slider",
    "spinbutton",
    "dialog",
    "alertdialog",
    "alert",
    "heading",
)
_REF_LINE = re.compile(r"^\s*-\s*(?P<role>[a-z]+)(?:\s+\"(?P<name>(?:[^\"\\]|\\.)*)\")?.*\[ref=(?P<ref>e\d+)\]")


@dataclass
class Observation:
    text: str
    refs: dict[str, tuple[str, str]] = field(default_factory=dict)  # ref -> (role, name)
    url: str = ""
    title: str = ""

    def stable_locator(self, ref: str) -> str:
        """A Playwright selector that replays an action on ``ref`` after the ids are gone."""
        role, name = self.refs.get(ref, ("", ""))
        if role and name:
            return f'role={role}[name="{name}"]'
        if role:
            return f"role={role}"
        return f"aria-ref={ref}"


def observe(page: Page, max_chars: int = 6000, mask: Callable[[str], str] | None = None) -> Observation:
    """The page as the agent reads it: interactive elements with ids first, within ``max_chars``."""
    try:
        snapshot = page.aria_snapshot(mode="ai")
        title = page.title()
        # The snapshot prints a password field's value in clear text: hidden before any model reads it.
        snapshot = hide(snapshot, values_to_hide(page), mask or _same)
    except PlaywrightError:
        snapshot, title = "", ""
    return from_snapshot(snapshot, title, page.url, max_chars, mask)


def _same(text: str) -> str:
    return text


async def observe_async(
    page: AsyncPage, max_chars: int = 6000, mask: Callable[[str], str] | None = None
) -> Observation:
    """:func:`observe` for Playwright's async API (exploration runs many pages on one driver)."""
    try:
        snapshot = await page.aria_snapshot(mode="ai")
        title = await page.title()
        snapshot = hide(snapshot, await values_to_hide_async(page), mask or _same)
    except PlaywrightError:
        snapshot, title = "", ""
    return from_snapshot(snapshot, title, page.url, max_chars, mask)


def from_snapshot(
    snapshot: str, title: str, url: str, max_chars: int, mask: Callable[[str], str] | None
) -> Observation:
    """Keep the interactive lines first and cut the rest to the character budget."""
    if mask is not None:
        snapshot = mask(snapshot)
    refs: dict[str, tuple[str, str]] = {}
    important: list[tuple[int, str]] = []
    rest: list[tuple[int, str]] = []
    for n, line in enumerate(snapshot.splitlines()):
        line = line if len(line) <= 200 else line[:197] + "..."
        m = _REF_LINE.match(line)
        if m:
            refs[m.group("ref")] = (m.group("role"), (m.group("name") or "").replace('\\"', '"'))
        (important if m and m.group("role") in INTERACTIVE else rest).append((n, line))
    kept: list[tuple[int, str]] = []
    used = 0
    for n, line in important + rest:
        if used + len(line) + 1 > max_chars:
            continue
        kept.append((n, line))
        used += len(line) + 1
    text = "\n".join(line for _, line in sorted(kept))
    if len(kept) < len(important) + len(rest):
        text += f"\n[... {len(important) + len(rest) - len(kept)} less important lines left out]"
    return Observation(text=text, refs=refs, url=url, title=title)


class NetworkWatch:
    """Requests in flight in one browser context, for :func:`settle` (fed by Playwright's events)."""

    # A request in flight longer than this is a long poll or a stream: it does not keep a page unsettled.
    LONG_S = 2.0
    # A page is quiet when no request started or ended for this long.
    QUIET_S = 0.1

    def __init__(self) -> None:
        self.inflight: dict[int, float] = {}
        # Documents asked for and not answered yet, oldest first: request id -> (its frame, url,
        # when it was asked for).
        self.navigations: dict[int, tuple[Any, str, float]] = {}
        # How long a document may take to answer (the run's navigation_timeout, see navigation_budget).
        self.navigation_s = NAVIGATION_S
        self.last_activity = 0.0
        # Requests started or ended so far: a capture compares it before and after (see capture_view).
        self.events = 0
        # When the run last acted on the page (see :func:`acted`); a new context counts as one.
        self.acted_at = time.monotonic()

    def started(self, request: Any) -> None:
        self.inflight[id(request)] = self.last_activity = time.monotonic()
        self.events += 1
        if request.is_navigation_request():
            try:
                frame = request.frame
            except PlaywrightError:
                # A pop-up's first document is asked for before its frame exists (under a route,
                # Playwright then raises here, and an event handler that raises loses the pop-up).
                return
            self.navigations[id(request)] = (frame, request.url, time.monotonic())

    def answered(self, request: Any) -> None:
        """The server's answer began (its headers): the document is no longer waited for."""
        self.navigations.pop(id(request), None)

    def ended(self, request: Any) -> None:
        self.inflight.pop(id(request), None)
        self.navigations.pop(id(request), None)
        self.last_activity = time.monotonic()
        self.events += 1

    # How often a page with a request in flight is looked at again.
    POLL_S = 0.05

    def quiet_in(self) -> float:
        """Seconds until the page counts as quiet (0: quiet now). While a request younger than
        ``LONG_S`` is in flight, ``POLL_S`` (look again then). A page that made no request since
        the run last acted is quiet now: a request the action started and that was not reported yet
        shows up while the picture is taken, and :func:`capture_view` then takes it again. A page
        that did make one is quiet ``QUIET_S`` after the last request started or ended (its answer
        is being rendered)."""
        now = time.monotonic()
        if any(now - t < self.LONG_S for t in self.inflight.values()):
            return self.POLL_S
        if self.last_activity < self.acted_at:
            return 0.0
        return max(0.0, self.QUIET_S - (now - self.last_activity))


# A context nobody set a budget for (the agent exploring a site, a test's page) waits as long as a
# workflow does by default.
NAVIGATION_S = NAVIGATION_TIMEOUT_S

_WATCHES: weakref.WeakKeyDictionary[BrowserContext, NetworkWatch] = weakref.WeakKeyDictionary()


def watch_network(context: BrowserContext) -> None:
    """Count the context's requests in flight from now on, so captures can wait for a quiet page."""
    if context in _WATCHES:
        return
    watch = NetworkWatch()
    context.on("request", watch.started)
    context.on("response", watch.answered)
    context.on("requestfinished", watch.ended)
    context.on("requestfailed", watch.ended)
    _WATCHES[context] = watch


def navigation_budget(page: Page, seconds: float) -> None:
    """How long a document asked for in ``page``'s context may take to answer from now on (the
    run's ``navigation_timeout``, set per step). Element waits are the ops' own; this one is the
    page's load, wherever it was started (an op, a fallback, the agent, a script, the page)."""
    watch = _WATCHES.get(page.context)
    if watch is not None:
        watch.navigation_s = seconds


def navigation_s(page: Page) -> float:
    """The navigation budget of ``page``'s context, in seconds (see :func:`navigation_budget`)."""
    watch = _WATCHES.get(page.context)
    return watch.navigation_s if watch is not None else NAVIGATION_S


def _waiting(page: Page) -> tuple[str, float] | None:
    """The page's oldest document asked for and not answered yet: its URL and when it was asked for."""
    watch = _WATCHES.get(page.context)
    if watch is None:
        return None
    try:
        main = page.main_frame
    except PlaywrightError:
        return None
    waiting = [(url, t) for frame, url, t in list(watch.navigations.values()) if frame == main]
    return waiting[0] if waiting else None


def unanswered_document(page: Page) -> str | None:
    """The URL of the page's next document, asked for and not answered yet (None when there is
    none, or the context is not watched). Playwright waits for such a navigation before anything
    else it does on the page, so a server that has not answered yet looks like a page that stopped
    responding; this tells them apart."""
    waiting = _waiting(page)
    return waiting[0] if waiting is not None else None


# How often a document waited for is looked for again.
_ANSWER_POLL_MS = 50


def await_document(page: Page) -> str | None:
    """Wait until the page's next document has answered, at most the navigation budget counted
    from when it was asked for (so waiting twice for one document does not wait twice as long).
    Returns the URL of the document that did not answer in time (None when none is waited for, or
    it answered). A slow server is not a dead one: a login POST answered after a few seconds is a
    page loading, however short the wait of the op that sent it."""
    budget = navigation_s(page)
    while (waiting := _waiting(page)) is not None:
        url, asked = waiting
        left = asked + budget - time.monotonic()
        if left <= 0:
            return url
        try:
            page.wait_for_timeout(min(_ANSWER_POLL_MS, left * 1000))
        except PlaywrightError:
            return None  # the page closed: nothing of it is waited for any more
    return None


def close_if_unresponsive(page: Page) -> str | None:
    """After a call that timed out: why the page had to be closed, or None when it answers.

    A document the page waits for gets the rest of its navigation budget first (a slow server is
    not a dead one): one that answers leaves the page open (None); one that does not is named, and
    the page closed, since everything Playwright does on it waits for that document. With no
    document waited for, :func:`close_if_stuck`: a script that never ends."""
    if _waiting(page) is None:
        return STUCK if close_if_stuck(page) else None
    late = await_document(page)
    if late is None:
        return None
    close_unanswered(page)
    return f"{late} did not answer within {navigation_s(page):g}s (navigation_timeout), so the page was closed"


def acted(page: Page) -> None:
    """Tell the page's network watch that the run has just acted on it (an op, the agent, opening
    the start page). A request that action started may not have been reported yet, so the next
    capture waits out the quiet period from now; a capture with no action since its last quiet
    moment (the picture of a post check after the step's own) need not wait again."""
    watch = _WATCHES.get(page.context)
    if watch is not None:
        watch.acted_at = time.monotonic()


_FONTS_JS = """async (ms) => {
  if (!document.fonts || document.fonts.status === 'loaded') return true;
  return await Promise.race([document.fonts.ready.then(() => true), new Promise(r => setTimeout(() => r(false), ms))]);
}"""


def settle(page: Page, timeout_ms: float = 5_000, *, fonts: bool = True) -> None:
    """Wait (at most ``timeout_ms``) until the page has settled: loaded, no request in flight
    (when the context is watched, see :func:`watch_network`) and its web fonts loaded. An action
    that navigates returns once the new document is committed, and a screenshot taken then shows
    a half-built page. Returns at once on a settled page; one that never settles is captured as it is."""
    timeout_ms = max(1.0, timeout_ms)  # Playwright's timeout of 0 would wait for ever
    deadline = time.monotonic() + timeout_ms / 1000
    try:
        page.wait_for_load_state("load", timeout=timeout_ms)
        watch = _WATCHES.get(page.context)
        # Each wait lasts as long as the page still needs to count as quiet (NetworkWatch.quiet_in),
        # so the period is not rounded up to a polling step.
        while watch is not None and (wait := min(watch.quiet_in(), deadline - time.monotonic())) > 0:
            page.wait_for_timeout(max(1.0, wait * 1000))
        left = max(0.0, deadline - time.monotonic()) * 1000
        if left and fonts:  # (capture_view has the freeze wait for the fonts, in the same call)
            page.evaluate(_FONTS_JS, int(left))
    except PlaywrightTimeout:
        pass
    except PlaywrightError as exc:  # a navigation replaced the document while we looked
        log.debug("settle: %s", exc)


_STEADY_TRIES = 3


@dataclass
class View:
    """One capture: the (masked) picture, why regions were painted over, and the page's text."""

    image: bytes
    masked: list[str] = field(default_factory=list)
    text: str = ""


def capture(
    page: Page, quality: int = 70, max_width: int = 1280, *, masks: ScreenMasks | None = None, settle_ms: float = 5_000
) -> bytes:
    """A JPEG of the viewport as the model may see it: see :func:`capture_view`."""
    return capture_view(page, quality, max_width, masks=masks, settle_ms=settle_ms).image


def capture_view(
    page: Page,
    quality: int = 70,
    max_width: int = 1280,
    *,
    masks: ScreenMasks | None = None,
    settle_ms: float = 5_000,
    text_chars: int = 0,
    steady: bool = False,
    known: Callable[[View], bool] | None = None,
) -> View:
    """A JPEG of the viewport, scaled down in the browser to ``max_width`` (no image library needed),
    taken on a settled page with animations stopped and the caret hidden, so the same page gives
    the same bytes (or the response cache misses), and with secrets and ``mask:`` regions painted
    over (``masks``, by default those attached to the page's context: see :mod:`.masking`).
    With ``text_chars``, also the page's text (``mask:`` regions left out), cut to that length.
    With ``steady``, the picture is taken again until two in a row are the same (at most a few
    times), unless ``known`` says the first one is already known (a cached answer was given on this
    very picture and text, which were steady then): a warm rerun takes one picture per look.
    A request the page reports while the picture is taken makes it settle and take it again
    (see :meth:`NetworkWatch.quiet_in`), within ``settle_ms`` in all.
    """
    deadline = time.monotonic() + settle_ms / 1000
    watch = _WATCHES.get(page.context)
    for _ in range(_STEADY_TRIES):
        settle(page, (deadline - time.monotonic()) * 1000, fonts=False)
        events = watch.events if watch is not None else 0
        fonts_ms = max(0.0, deadline - time.monotonic()) * 1000
        view = _view(page, quality, max_width, masks, text_chars, steady, known, fonts_ms)
        # A call to the page comes back after any request the page started before it was
        # reported (the freeze before the picture; the text read or the clean-up after it): a
        # request seen now was started by the last action or while the picture was taken, and the
        # page is about to change. Settle again (now with the quiet period) and take it again.
        if watch is None or watch.events == events or time.monotonic() >= deadline:
            break
    return view


def _view(
    page: Page,
    quality: int,
    max_width: int,
    masks: ScreenMasks | None,
    text_chars: int,
    steady: bool,
    known: Callable[[View], bool] | None,
    fonts_ms: float,
) -> View:
    with painted(page, masks, fonts_ms=fonts_ms) as reasons:
        image = _screenshot(page, quality, max_width)
        view = View(image, reasons, _text(page, text_chars))
        if not steady or (known is not None and known(view)):
            return view
        # A page just painted can still differ by a few pixels from one frame to the next (the
        # cache would miss on them): keep the picture once two in a row are the same.
        for _ in range(_STEADY_TRIES):
            again = _screenshot(page, quality, max_width)
            if again == image:
                break
            image = again
        if image != view.image:  # the page changed: its text may have too
            view = View(image, reasons, _text(page, text_chars))
    return view


def _text(page: Page, chars: int) -> str:
    if chars <= 0:
        return ""
    try:
        return masked_text(page)[:chars]
    except PlaywrightError:
        return ""


# One DevTools session per page, kept for its pictures. Playwright's page.screenshot makes the same
# Page.captureScreenshot call and gives the same bytes, but it first prepares the page (its own
# freeze, the fonts, the scroll position) and costs one frame more: 56 ms against 43 ms a picture,
# alternating on one still page (benchmarks/README.md). painted() has already frozen the page and
# waited for its fonts, so the call alone is the picture.
_SHOOTERS: weakref.WeakKeyDictionary[Page, CDPSession] = weakref.WeakKeyDictionary()


def _screenshot(page: Page, quality: int, max_width: int) -> bytes:
    size = page.viewport_size
    params: dict[str, Any] = {"format": "jpeg", "quality": quality}
    if size is not None and size["width"] > max_width:  # scaled down in the browser
        scale = max_width / size["width"]
        params["clip"] = {"x": 0, "y": 0, "width": size["width"], "height": size["height"], "scale": scale}
    try:
        cdp = _SHOOTERS.get(page)
        if cdp is None:
            cdp = _SHOOTERS[page] = page.context.new_cdp_session(page)
        shot = cdp.send("Page.captureScreenshot", params)
    except PlaywrightError:
        # The session is gone (a page closed or crashed, a browser that refuses DevTools
        # sessions): Playwright's own call, whose error says what became of the page.
        _SHOOTERS.pop(page, None)
        if "clip" in params:
            raise
        return page.screenshot(type="jpeg", quality=quality, timeout=10_000, animations="disabled", caret="hide")
    return base64.b64decode(shot["data"])


async def capture_async(page: AsyncPage, quality: int = 70) -> bytes:
    """:func:`capture` for the async API (viewport size as is: exploration uses the default)."""
    try:
        await page.wait_for_load_state("load", timeout=5_000)
    except PlaywrightTimeout:
        pass
    return await page.screenshot(type="jpeg", quality=quality, timeout=10_000, animations="disabled", caret="hide")


_MARK_JS = """(el, ref) => {
  const r = el.getBoundingClientRect();
  if (!r.width || !r.height) return false;
  const box = document.createElement('div');
  box.setAttribute('data-reuseit-mark', ref);
  box.style.cssText = `position:fixed;left:${r.left}px;top:${r.top}px;width:${r.width}px;height:${r.height}px;`
    + 'outline:2px solid #e0115f;z-index:2147483647;pointer-events:none;';
  const tag = document.createElement('span');
  tag.textContent = ref;
  tag.style.cssText = 'position:absolute;left:0;top:-14px;font:bold 11px monospace;color:#fff;background:#e0115f;padding:0 2px;';
  box.appendChild(tag);
  document.documentElement.appendChild(box);
  return true;
}"""


def capture_marked(page: Page, obs: Observation, quality: int = 70, max_width: int = 1280, limit: int = 60) -> bytes:
    """A screenshot with the observation's element ids drawn on their elements (set-of-marks), so
    the model can tie what it sees to the ids it must answer with. The marks are removed after."""
    settle(page)
    marked = 0
    for ref, (role, _) in obs.refs.items():
        if marked >= limit or role not in INTERACTIVE or role == "heading":
            continue
        try:
            marked += bool(page.locator(f"aria-ref={ref}").evaluate(_MARK_JS, ref, timeout=500))
        except (PlaywrightError, PlaywrightTimeout):
            continue
    try:
        return capture(page, quality, max_width)
    finally:
        try:
            page.evaluate("document.querySelectorAll('[data-reuseit-mark]').forEach(e => e.remove())")
        except PlaywrightError:
            pass


def data_url(image: bytes, mime: str = "image/jpeg") -> str:
    return f"data:{mime};base64,{base64.b64encode(image).decode('ascii')}"
