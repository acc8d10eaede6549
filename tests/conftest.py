"""Shared fixtures: a static server for the test pages, one real Chromium, fresh pages."""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable, Iterator
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from pytest_reuseit.api import default_settings
from pytest_reuseit.browser.session import BrowserConfig, BrowserSession, NavigationFence
from pytest_reuseit.runtime import Runtime
from tests.support.fixtures import fake_llm, fake_llm_env  # noqa: F401 - fixtures

PAGES = Path(__file__).parent / "pages"
ROOT = Path(__file__).parent.parent


class _Quiet(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:  # noqa: A002
        pass


@pytest.fixture(scope="session")
def pages_url() -> Iterator[str]:
    """Base URL (no trailing slash) of tests/pages served on 127.0.0.1."""
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(PAGES)))
    httpd.daemon_threads = True
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


@pytest.fixture(scope="session")
def browser_session() -> Iterator[BrowserSession]:
    session = BrowserSession(BrowserConfig())
    yield session
    session.close()


@pytest.fixture
def fence() -> NavigationFence:
    return NavigationFence(("127.0.0.1", "localhost"))


@pytest.fixture
def page(browser_session: BrowserSession, fence: NavigationFence):  # type: ignore[no-untyped-def]
    context = browser_session.new_context({}, fence)
    pg = context.new_page()
    yield pg
    context.close()


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
