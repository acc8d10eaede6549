"""The Playwright browser: launched once per process (or connected to a remote one), a fresh
context per workflow run, navigation fenced to the allowed domains.

Remote browsers: ``connect`` is a Playwright browser server (``playwright launch-server`` /
``run-server``), ``cdp`` a Chromium's DevTools endpoint (``connect_over_cdp``: Browserless,
``--remote-debugging-port``), ``grid`` a Selenium Grid 4 that gives this process one session of
its own (browser/grid.py). A CDP browser may be shared with other clients, so
runs only ever use contexts they create themselves, never its default context; closing the session
disconnects and leaves that browser running for its owner.
"""

from __future__ import annotations

import logging
import os
import re
import shutil
import threading
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from playwright.async_api import Request as AsyncRequest
from playwright.sync_api import Browser, BrowserContext, Playwright, Request, Route, sync_playwright
from playwright.sync_api import Error as PlaywrightError

from ..errors import BrokenRun
from .grid import GridSession, Opening

log = logging.getLogger(__name__)

CHROMIUM_ENV = "REUSEIT_CHROMIUM"
DEFAULT_CHROMIUM = "/usr/bin/chromium"
# Debian's build of Chromium's headless shell (package chromium-headless-shell), the browser
# Playwright itself launches for headless Chromium. The full browser in headless mode starts the
# whole browser machinery for every page: measured side by side here, a new context and page take
# 110 ms of CPU instead of 393, a navigation 65 instead of 194, a run's browser work about 3.5x less.
DEFAULT_HEADLESS_SHELL = "/usr/lib/chromium/chromium-headless-shell"
# Playwright adds headless/no-sandbox/background-networking flags itself; the first two keep
# Debian's Chromium quiet on machines without a GPU or outside network. Partial raster redraws
# only the changed part of a tile, so the same page loaded twice could differ by a few
# anti-aliased pixels (a rounded corner) depending on what was redrawn before: whole tiles make
# the same page give the same screenshot, which the response cache needs.
DEFAULT_ARGS = ("--disable-gpu", "--disable-quic", "--disable-partial-raster")


def default_executable(*, headed: bool = False) -> str | None:
    """The Chromium to launch: $REUSEIT_CHROMIUM; else, headless, Debian's headless shell when it is
    installed; else Debian's Chromium, or one on PATH; else None (Playwright's own build)."""
    env = os.environ.get(CHROMIUM_ENV)
    if env:
        return env
    if not headed and os.path.exists(DEFAULT_HEADLESS_SHELL):
        return DEFAULT_HEADLESS_SHELL
    if os.path.exists(DEFAULT_CHROMIUM):
        return DEFAULT_CHROMIUM
    return shutil.which("chromium") or shutil.which("chromium-browser")


@dataclass(frozen=True)
class BrowserConfig:
    executable_path: str | None = None
    headed: bool = False
    connect: str | None = None  # ws:// URL of a Playwright browser server
    cdp: str | None = None  # http:// or ws:// DevTools endpoint of a running Chromium
    grid: str | None = None  # http(s):// address of a Selenium Grid 4 router or hub
    grid_capabilities: dict[str, Any] = field(default_factory=dict)  # grid.parse_capabilities' answer
    slow_mo: float = 0
    args: tuple[str, ...] = DEFAULT_ARGS

    def executable(self) -> str | None:
        """The Chromium to launch: the one given, else the default for headless or headed runs."""
        return self.executable_path or default_executable(headed=self.headed)


