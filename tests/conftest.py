"""Shared fixtures: a static server for the test pages, one real Chromium, fresh pages."""

from __future__ import annotations

import functools
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from http.server import SimpleHTTPRequestHandler
from pathlib import Path
from typing import Any

import openai
import pytest
from playwright.sync_api import BrowserContext, Page

from pytest_reuseit.api import default_settings
from pytest_reuseit.browser.session import BrowserConfig, BrowserSession, NavigationFence
from pytest_reuseit.runtime import Runtime
from tests.support.fixtures import fake_llm, fake_llm_env  # noqa: F401 - fixtures
from tests.support.machine_time import MachineTime, WorkerCpu
from tests.support.quick_lane import QuickLane, is_quick_lane, limit_from_env
from tests.support.serve import Served

# Where the environment sets PYTHONDONTWRITEBYTECODE, every worker would rewrite and compile each
# test module again, run after run (about 4 CPU seconds a process): pytest's rewritten modules are
# cached in each test folder's __pycache__ (ignored by git) all the same.
sys.dont_write_bytecode = False

# Real suites of other tools (Playwright Test, pytest-playwright), run by the import tests in
# processes of their own: not tests of this project.
collect_ignore_glob = ["suites/*"]

# openai is imported here although the plugin imports it only when a model is asked: pytester's
# in-process runs drop every module first imported during a test, so a lazy import there would
# import openai afresh (and with new exception classes) in each test. Its HTTP stack imports its
# transport only when a client is made: one client made here imports it now, or a connection
# error raised by a transport first imported in such a test escapes openai's own errors.
openai.OpenAI(api_key="unused", base_url="http://127.0.0.1:9/v1").close()


def pytest_configure(config: pytest.Config) -> None:
    # Tests not marked slow stay under the quick lane's limit (tests/support/quick_lane.py); the
    # check sits where every report arrives, so not in xdist's workers.
    if not hasattr(config, "workerinput"):
        limit = limit_from_env(quick_lane=is_quick_lane(config.option.markexpr))
        config.pluginmanager.register(QuickLane(limit), "reuseit-quick-lane")
        # The run's time beside the machine's CPU floor, measured in the same run (these machines
        # are noisy: a figure alone says little).
        config.pluginmanager.register(MachineTime(), "reuseit-machine-time")
    else:
        config.pluginmanager.register(WorkerCpu(config), "reuseit-worker-cpu")


PAGES = Path(__file__).parent / "pages"
ROOT = Path(__file__).parent.parent


class _Quiet(SimpleHTTPRequestHandler):
    """Serves tests/pages. A path under ``/slow/`` is the same file answered 0.6 s late (a
    navigation still in flight when the next op starts); under ``/slow-tail/`` the file is sent up
    to its ``<!--tail-->`` at once and the rest 0.6 s later (a page shown but still parsing)."""

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002
        pass

    def do_GET(self) -> None:
        if self.path.startswith("/slow-tail/"):
            self._send_in_two_parts(PAGES / self.path[len("/slow-tail/") :].split("?")[0])
            return
        if self.path.startswith("/slow/"):
            time.sleep(0.6)
            self.path = self.path[len("/slow") :]
        super().do_GET()

    def _send_in_two_parts(self, path: Path) -> None:
        head, _, tail = path.read_bytes().partition(b"<!--tail-->")
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.end_headers()
        self.wfile.write(head + b" " * 2048)  # past the parser's first-chunk buffering
        self.wfile.flush()
        time.sleep(0.6)
        self.wfile.write(tail)
        self.close_connection = True


@pytest.fixture(scope="session")
def pages_url() -> Iterator[str]:
    """Base URL (no trailing slash) of tests/pages served on 127.0.0.1."""
    with Served(functools.partial(_Quiet, directory=str(PAGES))) as site:
        yield site.url


@pytest.fixture(scope="session")
def browser_session() -> Iterator[BrowserSession]:
    session = BrowserSession(BrowserConfig())
    yield session
    session.close()


@dataclass
class _ModulePage:
    """The context (with its fence) and page a test module's tests share; the page is replaced
    when a test closed it."""

    context: BrowserContext
    fence: NavigationFence
    page: Page


@pytest.fixture(scope="module")
def _module_page(browser_session: BrowserSession) -> Iterator[_ModulePage]:
    """One context and one page per test module.

    A new context and page cost a renderer process each (about 0.3 s of a loaded worker's CPU per
    test); the engine is built to run again on a page an earlier run used (``Pages.wrap``), and
    ``page`` resets what a test can leave behind."""
    fence = NavigationFence(("127.0.0.1", "localhost"))
    context = browser_session.new_context({}, fence)
    yield _ModulePage(context, fence, context.new_page())
    context.close()


@pytest.fixture
def fence(_module_page: _ModulePage) -> NavigationFence:
    """The module context's navigation fence, with no blocked navigation recorded yet."""
    _module_page.fence.blocked.clear()
    return _module_page.fence


@pytest.fixture
def page(_module_page: _ModulePage, fence: NavigationFence) -> Iterator[Page]:
    """The module's page, as a fresh one would be: blank, default viewport, no cookies, no routes,
    no other tab open."""
    shared = _module_page
    if shared.page.is_closed():
        shared.page = shared.context.new_page()
    main = shared.page
    for other in shared.context.pages:
        if other is not main:
            other.close()
    shared.context.clear_cookies()
    main.unroute_all(behavior="ignoreErrors")
    main.set_viewport_size({"width": 1280, "height": 720})
    main.goto("about:blank")
    yield main
    try:  # storage of the origin the test ended on (the next test may use the same origin)
        main.evaluate("() => { try { localStorage.clear(); sessionStorage.clear(); } catch (e) {} }")
    except Exception:  # noqa: BLE001 - a closed page or a page that is gone: nothing to clear
        pass


@pytest.fixture
def runtime_overrides() -> dict[str, Any]:
    """Settings a test module changes for every runtime ``make_runtime`` builds (override the fixture)."""
    return {}


@pytest.fixture
def make_runtime(
    browser_session: BrowserSession, pages_url: str, tmp_path: Path, runtime_overrides: dict[str, Any]
) -> Iterator[Callable[..., Runtime]]:
    """Runtimes on the suite's one Chromium, with the model on (cache in tmp_path) and short retries."""
    made: list[Runtime] = []

    def make(**overrides: Any) -> Runtime:
        settings: dict[str, Any] = {
            "llm": "auto",
            "cache": str(tmp_path / "cache"),
            "llm_backoff": 0.01,
            "llm_retries": 2,
            "llm_timeout": 2,
            "trace": "off",  # recorded on every run otherwise; tests of the trace ask for it
            "base_url": pages_url,
            **runtime_overrides,
            **overrides,
        }
        rt = Runtime(default_settings(**settings), tmp_path)
        rt._session = browser_session  # noqa: SLF001 - share the suite's one Chromium
        made.append(rt)
        return rt

    yield make
    for rt in made:
        rt._session = None  # noqa: SLF001 - the session fixture closes the browser
        rt.close()
