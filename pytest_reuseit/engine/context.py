"""What one run shares between its parts: the options it records itself with, and its state
(pages, values, models, the result being filled in) with the small questions every part asks of it."""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Literal

from playwright.sync_api import Locator as PwLocator
from playwright.sync_api import Page

from ..browser.aria import PageSnapshot
from ..browser.locators import resolve
from ..browser.masking import ScreenMasks
from ..browser.observe import View
from ..browser.pages import Pages
from ..errors import BrokenRun
from ..workflow.loader import LoadedWorkflow
from ..workflow.locators import Locator
from ..workflow.placeholders import Values
from ..workflow.steps import Step
from .ports import Judgement, Models, Probe
from .result import RunResult, Screenshot

ScreenshotMode = Literal["steps", "failures", "off"]


@dataclass(frozen=True)
class LastPass:
    """This test's last passing run, as the caller read it from the history: when it passed and
    each step's page then (1-based step -> page). A failure is compared with the same step's page."""

    since: str  # ISO 8601
    pages: Mapping[int, PageSnapshot] = field(default_factory=dict)
    # Step -> the screenshot it kept after the step, when it kept one (read before this run
    # replaces that run's folder).
    screenshots: Mapping[int, Screenshot] = field(default_factory=dict)
    # The pass before it, when the history has one: a line that differs between the two passes
    # is the page's own churn, not a change (browser/aria.py compare). "" and empty: one pass known.
    earlier_since: str = ""
    earlier_pages: Mapping[int, PageSnapshot] = field(default_factory=dict)


@dataclass(frozen=True)
class RunOptions:
    """How a run records itself. These defaults are also the plugin's (settings.OPTIONS reads them)."""

    screenshots: ScreenshotMode = "failures"
    jpeg_quality: int = 70
    max_width: int = 1280  # screenshots wider than this are scaled down in the browser
    # Upper bound on the text view given to the judge with each screenshot.
    page_text_chars: int = 4000
    # Where the run saves files (downloads); a temporary folder when not given.
    output_dir: str | None = None
    # Called once, when the run first starts to recover (a step's first attempt, or the agent
    # healing a broken op): the runtime starts recording the trace there ("on-first-retry").
    on_first_retry: Callable[[], None] | None = None
    # Watches the run from inside (mutation testing records and injects faults through it).
    probe: Probe | None = None
    # The last pass of this test, when the caller knows one: a failure says what changed since.
    last_pass: LastPass | None = None
    # Every step's page (and the start page) as its accessibility tree saw it, for the nightly
    # history (an ARIA snapshot each, ~15-25 ms); off, only the page of a step that failed. Off
    # unless asked, as the runtime has it (on when the run records are kept): a run whose passing
    # pages no history keeps pays no snapshot per step (tests/browser/test_browser_ops.py: 10% less CPU).
    step_pages: bool = False


@dataclass
class RunContext:
    """One run's state, handed from the run to its steps, their actions, checks and attempts."""

    pages: Pages
    loaded: LoadedWorkflow
    values: Values
    options: RunOptions
    models: Models
    result: RunResult
    masks: ScreenMasks
    blocked: list[str] = field(default_factory=list)
    # Answers of the model per (condition, votes, picture, text): an unchanged page is not asked twice.
    judged: dict[tuple[str, int, bytes, str], Judgement] = field(default_factory=dict)
    output_dir: str = ""
    # The picture the last check in words was judged on, while the next check of the same phase
    # may be judged on it too (see judging.judge_all).
    looked_at: tuple[Page, View] | None = None
    retried: bool = False  # RunOptions.on_first_retry was called

    def retrying(self) -> None:
        """The run starts to recover: tell the caller once (see RunOptions.on_first_retry)."""
        if not self.retried:
            self.retried = True
            if self.options.on_first_retry is not None:
                self.options.on_first_retry()

    @property
    def page(self) -> Page:
        """The current page (a pop-up after ``new_page``, the opener again once it closed)."""
        return self.pages.page

    def run_dir(self) -> str:
        """Where the run saves files: the options' folder, else a temporary one made on first use."""
        if not self.output_dir:
            self.output_dir = self.options.output_dir or tempfile.mkdtemp(prefix="reuseit-run-")
        return self.output_dir

    def page_name(self) -> str:
        """The current page as reports name it, once the run has more than one page (else "")."""
        if len(self.pages.order) < 2:
            return ""
        return self.pages.name()

    def step_settings(self, step: Step) -> tuple[int, float, float, float]:
        """The step's retries, check timeout (ms), step timeout (s) and action timeout (ms): its own, else the file's."""
        s = self.loaded.workflow.settings
        return (
            step.retries if step.retries is not None else s.retries,
            (step.check_timeout or s.check_timeout) * 1000,
            step.step_timeout or s.step_timeout,
            (step.action_timeout or s.action_timeout) * 1000,
        )

    def for_model(self, words: str, what: str) -> str:
        """Words about to be sent to the model; a secret in them (through an extracted value) stops the run."""
        if self.values.holds_secret(words):
            raise BrokenRun(
                f"the {what} '{self.values.mask(words)}' would send a secret to the model (a value read from the page "
                "holds one); compare it with an expect instead"
            )
        return words

    def for_agent(self, words: str) -> str:
        """The step's action and the task go to the agent with secrets as ``{secret.NAME}`` (it types them
        through the placeholder); values that only hold one are masked."""
        return self.values.mask(words)

    def locate(self) -> Callable[[Locator], PwLocator]:
        """How a probe finds a workflow LOC on the current page (placeholders filled, secrets not)."""
        return lambda loc: resolve(self.page, loc, self.values.render)
