"""Judging a phase's checks on the current page: DOM assertions, checks in words through the
model (one look shared by neighbouring checks, a page never asked about twice), and the second
opinion on a promoted assertion that failed.
"""

from __future__ import annotations

import functools
import time

from ..browser.assertions import DomVerdict, check_expect
from ..errors import BrokenRun
from ..workflow.checks import Check, Expect
from ..workflow.steps import Step
from .context import RunContext
from .ports import Judge, Judgement
from .result import Phase, Screenshot, Verdict
from .screenshots import settled_view, take_shot


def judge_all(
    ctx: RunContext,
    checks: tuple[Check, ...],
    phase: Phase,
    path: tuple[str | int, ...],
    step: Step | None = None,
    *,
    when: str = "",
    timeout_ms: float | None = None,
) -> tuple[list[Verdict], bool]:
    """Judge every check; ``when`` ("attempt 2") goes into screenshot labels to tell the pictures apart.

    Checks in words that follow one another are judged on one picture of the settled page, as a
    person reads several things off one look: a cache hit then costs a key and a file read, not a
    new screenshot each. A DOM assertion between them may wait for the page to change, so the
    check after it looks again; so does every phase."""
    check_timeout = (
        ctx.step_settings(step)[1] if step is not None else ctx.loaded.workflow.settings.check_timeout * 1000
    )
    probe = ctx.options.probe
    step_index = path[1] if path[0] == "steps" and isinstance(path[1], int) else None
    try:
        verdicts = []
        for n, c in enumerate(checks):
            if probe is not None:
                probe.before_check(ctx.page, step_index, phase, n, c, ctx.locate())
            wait = c.timeout * 1000 if c.timeout is not None else check_timeout
            if timeout_ms is not None:
                wait = min(wait, timeout_ms)
            verdicts.append(_judge(ctx, c, phase, ctx.loaded.source.line(*path, n), wait, when))
    finally:
        ctx.looked_at = None  # the next phase looks again (it is None whenever no phase is judged)
    return verdicts, all(v.ok is not False for v in verdicts)


def _check_expect(ctx: RunContext, exp: Expect, timeout_ms: float) -> list[DomVerdict]:
    """DOM assertions on the current page; judged again on the new current page when the page they
    started on closed meanwhile (a pop-up that closes itself just after its last op)."""
    acting_on = ctx.page
    reveal = functools.partial(ctx.values.render, reveal=True)  # compared with the real value, shown masked
    try:
        verdicts = check_expect(ctx.pages, exp, reveal, timeout_ms)
    except BrokenRun:
        # "Target page has been closed" reads as the browser going away; it is only the page.
        if not (acting_on.is_closed() and ctx.pages.open_pages()):
            raise
        return check_expect(ctx.pages, exp, reveal, timeout_ms)
    if any(not dv.ok for dv in verdicts) and acting_on.is_closed() and ctx.pages.open_pages():
        verdicts = check_expect(ctx.pages, exp, reveal, timeout_ms)
    return verdicts


def _judge(ctx: RunContext, check: Check, phase: Phase, line: int, timeout_ms: float, when: str = "") -> Verdict:
    started = time.time()
    v = _judge_once(ctx, check, phase, line, timeout_ms, when)
    v.started, v.ended = started, time.time()
    return v


def _judge_once(ctx: RunContext, check: Check, phase: Phase, line: int, timeout_ms: float, when: str) -> Verdict:
    render, mask = ctx.values.render, ctx.values.mask
    words = render(check.check) if check.check else None
    v = Verdict(
        check=mask(render(check.describe())), phase=phase, ok=None, source="none", line=line, page=ctx.page_name()
    )
    if check.expect is not None:
        ctx.looked_at = None  # the assertions may wait for the page to change
        # Secrets are compared with their real values; what the verdict says about them is masked.
        failed = next((dv for exp in check.expect for dv in _check_expect(ctx, exp, timeout_ms) if not dv.ok), None)
        v.page = ctx.page_name()  # where they were judged in the end (the opener, if a pop-up closed meanwhile)
        if failed is not None:
            v.ok, v.source, v.expected, v.actual = False, "dom", mask(failed.expected), mask(failed.actual)
            v.screenshot = take_shot(ctx, f"{phase} check failed{f' ({when})' if when else ''}: {v.check}", always=True)
            if check.promoted and words is not None and ctx.models.judge is not None:
                _second_opinion(ctx, check, v, ctx.for_model(words, "check"), phase, line, when, timeout_ms)
            return v
        v.ok, v.source = True, "dom"
        if check.promoted:
            v.explanation = "the promoted assertion held (no model call)"
            return v
    if words is None:
        return v
    judge = ctx.models.judge
    if judge is None:
        if check.expect is None:
            # Model-only: nobody judged it. With a DOM part, the DOM verdict stands.
            v.explanation = "not judged: checks in words need a model (--reuseit-llm)"
            ctx.result.not_judged.append(v)
        else:
            v.explanation = "words not judged (no model); the DOM assertion held"
        return v
    words = ctx.for_model(words, "check")
    label = f"{phase} check{f' ({when})' if when else ''}: {words}"
    shot, answer = _judge_words(ctx, judge, words, check.votes, label, timeout_ms)
    v.screenshot = shot
    _record_for_promotion(ctx, check, line, words, answer, shot.data)
    v.explanation = answer.explanation
    v.source = "dom+model" if check.expect is not None else "model"
    v.ok = answer.met
    return v


