"""How long a mutant's run waits for an element or a check: as long as its clean run needed at that
step, with a margin, never longer than the workflow's own timeouts.

Stryker gives a mutant's tests the clean run's time times a factor plus a constant; a workflow's
killed mutant otherwise waits out a timeout chosen for a slow day on the real site (10 s for an
element that a mutant removed, 5 s for a count that is off by one) when its clean run found the
element in a tenth of a second. So each step's ``action_timeout`` and ``check_timeout`` in a
mutant's run are capped at ``max(MIN_S, FACTOR x the longest single op or check of that step in
the clean run + MARGIN_S + the operator's slows_s x the fetches the step made)``, and the
workflow's own (outcome checks) at the largest step cap: a page that is just slower (the benign ``slow_responses``
operator delays every fetch by up to 0.8 s, one after another in a chain, and says so) still
passes, a missing element fails in half a second. Only an operator that slows the page gets the
allowance per fetch: a fault that removes an element or changes a text makes no answer later, and
the allowance made the demo's killed mutants wait 2.5 s where 1 s was their clean step's double.
A killed mutant's run is most of a mutation run's time, spent waiting out these caps (once for the
check, again for each fallback that cannot act), so they are what the run costs.

A benign mutant whose run fails under the caps is tried again with the workflow's own timeouts
before it is called a false alarm (session.py): a machine busier than in the clean run must not
read as a false alarm. The clean runs keep the workflow's timeouts, and ``reuseit mutate
--full-waits`` keeps them for every mutant.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from ..engine.result import StepResult
from ..workflow.loader import LoadedWorkflow

MIN_S = 0.5
FACTOR = 2.0
MARGIN_S = 0.3


def needed(step: StepResult) -> float:
    """The longest a clean run's step waited at once: its slowest op or check that went through.
    Each op and each check gets the step's timeout on its own, so the step's whole time (every op,
    every check, the pictures between them) would give each wait the time of all of them: a
    TodoMVC check that came true in 40 ms had a 1 s cap. A wait that ran out in the clean run (a pre
    check on a cookie banner, before the fallback dismissed it) runs out under any cap, so it is no
    measure of how slow the page is."""
    verdicts = [*step.pre, *step.post, *(v for a in step.attempts for v in a.verdicts)]
    actions = [*step.actions, *(x for a in step.attempts for x in a.actions)]
    waits = [v.ended - v.started for v in verdicts if v.ok is not False and v.ended > v.started]
    waits += [x.ended - x.started for x in actions if x.ok and x.ended > x.started]
    return max(waits, default=0.0)


def cap_for(need: float, fetches: int = 0, slows_s: float = 0.0) -> float:
    """The most a mutant's run waits at once in a step whose clean run needed ``need`` seconds and
    made ``fetches`` fetch/XHR requests, under a fault that makes each answer up to ``slows_s`` later."""
    return round(max(MIN_S, FACTOR * need + MARGIN_S + slows_s * fetches), 1)


def caps_for(needs: list[float], fetches: list[int], slows_s: float = 0.0) -> dict[str, Any]:
    """A clean run's caps under a fault: ``{"steps": [seconds per step], "run": the largest}``."""
    steps = [cap_for(need, fetches[i] if i < len(fetches) else 0, slows_s) for i, need in enumerate(needs)]
    return {"steps": steps, "run": max(steps, default=MIN_S)}


def capped(loaded: LoadedWorkflow, caps: dict[str, Any]) -> LoadedWorkflow:
    """``loaded`` with each step's action and check timeouts at most its cap, and the workflow's at
    most the largest (a step the clean run did not reach gets that one too)."""
    wf = loaded.workflow
    top = float(caps["run"])
    per_step = [float(c) for c in caps.get("steps", [])]
    s = wf.settings
    settings = s.model_copy(
        update={"action_timeout": min(s.action_timeout, top), "check_timeout": min(s.check_timeout, top)}
    )
    steps = []
    for i, step in enumerate(wf.steps):
        cap = per_step[i] if i < len(per_step) else top
        steps.append(
            step.model_copy(
                update={
                    "action_timeout": min(step.action_timeout or s.action_timeout, cap),
                    "check_timeout": min(step.check_timeout or s.check_timeout, cap),
                }
            )
        )
    return dataclasses.replace(loaded, workflow=wf.model_copy(update={"settings": settings, "steps": tuple(steps)}))
