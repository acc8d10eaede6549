"""A run's Playwright trace: when it starts recording, by mode.

Recording a trace costs every run its DOM snapshots (benchmarks/README.md), while a trace is read
only for runs that went wrong. ``on-first-retry`` (the default, as in Playwright's own CI advice)
starts recording when the run first starts to recover, so a run that needs no recovery pays
nothing and a failed run's trace holds its attempts and how they ended.
"""

from __future__ import annotations

import logging
from typing import Literal

from playwright.sync_api import BrowserContext
from playwright.sync_api import Error as PlaywrightError

log = logging.getLogger(__name__)

TraceMode = Literal["on-first-retry", "retain-on-failure", "on", "off"]
TRACE_MODES: tuple[TraceMode, ...] = ("on-first-retry", "retain-on-failure", "on", "off")


class RunTrace:
    """Starts ``context``'s trace when ``mode`` says: at once (``on``, ``retain-on-failure``), at
    the run's first retry (``on-first-retry``), or never (``off``). Which traces are kept is the
    caller's rule; ``recording`` says whether there is one to stop."""

    def __init__(self, context: BrowserContext, mode: str) -> None:
        self.context = context
        self.mode = mode
        self.recording = False
        if mode in ("on", "retain-on-failure"):
            self._start()

    def on_first_retry(self) -> None:
        if self.mode == "on-first-retry":
            self._start()

    def _start(self) -> None:
        if self.recording:
            return
        try:
            # DOM snapshots before/after every action; the screencast film strip is left out: it
            # was most of the tracing cost (benchmarks/README.md), and failures keep screenshots.
            self.context.tracing.start(screenshots=False, snapshots=True)
            self.recording = True
        except PlaywrightError as exc:  # the browser is going away: the run finds out and says so
            log.warning("could not start the trace: %s", exc)
