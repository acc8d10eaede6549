"""What the engine needs from a model, as small protocols.

The engine runs without any of them (deterministic ops and DOM checks only). The ``llm``
package provides real implementations; tests may provide their own. Keeping them here means the
engine never imports the model client.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

from playwright.sync_api import Locator as PwLocator
from playwright.sync_api import Page

from ..workflow.checks import Check
from ..workflow.locators import Locator
from ..workflow.ops import Op
from ..workflow.placeholders import Values
from .result import ActionRecord, Analysis, ModelUsage, RunResult

# Builds the Playwright locator of a workflow LOC on the run's current page, placeholders filled.
Locate = Callable[[Locator], PwLocator]


@dataclass(frozen=True)
class Judgement:
    met: bool
    explanation: str


class Judge(Protocol):
    def judge(self, condition: str, screenshot: bytes, page_text: str, votes: int) -> Judgement:
        """Decide whether ``condition`` holds on the page shown."""

    def knows(self, condition: str, screenshot: bytes, page_text: str, votes: int) -> bool:
        """Whether ``judge`` would answer at once, from what it kept (no model call)."""


@dataclass
class AgentOutcome:
    done: bool
    actions: list[ActionRecord] = field(default_factory=list)
    message: str = ""


class Agent(Protocol):
    def perform(
        self, page: Page, instruction: str, *, goal: str, failure: str, history: list[ActionRecord]
    ) -> AgentOutcome:
        """Carry out ``instruction`` on ``page``, one grounded action at a time."""


class Analyst(Protocol):
    def analyze(self, result: RunResult, observed: Analysis) -> Analysis:
        """Write the challenge analysis of a failed run (``observed`` is the runner's own)."""


class Reader(Protocol):
    def read(self, page: Page, query: str) -> str:
        """Read a value from the page (``extract: {query: ...}``)."""


class Recorder(Protocol):
    def record(
        self, line: int, words: str, rendered: str, met: bool, explanation: str, page: Page, picture: bytes
    ) -> None:
        """Keep what ``reuseit promote`` needs of a check the model just judged (the page, the verdict).
        ``picture``: what the model saw; checks judged on the same picture share one page snapshot."""


@dataclass
class Models:
    """The model-backed parts available to a run; any may be None."""

    judge: Judge | None = None
    agent: Agent | None = None
    analyst: Analyst | None = None
    reader: Reader | None = None
    recorder: Recorder | None = None
    usage: ModelUsage = field(default_factory=ModelUsage)
    # Set by the engine when the run starts: model parts fill and mask secrets through it.
    values: Values | None = None

    def reveal(self, text: str) -> str:
        return self.values.render(text, reveal=True) if self.values else text

    def mask(self, text: str) -> str:
        return self.values.mask(text) if self.values else text

    @property
    def enabled(self) -> bool:
        return any(p is not None for p in (self.judge, self.agent, self.analyst, self.reader))


class Probe(Protocol):
    """Watches a run from inside, at the moments a fault would show: before each of a step's own
    ``do`` ops, before each check is judged, around the step's action. Mutation testing records a
    clean run through it (what the workflow touches) and injects one fault through it (the element
    an op is about to act on removed, the text a check is about to read changed).

    ``step`` is the index in the workflow's steps (``None`` for the outcome checks). A probe must
    not raise: a fault it injects shows as the page's behaviour, never as an error of the run.
    """

    def start(self, page: Page) -> None:
        """The run's page opened; ``start_url`` is not loaded yet (routes, init scripts)."""

    def before_op(self, page: Page, step: int, index: int, op: Op, locate: Locate) -> None:
        """The step's ``do`` op ``index`` is about to run (again, on a redo)."""

    def before_check(self, page: Page, step: int | None, phase: str, index: int, check: Check, locate: Locate) -> None:
        """Check ``index`` of ``phase`` (pre, post, outcome) is about to be judged."""

    def action(self, page: Page, step: int, when: str) -> None:
        """``when`` is "before" or "after" the step's action."""

    def step_end(self, page: Page, step: int | None) -> None:
        """The step (or the outcome, ``None``) passed its checks."""
