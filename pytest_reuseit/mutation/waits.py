"""How long a mutant's run waits for an element or a check: as long as its clean run needed, with a
margin, never longer than the workflow's own timeouts.

Stryker gives a mutant's tests the clean run's time times a factor plus a constant; a workflow's
killed mutant otherwise waits out a timeout chosen for a slow day on the real site (10 s for an
element that a mutant removed, 5 s for a count that is off by one) when its clean run found the
element in a tenth of a second. So each mutant run's ``action_timeout`` and ``check_timeout``
(the workflow's and each step's) are capped at ``max(MIN_S, FACTOR x the clean run's slowest
step + MARGIN_S + SLOW_S x the most fetches one step made)``: a page that is just slower (the
benign ``slow_responses`` operator delays every fetch by up to 0.8 s, one after another in a
chain) still passes, a missing element fails in about a second. A killed mutant's run is most of
a mutation run's time (one wait of the cap each), so the least cap is what the whole run costs.

A benign mutant whose run fails under the cap is tried again with the workflow's own timeouts
before it is called a false alarm (session.py): a machine busier than in the clean run must not
read as a false alarm. The clean runs keep the workflow's timeouts, and ``reuseit mutate
--full-waits`` keeps them for every mutant.
"""

from __future__ import annotations

import dataclasses

from ..engine.result import StepResult
from ..workflow.loader import LoadedWorkflow

MIN_S = 1.0
FACTOR = 2.0
MARGIN_S = 0.5
SLOW_S = 0.8  # the most slow_responses adds to one fetch


def needed(step: StepResult) -> float:
    """How long a clean run's step took, less what it spent waiting out a check or an op that never
    came true (a pre check on a cookie banner, before the fallback dismissed it): a wait that ran
    out in the clean run runs out under any cap, so it is no measure of how slow the page is."""
    verdicts = [*step.pre, *step.post, *(v for a in step.attempts for v in a.verdicts)]
    actions = [*step.actions, *(x for a in step.attempts for x in a.actions)]
    wasted = sum(v.ended - v.started for v in verdicts if v.ok is False and v.ended > v.started)
    wasted += sum(x.ended - x.started for x in actions if not x.ok and x.ended > x.started)
    return max(0.0, step.duration - wasted)


def cap_for(longest_step: float, most_fetches: int = 0) -> float:
    """The most a mutant's run waits at once, for a clean run whose slowest step took
    ``longest_step`` seconds and whose busiest step made ``most_fetches`` fetch/XHR requests."""
    return round(max(MIN_S, FACTOR * longest_step + MARGIN_S + SLOW_S * most_fetches), 1)


def capped(loaded: LoadedWorkflow, cap: float) -> LoadedWorkflow:
    """``loaded`` with its action and check timeouts (workflow and steps) at most ``cap`` seconds."""
    wf = loaded.workflow
    settings = wf.settings.model_copy(
        update={
            "action_timeout": min(wf.settings.action_timeout, cap),
            "check_timeout": min(wf.settings.check_timeout, cap),
        }
    )
    steps = tuple(
        step.model_copy(
            update={
                "action_timeout": None if step.action_timeout is None else min(step.action_timeout, cap),
                "check_timeout": None if step.check_timeout is None else min(step.check_timeout, cap),
            }
        )
        for step in wf.steps
    )
    return dataclasses.replace(loaded, workflow=wf.model_copy(update={"settings": settings, "steps": steps}))