def _judge_words(
    ctx: RunContext, judge: Judge, words: str, votes: int, label: str, timeout_ms: float
) -> tuple[Screenshot, Judgement]:
    """Ask the model; while it finds the condition not met, look again until ``timeout_ms`` and
    ask again only when the page has changed (a page still loading does not fail the check; a
    steady page costs one call). The same picture and text are never asked about twice in a run."""
    deadline = time.monotonic() + timeout_ms / 1000
    page = ctx.page
    view = (
        ctx.looked_at[1]
        if ctx.looked_at is not None and ctx.looked_at[0] is page
        else settled_view(ctx, timeout_ms, text=True, known=lambda v: judge.knows(words, v.image, v.text, votes))
    )
    while True:
        key = (words, votes, view.image, view.text)
        answer = ctx.judged.get(key)
        if answer is None:
            answer = ctx.judged[key] = judge.judge(words, view.image, view.text, votes)
        if answer.met:
            break
        latest = view
        while time.monotonic() < deadline and (latest.image, latest.text) == (view.image, view.text):
            ctx.page.wait_for_timeout(_REJUDGE_POLL_MS)
            latest = settled_view(ctx, max(0.0, deadline - time.monotonic()) * 1000, text=True)
        if (latest.image, latest.text) == (view.image, view.text):
            break  # check_timeout reached on an unchanged page
        view = latest
    ctx.looked_at = (page, view)
    return Screenshot(label=label, data=view.image, masked=view.masked), answer


# How often a check found not met looks at the page again for a change.
_REJUDGE_POLL_MS = 250


def _record_for_promotion(
    ctx: RunContext, check: Check, line: int, words: str, answer: Judgement, picture: bytes
) -> None:
    """Keep what the model judged (page and verdict) for ``reuseit promote``."""
    recorder = ctx.models.recorder
    if recorder is not None and check.check is not None:
        recorder.record(line, check.check, words, answer.met, answer.explanation, ctx.page, picture)


def _second_opinion(
    ctx: RunContext, check: Check, v: Verdict, words: str, phase: Phase, line: int, when: str, timeout_ms: float
) -> None:
    """A promoted assertion failed: one model call tells a stale assertion from a real defect."""
    assert ctx.models.judge is not None
    label = f"{phase} check{f' ({when})' if when else ''}: {words}"
    shot, answer = _judge_words(ctx, ctx.models.judge, words, 1, label, timeout_ms)
    v.screenshot = shot
    _record_for_promotion(ctx, check, line, words, answer, shot.data)
    failed = f"the promoted assertion failed (expected {v.expected}; actual: {v.actual})"
    v.source = "dom+model"
    if answer.met:
        v.ok, v.stale = True, True
        v.expected = v.actual = ""
        v.explanation = (
            f"{failed} but the model judged the words met: the assertion is stale, not the page. "
            f"Heal it: `reuseit promote {ctx.loaded.source.path} --apply` derives a new one from the recorded runs "
            f"(or edit its expect). The model: {answer.explanation}"
        )
    else:
        v.explanation = f"{answer.explanation} ({failed}; the model agrees the words do not hold: a real defect)"


def first_failure(verdicts: list[Verdict]) -> str:
    bad = next((v for v in verdicts if v.ok is False), None)
    return f"{bad.check}: {why(bad)}" if bad else ""


def why(v: Verdict) -> str:
    if v.expected or v.actual:
        return f"expected {v.expected}; actual: {v.actual}"
    return v.explanation or "not met"
