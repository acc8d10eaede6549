"""How long a mutant's run waits for an element or a check: as long as its clean run needed for that
one op or check, with a margin, never longer than the workflow's own timeouts.

Stryker gives a mutant's tests the clean run's time times a factor plus a constant; a workflow's
killed mutant otherwise waits out a timeout chosen for a slow day on the real site (10 s for an
element that a mutant removed, 5 s for a count that is off by one) when its clean run found the
element in a tenth of a second. So each ``do:`` op and each pre/post check of a mutant's run gets
its own ``timeout:`` (workflow-format.md), at most ``max(MIN_S, FACTOR x what that op or check
needed in the clean run + MARGIN_S + the operator's slows_s x the fetches its step made)``.

Each wait is capped by its own need, not by its step's slowest: a step that fills a field at once
and then waits a second for the results gave the fill the second too (2.1 s for a field a mutant
removed, where 0.5 s is twice what the clean fill took plus the margin), and a check failing on
every attempt of its step paid that again each time. What the clean run does not tell, keeps the
step's cap (its slowest single wait, as above): the fallbacks (they act on a page the clean run may
never have shown, and what they may try is not the mutant's to shorten), an op or check that never
went through clean; the workflow's own (outcome checks) get the largest step cap. A page that is
just slower (the benign ``slow_responses`` operator delays every fetch by up to 0.8 s, one after
another in a chain, and says so) still passes. Only an operator that slows the page gets the
allowance per fetch: a fault that removes an element or changes a text makes no answer later.
A killed mutant's run is most of a mutation run's time, spent waiting out these caps (once for the
check, again for each fallback that cannot act), so they are what the run costs.

The caps are element and check waits. A page's load is not capped: the clean run's
``navigation_timeout`` (workflow-format.md, "Slow pages") is left as the file gives it, so a form
posted to a server that answers in seconds, by an op whose element the clean run found at once or
by a fallback, is waited for in a mutant's run as in the clean one. Except under an operator whose
fault is a request that never answers (``hangs``): there the wait is for what cannot come, and
each step's navigation budget is its cap, at least ``HANG_MIN_S`` (the run's largest cap for the
start page, which no step measured): a killed ``request_never`` mutant took 31 s, the default
budget, where its clean page loaded in a second.

The caps follow from the clean run's timing, so a machine busier during the mutants' runs than
during the clean one can run a cap out where the fault is not. Such a verdict is never the last
word (session.py): a benign mutant whose run fails under the caps is tried again with the
workflow's own timeouts before it is called a false alarm; a run that failed before its fault was
placed, again before it is called not applied; and a kill by an op whose wait ran out where the
fault is not (another op than the target's, or any op under a fault the page gets when it opens,
but a hang's navigation) is confirmed with the workflow's own timeouts and against the other
covering runs (outcome.doubtful). A second try keeps a hang's navigation budget: an answer that
cannot come is not waited for 30 s. The clean runs keep the workflow's timeouts, and ``reuseit
mutate --full-waits`` keeps them for every mutant.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from ..engine.result import StepResult, Verdict
from ..workflow.checks import Check
from ..workflow.loader import LoadedWorkflow
from ..workflow.ops import Op

MIN_S = 0.5
FACTOR = 2.0
MARGIN_S = 0.3
# The least navigation budget of a mutant whose fault hangs a request (see above): a cold page
# of a real app on a busy machine loads in a few seconds.
HANG_MIN_S = 5.0

# One step's needs, as the clean session records them (JSON): {"step": seconds, "ops": [...],
# "pre": [...], "post": [...]}; an entry of a list is None where that op or check never went through.
StepNeeds = dict[str, Any]


def _took(started: float, ended: float) -> float:
    return max(ended - started, 0.0)


def _verdict_needs(verdicts: list[Verdict], into: dict[int, float]) -> None:
    """A check that failed (a pre check on a cookie banner, before the fallback dismissed it) ran
    out its wait, which says nothing of how slow the page is: only checks that held count."""
    for n, v in enumerate(verdicts):
        if v.ok is not False:
            into[n] = max(into.get(n, 0.0), _took(v.started, v.ended))


def _listed(found: dict[int, float]) -> list[float | None]:
    return [round(found[n], 3) if n in found else None for n in range(max(found, default=-1) + 1)]


def needs(step: StepResult) -> StepNeeds:
    """What a clean run's step needed: each ``do:`` op and each check on its own (the longest of its
    tries that went through: an action redone by a fallback is its ops again, from the first), and
    the step's longest single wait of any kind (fallback ops included)."""
    ops: dict[int, float] = {}
    for records in (step.actions, *(a.actions for a in step.attempts)):
        own = [x for x in records if x.by == "do"]
        for n, x in enumerate(own):
            if x.ok:
                ops[n] = max(ops.get(n, 0.0), _took(x.started, x.ended))
    checks: dict[str, dict[int, float]] = {"pre": {}, "post": {}}
    _verdict_needs(step.pre, checks["pre"])
    _verdict_needs(step.post, checks["post"])
    for attempt in step.attempts:
        if attempt.phase in checks:
            _verdict_needs(attempt.verdicts, checks[attempt.phase])
    fallback_ops = [x for a in step.attempts for x in a.actions if x.by != "do" and x.ok]
    longest = max(
        [*ops.values(), *checks["pre"].values(), *checks["post"].values()]
        + [_took(x.started, x.ended) for x in fallback_ops],
        default=0.0,
    )
    return {
        "step": round(longest, 3),
        "ops": _listed(ops),
        "pre": _listed(checks["pre"]),
        "post": _listed(checks["post"]),
    }


