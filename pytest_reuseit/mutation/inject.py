"""The probe of a mutant's run: places the one fault of its mutant at the moment its target is
used (the op about to act, the check about to read) or when the page opens (routes, scripts)."""

from __future__ import annotations

from typing import Any

from playwright.sync_api import Locator as PwLocator
from playwright.sync_api import Page

from ..engine.ports import Locate
from ..workflow.checks import Check
from ..workflow.loader import LoadedWorkflow
from ..workflow.locators import Locator
from ..workflow.ops import Op
from . import hold, operators
from .plan import Mutant
from .touches import aria_of

_AGAIN_MS = 100.0


class Injector:
    """Never raises (the probe contract): ``applied`` says whether the fault was placed at all, so
    a run that failed without it is not counted as a kill; ``reads`` whether each time its target
    check was judged, the element it read carried the fault (hold.py), and ``why`` what kept the
    fault out, when something did."""

    def __init__(self, loaded: LoadedWorkflow, mutant: Mutant) -> None:
        self.loaded = loaded
        self.mutant = mutant
        self.operator = operators.get(mutant.operator)
        self.target = mutant.target
        self.applied = False
        self.reads: list[dict[str, Any]] = []  # {step, phase, check, held, why}, one per time the check was judged
        self.why = ""
        self._reading: PwLocator | None = None  # the target check's element, to look at once it was judged
        # A request's fault: the page as its accessibility tree saw it at each step's end, to tell
        # whether the fault changed anything a check could see (report.py compares the clean run's).
        self.arias: dict[int, str] = {}
        settings = loaded.workflow.settings
        self._action_ms = settings.action_timeout * 1000
        self._check_ms = settings.check_timeout * 1000

    def _wait_ms(self, full_ms: float) -> float:
        """How long to wait for the target to place the fault on it: the first time as long as the
        op or check would; once placed, a moment. A check judged again (a fallback's attempt) or an
        action redone meets the target again: a removed element is still gone, and waiting for it
        once more would add the step's whole timeout to every attempt; an element the page drew
        again is found at once and gets the fault again."""
        return full_ms if not self.applied else _AGAIN_MS

    @property
    def held(self) -> bool:
        """The last time its target check was judged (the judgement that let the run go on), the
        fault was in what it read."""
        return not self.reads or bool(self.reads[-1]["held"])

    def _judged(self) -> None:
        """The probe's next call after the target check's: it has been judged. Did the element it
        read carry the fault? (A check that failed ends the run: this is for one that passed.)"""
        loc, self._reading = self._reading, None
        if loc is None:
            return
        t = self.target
        state = hold.verify(loc)
        where = f"the {t.phase} check at line {t.line}" if t.step is not None else f"the outcome check at line {t.line}"
        why = {
            "held": "",
            "replaced": f"the page drew {t.locator} again and {where} read it without the fault",
            "gone": f"the page loaded a new document before {where} read {t.locator}: the fault was not in it",
            "nothing": f"{where} read {t.locator} without the fault: its text has nothing the fault changes "
            "(the number or word it was made for)",
        }.get(state, "")
        self.reads.append({"step": t.step, "phase": t.phase, "check": t.index, "held": not why, "why": why})
        self.why = why or self.why

    def start(self, page: Page) -> None:
        start = self.operator.start
        if start is not None:
            operators.apply_safely(self.mutant.id, lambda: start(page, self.target, self._hit))

    def _hit(self) -> None:
        """The fault took effect (a route answered for it, a script was installed)."""
        self.applied = True

    def before_op(self, page: Page, step: int, index: int, op: Op, locate: Locate) -> None:
        self._judged()
        t, on_op = self.target, self.operator.on_op
        if on_op is None or t.what != "op" or (t.step, t.index) != (step, index) or not isinstance(op.arg, Locator):
            return
        loc = locate(op.arg.plain())
        wait = self._wait_ms(op.timeout * 1000 if op.timeout is not None else self._action_ms)
        if operators.apply_safely(self.mutant.id, lambda: on_op(loc, t, wait)):
            self.applied = True
        elif not self.applied:
            self.why = f"{t.locator} never came before the op at line {t.line} (within {wait / 1000:g} s)"

    def before_check(self, page: Page, step: int | None, phase: str, index: int, check: Check, locate: Locate) -> None:
        t, on_check = self.target, self.operator.on_check
        if on_check is None or t.what != "check" or (t.step, t.phase, t.index) != (step, phase, index):
            self._judged()
            return
        # Judged again (a fallback's attempt): the judgement before failed, and says nothing here.
        self._reading = None
        if check.expect is None or t.expect_index >= len(check.expect):
            return
        arg = dict(check.expect[t.expect_index].items()).get(t.key)
        loc = locate(arg.plain()) if isinstance(arg, Locator) else None
        wait = self._wait_ms(check.timeout * 1000 if check.timeout is not None else self._check_ms)
        if operators.apply_safely(self.mutant.id, lambda: on_check(page, loc, t, wait)):
            self.applied = True
            if self.operator.holds and loc is not None:
                self._reading = loc
        elif not self.applied:
            self.why = f"{t.locator} never came before the check at line {t.line} (within {wait / 1000:g} s)"

    def action(self, page: Page, step: int, when: str) -> None:
        self._judged()

    def step_end(self, page: Page, step: int | None) -> None:
        self._judged()
        if self.target.what == "request" and step is not None:
            self.arias[step] = aria_of(page)
