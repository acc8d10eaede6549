"""Shared fixtures: a static server for the test pages, one real Chromium, fresh pages."""

from __future__ import annotations

import functools
import threading
from collections.abc import Iterator
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from pytest_reuseit.browser.session import BrowserConfig, BrowserSession, NavigationFence
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