def cap_for(need: float, fetches: int = 0, slows_s: float = 0.0) -> float:
    """The most a mutant's run waits at once where its clean run needed ``need`` seconds, in a step
    that made ``fetches`` fetch/XHR requests, under a fault that makes each answer up to ``slows_s`` later."""
    return round(max(MIN_S, FACTOR * need + MARGIN_S + slows_s * fetches), 1)


def caps_for(steps: list[StepNeeds], fetches: list[int], slows_s: float = 0.0) -> dict[str, Any]:
    """A clean run's caps under a fault: ``{"steps": [{"step": s, "ops": [...], "pre": [...],
    "post": [...]}], "run": the largest step cap}``, in seconds (None: no cap of its own)."""
    capped_steps: list[dict[str, Any]] = []
    for i, step in enumerate(steps):
        made = fetches[i] if i < len(fetches) else 0
        own = {
            key: [None if need is None else cap_for(need, made, slows_s) for need in step.get(key, [])]
            for key in ("ops", "pre", "post")
        }
        capped_steps.append({"step": cap_for(step["step"], made, slows_s), **own})
    return {"steps": capped_steps, "run": max((float(s["step"]) for s in capped_steps), default=MIN_S)}


def _own(items: tuple[Any, ...] | None, caps: list[float | None], default: float) -> Any:
    """``items`` (ops or checks) each with ``timeout`` at most its cap, where it has one."""
    if items is None:
        return None
    out = []
    for n, item in enumerate(items):
        cap = caps[n] if n < len(caps) else None
        assert isinstance(item, Op | Check)
        if cap is not None:
            item = item.model_copy(update={"timeout": min(item.timeout or default, cap)})
        out.append(item)
    return tuple(out)


def _hang_budget(given: float, cap: float) -> float:
    """A hanging fault's navigation budget: the cap, HANG_MIN_S at least, never above the file's."""
    return min(given, max(HANG_MIN_S, cap))


def capped(
    loaded: LoadedWorkflow, caps: dict[str, Any], *, hangs: bool = False, element_waits: bool = True
) -> LoadedWorkflow:
    """``loaded`` with each ``do:`` op and pre/post check waiting at most its own cap, the rest of
    each step (its fallbacks) at most the step's, and the workflow's own waits at most the largest
    (a step the clean run did not reach gets that one too). Its navigation budgets are copied as
    they are, unless the fault ``hangs`` a request (see the module's docstring). Without
    ``element_waits`` (a try with the workflow's own waits) only a hang's navigation budget is
    capped: what the page can never answer is not waited for any longer on a second try."""
    wf = loaded.workflow
    top = float(caps["run"])
    per_step: list[dict[str, Any]] = list(caps.get("steps", []))
    s = wf.settings
    update: dict[str, Any] = {}
    if element_waits:
        update = {"action_timeout": min(s.action_timeout, top), "check_timeout": min(s.check_timeout, top)}
    if hangs:
        update["navigation_timeout"] = _hang_budget(s.navigation_timeout, top)
    settings = s.model_copy(update=update)
    steps = []
    for i, step in enumerate(wf.steps):
        mine = per_step[i] if i < len(per_step) else {}
        cap = float(mine.get("step") or top)
        # What the file gives this step; every cap below is min()-ed with it, never above.
        action_s = step.action_timeout or s.action_timeout
        check_s = step.check_timeout or s.check_timeout
        navigation: dict[str, Any] = {}
        if hangs:
            navigation["navigation_timeout"] = _hang_budget(step.navigation_timeout or s.navigation_timeout, cap)
        own: dict[str, Any] = {}
        if element_waits:
            own = {
                "action_timeout": min(action_s, cap),
                "check_timeout": min(check_s, cap),
                "do": _own(step.do, mine.get("ops", []), action_s),
                "pre": _own(step.pre, mine.get("pre", []), check_s),
                "post": _own(step.post, mine.get("post", []), check_s),
            }
        steps.append(step.model_copy(update={**navigation, **own}))
    return dataclasses.replace(loaded, workflow=wf.model_copy(update={"settings": settings, "steps": tuple(steps)}))
