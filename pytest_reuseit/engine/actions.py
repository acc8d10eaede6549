"""A step's action: its ``do`` ops run in order and recorded (also a fallback's ops), healed by
the agent when one breaks, or the agent alone when the step has no ops.
"""

from __future__ import annotations

import dataclasses
import logging
import time
from typing import Literal

from ..browser.ops import OpContext, OpFailed, run_op
from ..errors import BrokenRun
from ..workflow.op_args import Extract
from ..workflow.ops import Op
from ..workflow.steps import Step
from .context import RunContext
from .ports import AgentOutcome
from .result import ActionRecord, Attempt, HealingSuggestion, StepResult

log = logging.getLogger(__name__)


def probed_action(ctx: RunContext, i: int, step: Step, sr: StepResult) -> OpFailed | None:
    """The step's action, with the probe told before and after (after only when it went through)."""
    probe = ctx.options.probe
    if probe is not None:
        probe.action(ctx.page, i, "before")
    err = perform_action(ctx, i, step, sr)
    if probe is not None and err is None:
        probe.action(ctx.page, i, "after")
    return err


def keep_extracted(ctx: RunContext, name: str, value: str) -> None:
    """Keep an extracted value; one that holds a secret is itself a secret from now on."""
    if ctx.values.holds_secret(value):
        ctx.values.add_derived(value)
    ctx.values.extracted[name] = value
    ctx.result.extracted[name] = value


def op_context(ctx: RunContext, step: Step) -> OpContext:
    _, _, _, action_timeout = ctx.step_settings(step)
    reader = ctx.models.reader
    query = (lambda q: reader.read(ctx.page, ctx.for_model(q, "extract query"))) if reader is not None else None
    return OpContext(
        render=ctx.values.render,
        reveal=lambda text: ctx.values.render(text, reveal=True),
        action_timeout_ms=action_timeout,
        extracted=ctx.values.extracted,
        blocked=ctx.blocked,
        query=query,
        taint=ctx.values.add_derived,
        pages=ctx.pages,
        folder=ctx.loaded.folder,
        output_dir=ctx.run_dir(),
    )


# Ops that act on an element; a fallback's first one acts on the page as it is (see run_ops).
_ELEMENT_OPS = frozenset(
    (
        "click",
        "dblclick",
        "hover",
        "mouse_down",
        "mouse_up",
        "mouse_out",
        "drag",
        "check",
        "uncheck",
        "focus",
        "fill",
        "type",
        "change",
        "select",
        "upload",
        "download",
    )
)
# How long a fallback's first element op looks for its element.
_FALLBACK_FIRST_MS = 1_000.0


def run_ops(
    ctx: RunContext, step: Step, ops: tuple[Op, ...], by: Literal["do", "fallback"], records: list[ActionRecord]
) -> None:
    """Run ops in order; record each; re-raise the first OpFailed after recording it.

    A fallback's first op, when it acts on an element, waits at most ``_FALLBACK_FIRST_MS`` for
    it: a fallback runs once the checks have given the page their whole ``check_timeout``, and it
    acts on the page as a person would at that moment ("Accept cookies" if the banner is there),
    not after another ``action_timeout`` for a banner that is not coming. The ops after it wait
    their ``action_timeout``: the first may have opened what they act on. An op's own ``timeout``
    is what it waits, in a fallback too: the author said so."""
    octx = op_context(ctx, step)
    probe = ctx.options.probe if by == "do" else None
    step_index = next((n for n, s in enumerate(ctx.loaded.workflow.steps) if s is step), -1)
    for op_index, op in enumerate(ops):
        if probe is not None:
            probe.before_op(ctx.page, step_index, op_index, op, ctx.locate())
        started = time.time()
        now = octx
        if op.timeout is not None:  # the op's own, as written, wins over the step's and the fallback rule
            now = dataclasses.replace(octx, action_timeout_ms=op.timeout * 1000)
        elif by == "fallback" and op_index == 0 and op.kind in _ELEMENT_OPS:
            now = dataclasses.replace(octx, action_timeout_ms=min(octx.action_timeout_ms, _FALLBACK_FIRST_MS))
        try:
            done = run_op(op, now)
        except OpFailed as exc:
            mask = ctx.values.mask  # the agent reads these records: no revealed value may stay in them
            records.append(
                ActionRecord(mask(exc.op), by, ok=False, error=mask(exc.reason), started=started, ended=time.time())
            )
            raise
        records.append(ActionRecord(ctx.values.mask(done), by, ok=True, started=started, ended=time.time()))
        # Values an op stored (extract, download's into) belong in the report too.
        for name in (op.arg.into if isinstance(op.arg, Extract) else None, op.into):
            if name is not None:
                keep_extracted(ctx, name, ctx.values.extracted[name])


