"""Playwright's own recorder, opened on a URL in the project's Chromium: ``reuseit record``.

``playwright codegen`` launches Playwright's downloaded browser build, which these machines do
not have (``playwright install`` cannot download it); inside, it opens a browser context and
shows the recorder on it. This does the same in the Chromium the runs use (``BrowserSession``):
the recorder's window and code generator are Playwright's, writing ``codegen --target jsonl``'s
lines to ``output`` as the user clicks. It returns when the user closes the page or the browser.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import Page

from .session import BrowserConfig, BrowserSession

# How long to wait for the user, in one stretch: Playwright's "no timeout".
_FOREVER = 0


def record(
    url: str, output: Path, config: BrowserConfig | None = None, drive: Callable[[Page], None] | None = None
) -> None:
    """Open ``url`` headed with the recorder on; the recording (codegen's JSONL) goes to ``output``.
    ``drive`` is given the page once it is open (a test clicks through it and closes it)."""
    session = BrowserSession(config or BrowserConfig(headed=True))
    try:
        context = session.browser().new_context()
        # The call `playwright codegen` makes (its recorder, in recording mode, JSONL to a file).
        context._sync(
            context._impl_obj._show_recorder({"language": "jsonl", "mode": "recording", "outputFile": str(output)})
        )
        page = context.new_page()
        page.goto(url)
        if drive is not None:
            drive(page)
        try:
            if not page.is_closed():
                page.wait_for_event("close", timeout=_FOREVER)
        except PlaywrightError:
            pass  # the browser went away with its page: the recording is what it is
    finally:
        session.close()
