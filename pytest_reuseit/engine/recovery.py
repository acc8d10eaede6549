"""Recovering a step whose pre check, action or post check failed: up to ``retries`` attempts,
each one of the step's fallbacks (ops, or words for the agent), then the phase judged again.
"""

from __future__ import annotations

import logging
import time

from ..browser.ops import OpFailed
from ..errors import BrokenRun
from ..workflow.steps import Fallback, Step
from .actions import cut_short, perform_action, run_ops, stamp
from .context import RunContext
from .judging import first_failure, judge_all
from .result import Attempt, Phase, StepResult
from .screenshots import take_shot

log = logging.getLogger(__name__)


def _redo(ctx: RunContext, i: int, step: Step, sr: StepResult, att: Attempt) -> bool:
    """Perform the step's action again inside an attempt; True when it went through."""
    before = len(sr.actions)
    err = perform_action(ctx, i, step, sr)
    att.actions.extend(sr.actions[before:])
    del sr.actions[before:]
    if err is not None:
        att.note = str(err)
    return err is None


# How long checks wait when judged again after an attempt that did nothing to the page: one look.
_RELOOK_MS = 250.0


def recover(ctx: RunContext, i: int, step: Step, sr: StepResult, phase: Phase, reason: str, deadline: float) -> bool:
    """Up to ``retries`` attempts; attempt n uses fallback n (cycling). True once the phase holds.

    No fallback, no second action: a step without fallbacks makes no attempt. Its check has
    already waited up to ``check_timeout`` (a DOM assertion auto-waits, words are judged again
    when the page changes), and repeating the action could place an order or send a message again,
    and would change what the failure shows."""
    fallbacks = [fb for fb in step.fallback if fb.answers(phase)]
    if not fallbacks:
        return False
    retries, _, step_timeout, _ = ctx.step_settings(step)
    for n in range(1, retries + 1):
        if time.monotonic() > deadline:
            sr.attempts.append(Attempt(n, phase, "(none)", note=f"step_timeout of {step_timeout:g}s reached"))
            return False
        ctx.retrying()
        fb = fallbacks[(n - 1) % len(fallbacks)]
        att = Attempt(n, phase, ctx.values.render(fb.describe()))
        att.started = time.time()
        sr.attempts.append(att)
        try:
            went_through = _attempt(ctx, i, step, sr, phase, fb, att, reason)
            if phase == "action":
                att.ok = went_through
            else:
                # Judge again even when the attempt itself stumbled: the page may be right anyway.
                # An attempt that did nothing to the page (its ops failed before acting, or a
                # fallback in words had no model) gave it only time, which the checks already
                # waited out: they look once more rather than wait their whole timeout again.
                acted = any(a.ok for a in att.actions)
                att.verdicts, att.ok = judge_all(
                    ctx,
                    step.pre if phase == "pre" else step.post,
                    phase,
                    ("steps", i, phase),
                    step,
                    when=f"attempt {n}",
                    timeout_ms=None if acted else _RELOOK_MS,
                )
                if not att.ok:
                    reason = first_failure(att.verdicts)
        except BrokenRun as exc:
            # The verdict rule: the check (or action) already failed on the site; a recovery that the
            # browser or the model cut short does not turn that failure into "could not be judged".
            cut_short(ctx, att, exc)
            return False
        # A failing check already pictured this state: the attempt shares that picture.
        pictured = next((v.screenshot for v in att.verdicts if v.screenshot is not None), None)
        att.screenshot = pictured or take_shot(ctx, f"step {sr.index} attempt {n}", always=True)
        att.ended = time.time()
        if att.ok:
            return True
        log.info("step %s %s attempt %s failed: %s", sr.index, phase, n, ctx.values.mask(att.note or reason))
    return False


def _attempt(
    ctx: RunContext, i: int, step: Step, sr: StepResult, phase: Phase, fb: Fallback, att: Attempt, reason: str
) -> bool:
    """Carry out one attempt; True when everything it tried went through."""
    try:
        if fb.agent is not None:
            agent = ctx.models.agent
            if agent is None:
                att.note = "not run: fallbacks in words need a model (--reuseit-llm)"
                return False
            started = time.time()
            outcome = agent.perform(
                ctx.page,
                ctx.for_model(ctx.values.render(fb.agent), "fallback"),
                goal=ctx.for_agent(sr.action),
                failure=ctx.values.mask(reason),
                history=list(sr.actions),
            )
            att.actions.extend(stamp(outcome, started).actions)
            att.note = outcome.message
            return outcome.done
        assert fb.do is not None
        run_ops(ctx, step, fb.do, "fallback", att.actions)
        if fb.redo and phase != "pre":
            return _redo(ctx, i, step, sr, att)
        return True
    except OpFailed as exc:
        att.note = str(exc)
        return False