def perform_action(ctx: RunContext, i: int, step: Step, sr: StepResult) -> OpFailed | None:
    """The step's action: its ``do`` ops, healed by the agent if they break, or the agent alone."""
    agent = ctx.models.agent
    if step.do is None:
        if agent is None:
            raise BrokenRun(
                f"step {i + 1} has no 'do' ops and no model is available to perform '{sr.action}'; "
                "add 'do' ops (do: [] if the step only checks) or enable a model (--reuseit-llm)"
            )
        started = time.time()
        outcome = agent.perform(
            ctx.page, ctx.for_agent(sr.action), goal=ctx.for_agent(ctx.result.task), failure="", history=[]
        )
        stamp(outcome, started)
        sr.actions.extend(outcome.actions)
        return (
            None
            if outcome.done
            else OpFailed(f"agent: {sr.action}", outcome.message or "the agent could not do it", "agent")
        )
    try:
        run_ops(ctx, step, step.do, "do", sr.actions)
        return None
    except OpFailed as exc:
        if agent is None or exc.kind == "blocked":
            return exc
        broken_index = len([a for a in sr.actions if a.by == "do"]) - 1
        ctx.retrying()
        try:
            outcome = _heal(ctx, sr, exc)
        except BrokenRun as cut:
            cut_short(ctx, None, cut)  # the action failed on the site; healing it could not be tried
            return exc
        sr.actions.extend(outcome.actions)
        if not outcome.done:
            return exc
        sr.status = "healed"
        replacement = "; ".join(a.locator or a.description for a in outcome.actions if a.ok)
        ctx.result.healing.append(
            HealingSuggestion(
                step=i + 1,
                op_index=broken_index,
                broken=exc.op,
                replacement=replacement,
                line=ctx.loaded.source.line("steps", i, "do", broken_index),
            )
        )
        return None


def _heal(ctx: RunContext, sr: StepResult, exc: OpFailed) -> AgentOutcome:
    assert ctx.models.agent is not None
    started = time.time()
    outcome = ctx.models.agent.perform(
        ctx.page,
        ctx.for_agent(sr.action),
        goal=ctx.for_agent(ctx.result.task),
        failure=ctx.values.mask(str(exc)),
        history=list(sr.actions),
    )
    return stamp(outcome, started)


def stamp(outcome: AgentOutcome, started: float) -> AgentOutcome:
    """The agent's actions get the times of the call that made them (shared evenly: it does not time them)."""
    ended = time.time()
    todo = [a for a in outcome.actions if not a.started]
    share = (ended - started) / max(len(todo), 1)
    for n, rec in enumerate(todo):
        rec.started, rec.ended = started + n * share, started + (n + 1) * share
    return outcome


def cut_short(ctx: RunContext, att: Attempt | None, exc: BrokenRun) -> None:
    note = f"recovery cut short: {exc}"
    if att is not None:
        att.note = note
        att.ended = time.time()
    if not ctx.result.infrastructure:
        ctx.result.infrastructure = str(exc)
    log.info("%s", ctx.values.mask(note))