def host_allowed(url: str, allowed: tuple[str, ...]) -> bool:
    """True for the allowed hosts and their subdomains; non-network schemes are always allowed."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https", "ws", "wss"):
        return True
    host = (parts.hostname or "").lower()
    for domain in allowed:
        d = domain.lower().strip(".")
        if host == d or host.endswith("." + d):
            return True
    return False


def web_address(url: str) -> bool:
    """Whether an explicit navigation (start_url, a ``goto`` op, the agent's goto) may go to
    ``url``: http(s) only, and about:blank to start empty. A file:// or chrome:// page would show
    the machine's own files or the browser's pages to the model and in the reports, and the fence
    sees only network requests."""
    return urlsplit(url).scheme.lower() in ("http", "https") or url.strip().lower() == "about:blank"


def origin_of(url: str) -> str:
    """``scheme://host:port`` of a URL (lower case), or "" for one without a host."""
    parts = urlsplit(url)
    if not parts.scheme or not parts.hostname:
        return ""
    default = {"http": 80, "https": 443, "ws": 80, "wss": 443}.get(parts.scheme.lower())
    try:
        port = parts.port or default
    except ValueError:
        return ""
    return f"{parts.scheme.lower()}://{parts.hostname.lower()}:{port}"


@dataclass
class NavigationFence:
    """Aborts navigations to hosts outside ``allowed`` and remembers them for the report.

    With ``origins`` (the import's own runs: the origins its source visited), every request, not
    only a navigation, to any other origin (scheme, host and port) is aborted. A page's
    navigation there (a link, a form, a ``goto``, a pop-up) is remembered in ``blocked``: it fails
    the run, naming it. A request the page makes by itself (usage statistics, a font, a CDN's
    script, an embedded frame) is remembered in ``aborted`` only: it was never sent, and the run
    goes on without it."""

    allowed: tuple[str, ...]
    blocked: list[str] = field(default_factory=list)
    origins: tuple[str, ...] = ()
    aborted: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.origins = tuple(o for o in dict.fromkeys(map(origin_of, self.origins)) if o)

    def pattern(self) -> str | re.Pattern[str]:
        """The URLs the fence needs to look at: those of network schemes on other hosts than the
        allowed ones (and their subdomains). Playwright matches a regular expression in its
        driver, so requests to the allowed hosts never make a round trip to Python (a glob or a
        function would send every request there: measured 5-9% of a deterministic run). Broader
        than :func:`host_allowed` where unsure (odd hosts are looked at, and decided, in Python)."""
        if self.origins:  # every request is looked at: an origin is more than a host
            return "**/*"
        # re.escape's escapes (\., \-) read the same in JavaScript (no "u" flag).
        hosts = [re.escape(d.lower().strip(".")) for d in self.allowed if d.strip(".")]
        if not hosts:
            return "**/*"
        return re.compile(
            r"^(?:https?|wss?)://(?!(?:[^/?#@]*@)?(?:[^/?#@:]*\.)?(?:" + "|".join(hosts) + r")(?::\d+)?(?:[/?#]|$))",
            re.IGNORECASE,
        )

    def blocks(self, request: Request | AsyncRequest) -> bool:
        """The fence's rule: a navigation to a host outside ``allowed`` (the sync and async APIs'
        requests); with ``origins``, any request of a network scheme to another origin."""
        if self.origins:
            scheme = urlsplit(request.url).scheme.lower()
            return scheme in ("http", "https", "ws", "wss") and origin_of(request.url) not in self.origins
        return request.is_navigation_request() and not host_allowed(request.url, self.allowed)

    def __call__(self, route: Route) -> None:
        request = route.request
        if self.blocks(request):
            if self.origins and not page_navigation(request):
                self.aborted.append(request.url)  # the page's own request: never sent, the run goes on
                log.info("aborted the page's request to %s (origins: %s)", request.url, ", ".join(self.origins))
                route.abort("aborted")
                return
            self.blocked.append(request.url)
            log.info("blocked navigation to %s (allowed: %s)", request.url, ", ".join(self.allowed))
            # "aborted", not "blockedbyclient": Chromium then stays on the page it was on (the
            # report's screenshot shows the site) instead of committing its own error page.
            route.abort("aborted")
            return
        route.fallback()


def page_navigation(request: Request | AsyncRequest) -> bool:
    """Whether ``request`` loads a page's document (a link followed, a form sent, a ``goto``, a
    pop-up or tab opening), not a file the page asks for or a frame it embeds. A navigation whose
    frame is not known yet (a pop-up still opening) counts as a page's."""
    if not request.is_navigation_request():
        return False
    try:
        return request.frame.parent_frame is None
    except PlaywrightError:
        return True


def use_node_compile_cache() -> None:
    """Let Node keep what it compiled of Playwright's driver, in this user's cache folder.

    The driver is a Node.js program whose JavaScript is compiled again at every start; every pytest
    worker and every command starts one. With Node's own compile cache (NODE_COMPILE_CACHE) a start
    costs 0.4 s instead of 0.55 and about 0.2 CPU s less (benchmarks/README.md). A user's
    NODE_COMPILE_CACHE is kept, and NODE_DISABLE_COMPILE_CACHE=1 turns it off (Node reads both).
    Not in the temporary folder: another user could put compiled code there for this one to run.
    """
    if "NODE_COMPILE_CACHE" in os.environ:
        return
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    if os.path.isabs(base):
        os.environ["NODE_COMPILE_CACHE"] = os.path.join(base, "pytest-reuseit", "node-compile-cache")


# Playwright's driver (a Node.js process, about 0.5 s to start) per thread, with how many sessions
# use it: sessions open at the same time in one thread share it (Playwright allows one sync
# instance per thread), and it stops with the last of them, leaving the thread as it was found.
_DRIVERS: dict[int, tuple[Playwright, int]] = {}


def _acquire_driver() -> Playwright:
    ident = threading.get_ident()
    if ident not in _DRIVERS:
        use_node_compile_cache()
    pw, users = _DRIVERS.get(ident) or (sync_playwright().start(), 0)
    _DRIVERS[ident] = (pw, users + 1)
    return pw


def _release_driver(ident: int) -> None:
    pw, users = _DRIVERS.pop(ident, (None, 0))
    if pw is None:
        return
    if users > 1:
        _DRIVERS[ident] = (pw, users - 1)
    else:
        pw.stop()


class BrowserSession:
    """Owns one browser (and a share of its thread's Playwright driver); relaunches the browser
    when it has crashed."""

    def __init__(self, config: BrowserConfig) -> None:
        self.config = config
        self._pw: Playwright | None = None
        self._pw_thread = 0
        self._browser: Browser | None = None
        self._grid: GridSession | None = None

    @property
    def host(self) -> str:
        """The machine the browser runs on, when it is not this one: the Grid node's address."""
        return self._grid.node if self._grid is not None else ""

    @property
    def grid(self) -> GridSession | None:
        """The Grid session the browser runs in, when it comes from a Selenium Grid."""
        return self._grid

    def lost(self, *, failed: bool = False) -> str:
        """Why the browser went away under the run, when its Grid node stopped answering; asked
        of the Grid now when the browser disconnected or the run ``failed``."""
        if self._grid is None:
            return ""
        disconnected = self._browser is not None and not self._browser.is_connected()
        if disconnected or failed:
            return self._grid.confirm(disconnected=disconnected)
        return self._grid.lost

    @property
    def playwright(self) -> Playwright:
        if self._pw is None:
            self._pw = _acquire_driver()
            self._pw_thread = threading.get_ident()
        return self._pw

    def browser(self) -> Browser:
        if self._browser is not None and self._browser.is_connected():
            return self._browser
        if self._browser is not None:
            log.warning("the browser is gone (crashed or disconnected): starting a fresh one")
        self._close_grid()
        self._browser = self._start()
        return self._browser

    def _start(self) -> Browser:
        cfg = self.config
        opening = Opening(cfg.grid, cfg.grid_capabilities) if cfg.grid else None
        try:
            # The Grid starts the browser while Playwright's driver starts here.
            chromium = self.playwright.chromium
            if opening is not None:
                self._grid = opening.result()
        except BaseException:
            if opening is not None:
                opening.cancel()
            raise
        exe = cfg.executable()
        try:
            if cfg.connect:
                return chromium.connect(cfg.connect, timeout=30_000)
            if cfg.cdp:
                return chromium.connect_over_cdp(cfg.cdp, timeout=30_000)
            if self._grid is not None:
                return chromium.connect_over_cdp(self._grid.cdp, timeout=30_000, headers=self._grid.headers)
            kwargs: dict[str, Any] = {"headless": not cfg.headed, "args": list(cfg.args), "slow_mo": cfg.slow_mo}
            if exe:
                kwargs["executable_path"] = exe
            return chromium.launch(**kwargs)
        except PlaywrightError as exc:
            where = cfg.connect or cfg.cdp or exe or "Playwright's Chromium"
            if self._grid is not None:
                where = f"Selenium Grid session {self._grid.id} on node {self._grid.node}"
                self._close_grid()
                hint = "the Grid started the browser but its DevTools address does not answer"
            elif cfg.connect:
                hint = "is the browser server running and reachable?"
            elif cfg.cdp:
                hint = "is the browser's DevTools endpoint (remote debugging) running and reachable?"
            else:
                hint = f"install Chromium (apt-get install chromium) or point --reuseit-browser-path / ${CHROMIUM_ENV} at one"
            raise BrokenRun(f"cannot start the browser ({where}): {first_line(str(exc))}; {hint}") from None

    def version(self) -> str:
        try:
            return self.browser().version
        except BrokenRun:
            return "unavailable"

    def new_context(self, options: dict[str, Any], fence: NavigationFence | None) -> BrowserContext:
        try:
            context = self.browser().new_context(**options)
        except PlaywrightError as exc:
            # A browser that died between runs: one fresh start, then give up as broken.
            log.warning("new context failed (%s); restarting the browser", first_line(str(exc)))
            self._browser = None
            try:
                context = self.browser().new_context(**options)
            except PlaywrightError as exc2:
                raise BrokenRun(f"cannot open a browser context: {first_line(str(exc2))}") from None
        if fence is not None:
            context.route(fence.pattern(), fence)
        return context

    def close(self) -> None:
        # A Grid session first: deleting it quits the browser on its node, and cutting the relay
        # disconnects Playwright at once; closing through DevTools first would wait on a node that
        # froze until the watchdog gives up on it.
        self._close_grid()
        try:
            if self._browser is not None:
                self._browser.close()
        except PlaywrightError:
            pass
        finally:
            self._browser = None
            if self._pw is not None:
                self._pw = None
                _release_driver(self._pw_thread)

    def _close_grid(self) -> None:
        if self._grid is not None:
            self._grid.close()
            self._grid = None


def first_line(text: str) -> str:
    """Playwright messages carry a long call log; the first line says what happened."""
    for line in text.strip().splitlines():
        line = line.strip()
        if line and not line.startswith("="):
            return line
    return text.strip()
