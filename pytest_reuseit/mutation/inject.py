"""The probe of a mutant's run: places the one fault of its mutant at the moment its target is
used (the op about to act, the check about to read) or when the page opens (routes, scripts)."""

from __future__ import annotations

from playwright.sync_api import Page

from ..engine.ports import Locate
from ..workflow.loader import LoadedWorkflow
from ..workflow.model import Check, Locator, Op
from . import operators
from .plan import Mutant

_AGAIN_MS = 100.0


class Injector:
    """Never raises (the probe contract): ``applied`` says whether the fault was placed at all, so
    a run that failed without it is not counted as a kill."""

    def __init__(self, loaded: LoadedWorkflow, mutant: Mutant) -> None:
        self.loaded = loaded
        self.mutant = mutant
        self.operator = operators.get(mutant.operator)
        self.target = mutant.target
        self.applied = False
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

    def start(self, page: Page) -> None:
        start = self.operator.start
        if start is not None:
            operators.apply_safely(self.mutant.id, lambda: start(page, self.target, self._hit))

    def _hit(self) -> None:
        """The fault took effect (a route answered for it, a script was installed)."""
        self.applied = True

    def before_op(self, page: Page, step: int, index: int, op: Op, locate: Locate) -> None:
        t, on_op = self.target, self.operator.on_op
        if on_op is None or t.what != "op" or (t.step, t.index) != (step, index) or not isinstance(op.arg, Locator):
            return
        loc = locate(op.arg.plain())
        wait = self._wait_ms(op.timeout * 1000 if op.timeout is not None else self._action_ms)
        if operators.apply_safely(self.mutant.id, lambda: on_op(loc, t, wait)):
            self.applied = True

    def before_check(self, page: Page, step: int | None, phase: str, index: int, check: Check, locate: Locate) -> None:
        t, on_check = self.target, self.operator.on_check
        if on_check is None or t.what != "check" or (t.step, t.phase, t.index) != (step, phase, index):
            return
        if check.expect is None or t.expect_index >= len(check.expect):
            return
        arg = dict(check.expect[t.expect_index].items()).get(t.key)
        loc = locate(arg.plain()) if isinstance(arg, Locator) else None
        wait = self._wait_ms(check.timeout * 1000 if check.timeout is not None else self._check_ms)
        if operators.apply_safely(self.mutant.id, lambda: on_check(page, loc, t, wait)):
            self.applied = True

    def action(self, page: Page, step: int, when: str) -> None:
        pass

    def step_end(self, page: Page, step: int | None) -> None:
        pass
