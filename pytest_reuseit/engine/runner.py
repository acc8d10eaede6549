"""Runs one workflow variation on one page: action → checks → recovery → outcome.

No pytest, no Allure, no model client here: the plugin, the CLI and the Python API are adapters
around :func:`execute`, and model-backed parts arrive through :class:`~.ports.Models`.
"""

from __future__ import annotations

import dataclasses
import functools
import logging
import tempfile
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Literal

from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import Locator as PwLocator
from playwright.sync_api import Page

from ..browser.assertions import DomVerdict, check_expect
from ..browser.locators import resolve
from ..browser.masking import ScreenMasks, attach
from ..browser.observe import View, acted, capture_view, watch_network
from ..browser.ops import OpContext, OpFailed, classify, extract_value, run_op
from ..browser.pages import DialogPolicy, Pages, until_loaded
from ..browser.session import web_address
from ..errors import BrokenRun, PlaceholderError, ReuseitError
from ..workflow.loader import LoadedWorkflow, placeholder_names
from ..workflow.model import Check, Expect, Extract, Fallback, Locator, Op, Step, Variation
from ..workflow.placeholders import Values
from .analysis import observe
from .ports import AgentOutcome, Judge, Judgement, Models, Probe
from .result import ActionRecord, Attempt, HealingSuggestion, Phase, RunResult, Screenshot, StepResult, Verdict

log = logging.getLogger(__name__)

ScreenshotMode = Literal["steps", "failures", "off"]


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


@dataclass
class _Ctx:
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
    # may be judged on it too (see _judge_all).
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


def execute(
    page: Page | Pages,
    loaded: LoadedWorkflow,
    variation: str | None = None,
    *,
    builtins: Mapping[str, object] | None = None,
    extra_params: dict[str, object] | None = None,
    options: RunOptions | None = None,
    models: Models | None = None,
    blocked: list[str] | None = None,
) -> RunResult:
    """Run ``loaded`` (one variation of it) on ``page`` and return everything that happened.

    ``page`` is the page to start on, or a :class:`Pages` holder when the caller follows the run's
    pages itself; pages the run opens (pop-ups, tabs) are followed either way.
    """
    wf = loaded.workflow
    pages = Pages.wrap(page)
    pages.default_dialog = pages.dialog = DialogPolicy.of(wf.settings.dialog)
    pages.folder = loaded.folder
    var = _pick_variation(loaded, variation)
    params: dict[str, object] = {**wf.params, **var.params, **(extra_params or {})}
    # Not copied: a built-in's value may be computed on first use (a local server that starts then).
    values = Values(params=params, builtins=builtins if builtins is not None else {})
    var_index = wf.variations.index(var) if var in wf.variations else None
    result = RunResult(
        workflow=wf.name,
        file=loaded.source.path,
        line=loaded.source.line("variations", var_index) if var_index is not None else 1,
        variation=var.id,
        kind=var.kind,
        task="",
        params={},
        total_steps=len(wf.steps),
    )
    ctx = _Ctx(
        pages,
        loaded,
        values,
        options or RunOptions(),
        models or Models(),
        result,
        _screen_masks(pages.page, values, wf.mask),
        blocked if blocked is not None else [],
    )
    ctx.models.values = values
    started = time.monotonic()
    result.started = time.time()
    try:
        read_environment(values, placeholder_names(wf, extra_params))
        result.task = values.render(wf.task)
        result.params = {k: values.render(str(v)) for k, v in params.items()}
        _run(ctx)
    except _StartFailed:
        pass
    except PlaceholderError as exc:
        _broken(ctx, f"placeholder: {exc}")
    except BrokenRun as exc:
        _broken(ctx, str(exc))
    except PlaywrightError as exc:  # anything Playwright raised that the op layer did not sort
        err = classify(exc, "browser")
        _broken(ctx, str(err)) if isinstance(err, BrokenRun) else _broken(ctx, f"unexpected browser error: {err}")
    finally:
        result.duration = time.monotonic() - started
        result.ended = result.started + result.duration
        result.blocked_navigation = list(ctx.blocked)
        result.usage = ctx.models.usage
        result.typed_secret = bool(values.secrets_used)
        _record_pages(ctx)
    # Mask first: the analysis quotes verdicts and messages, and the analyst sends them to a model.
    _mask_result(ctx)
    if result.status in ("failed", "broken"):
        # Which steps declare no fallback, so the analysis can say why a step made no attempt.
        observed = observe(result, without_fallback={n + 1 for n, s in enumerate(wf.steps) if not s.fallback})
        result.analysis = observed
        if ctx.models.analyst is not None and result.status == "failed":
            try:
                result.analysis = ctx.models.analyst.analyze(result, observed)
            except ReuseitError as exc:
                log.warning("the model could not write the analysis (%s); keeping the observed one", exc)
    return result


def read_environment(values: Values, names: set[str]) -> None:
    """Every ``{env.X}`` and ``{secret.X}`` must be set before anything runs; secrets are masked from the start."""
    for name in sorted(names):
        if name.startswith("env.") and name[4:] not in values.environ:
            raise PlaceholderError(f"environment variable '{name[4:]}' (used as {{{name}}}) is not set")
    values.load_secrets(sorted(n[len("secret.") :] for n in names if n.startswith("secret.")))


def _screen_masks(page: Page, values: Values, regions: tuple[Locator, ...]) -> ScreenMasks:
    """What every screenshot of this run paints over (secrets, ``mask:``), attached to the page's
    context so that the agent's and the reader's captures, and pop-ups', paint it too."""
    masks = ScreenMasks(secret_values=values.known_secrets, render=values.render, regions=regions)
    try:
        attach(page.context, masks)
        watch_network(page.context)
    except PlaywrightError:
        pass  # the browser is gone: the run will say so when it first touches the page
    return masks


def _record_pages(ctx: _Ctx) -> None:
    """What the reports list about the run's pages: the final one, all of them, downloads."""
    result, pages = ctx.result, ctx.pages
    try:
        result.final_url = pages.page.url
        result.final_title = pages.page.title() if result.status != "passed" else ""
    except PlaywrightError:
        result.final_url = ""  # the page is gone: the result says so in its message
    result.pages = [p.url for p in pages.order]
    result.unvisited_pages = [p.url for p in pages.unvisited()]
    result.downloads = list(pages.downloads)


def _output_dir(ctx: _Ctx) -> str:
    if not ctx.output_dir:
        ctx.output_dir = ctx.options.output_dir or tempfile.mkdtemp(prefix="reuseit-run-")
    return ctx.output_dir


def _pick_variation(loaded: LoadedWorkflow, variation: str | None) -> Variation:
    variations = loaded.workflow.all_variations()
    if variation is None:
        return variations[0]
    for var in variations:
        if var.id == variation:
            return var
    raise ReuseitError(
        f"{loaded.source.path}: no variation '{variation}'; variations: {', '.join(v.id for v in variations)}"
    )


def _broken(ctx: _Ctx, message: str) -> None:
    ctx.result.status = "broken"
    ctx.result.message = message
    if ctx.result.failed_phase is None:
        ctx.result.failed_phase = "start" if not ctx.result.steps else ctx.result.steps[-1].failed_phase or "action"
    if ctx.result.steps and ctx.result.steps[-1].status not in ("passed", "recovered", "healed"):
        ctx.result.steps[-1].status = "broken"
        ctx.result.steps[-1].error = message
        ctx.result.failed_step = ctx.result.steps[-1].index


def _run(ctx: _Ctx) -> None:
    wf = ctx.loaded.workflow
    url = ctx.values.render(wf.start_url, reveal=True)
    ctx.result.start_url = ctx.values.mask(url)
    if ctx.options.probe is not None:
        ctx.options.probe.start(ctx.page)
    _open(ctx, url)
    for i, step in enumerate(wf.steps):
        origin = ctx.loaded.origin(i)
        sr = StepResult(
            index=i + 1,
            action=ctx.values.render(step.action),
            line=ctx.loaded.source.line("steps", i),
            group=origin.group,
            group_id=origin.group_id,
            file=origin.file if origin.file != ctx.loaded.source.path else "",
        )
        ctx.result.steps.append(sr)
        started = time.monotonic()
        sr.started = time.time()
        ctx.masks.step_regions = step.mask
        dialogs_before = len(ctx.pages.dialogs)
        try:
            _step(ctx, i, step, sr)
        finally:
            sr.duration = time.monotonic() - started
            sr.ended = sr.started + sr.duration
            ctx.masks.step_regions = ()
            sr.masked = ctx.masks.drain()
            ctx.result.masked.extend(m for m in sr.masked if m not in ctx.result.masked)
            sr.dialogs = ctx.pages.dialogs[dialogs_before:]
            sr.page = _page_name(ctx)
        if sr.status == "failed":
            ctx.result.status = "failed"
            ctx.result.failed_step = sr.index
            ctx.result.failed_phase = sr.failed_phase
            ctx.result.message = sr.error
            return
    if wf.outcome:
        verdicts, ok = _judge_all(ctx, wf.outcome, "outcome", ("outcome",))
        ctx.result.outcome = verdicts
        ctx.result.masked.extend(m for m in ctx.masks.drain() if m not in ctx.result.masked)
        if not ok:
            bad = next(v for v in verdicts if v.ok is False)
            ctx.result.status = "failed"
            ctx.result.failed_phase = "outcome"
            ctx.result.message = f"outcome check failed: {bad.check}: {_why(bad)}"
            return
        if ctx.options.probe is not None:
            ctx.options.probe.step_end(ctx.page, None)
    ctx.result.healed = any(s.status == "healed" for s in ctx.result.steps)


def _page_name(ctx: _Ctx) -> str:
    """The current page as reports name it, once the run has more than one page (else "")."""
    if len(ctx.pages.order) < 2:
        return ""
    return ctx.pages.name()


def _open(ctx: _Ctx, url: str) -> None:
    timeout = ctx.loaded.workflow.settings.step_timeout * 1000
    if not web_address(url):
        raise BrokenRun(f"start_url {url} is not a web address: write it with http:// or https://")
    try:
        # The document, then its load event for a moment (until_loaded): a frame or an image that
        # never comes (a hung third-party resource) leaves a page the checks can still judge.
        response = ctx.page.goto(url, timeout=timeout, wait_until="domcontentloaded")
        until_loaded(ctx.page, timeout)
        acted(ctx.page)
    except PlaywrightError as exc:
        err = classify(exc, f"open start_url {url}", ctx.blocked)
        if isinstance(err, OpFailed) and err.kind == "blocked":
            raise BrokenRun(f"start_url {url} is outside allowed_domains") from None
        if isinstance(err, OpFailed) and err.kind == "not_found":
            raise BrokenRun(f"start_url {url} did not load within {timeout / 1000:g}s (step_timeout)") from None
        raise (err if isinstance(err, BrokenRun) else BrokenRun(str(err))) from None
    if response is not None and response.status >= 500:
        raise BrokenRun(f"start_url {url} answered HTTP {response.status}: the site is down")
    if response is not None and response.status >= 400:
        ctx.result.status = "failed"
        ctx.result.failed_phase = "start"
        ctx.result.message = f"start_url {url} answered HTTP {response.status}"
        raise _StartFailed()


class _StartFailed(Exception):
    pass


# --------------------------------------------------------------------------- one step


def _settings(ctx: _Ctx, step: Step) -> tuple[int, float, float, float]:
    s = ctx.loaded.workflow.settings
    return (
        step.retries if step.retries is not None else s.retries,
        (step.check_timeout or s.check_timeout) * 1000,
        step.step_timeout or s.step_timeout,
        (step.action_timeout or s.action_timeout) * 1000,
    )


def _step(ctx: _Ctx, i: int, step: Step, sr: StepResult) -> None:
    _, _, step_timeout, _ = _settings(ctx, step)
    deadline = time.monotonic() + step_timeout
    if step.pre:
        sr.pre, ok = _judge_all(ctx, step.pre, "pre", ("steps", i, "pre"), step)
        if not ok and not _recover(ctx, i, step, sr, "pre", _first_failure(sr.pre), deadline):
            return _fail(sr, "pre", f"pre check failed: {_failure_text(sr, 'pre')}")
    sr.action_started = time.time()
    sr.before = _shot(ctx, f"step {sr.index} before action", always=False)
    err = _probed_action(ctx, i, step, sr)
    sr.action_ended = time.time()
    if err is not None and not _recover(ctx, i, step, sr, "action", str(err), deadline):
        return _fail(sr, "action", f"action failed: {err}")
    sr.after = _shot(ctx, f"step {sr.index} after action", always=False)
    if err is None:  # after a recovery the attempts hold the time since the action failed
        sr.action_ended = time.time()
    if step.post:
        sr.post, ok = _judge_all(ctx, step.post, "post", ("steps", i, "post"), step)
        if not ok and not _recover(ctx, i, step, sr, "post", _first_failure(sr.post), deadline):
            return _fail(sr, "post", f"post check failed: {_failure_text(sr, 'post')}")
    for ex in step.extract:
        try:
            value = extract_value(ex, _op_ctx(ctx, step))
        except OpFailed as exc:
            return _fail(sr, "extract", f"extract failed: {exc}")
        _extracted(ctx, ex.into, value)
        sr.extracted[ex.into] = value
    if sr.status != "healed":
        stale = any(v.stale for v in sr.pre + sr.post)
        sr.status = "recovered" if stale or any(a.ok for a in sr.attempts) else "passed"
    if ctx.options.probe is not None:
        ctx.options.probe.step_end(ctx.page, i)


def _probed_action(ctx: _Ctx, i: int, step: Step, sr: StepResult) -> OpFailed | None:
    """The step's action, with the probe told before and after (after only when it went through)."""
    probe = ctx.options.probe
    if probe is not None:
        probe.action(ctx.page, i, "before")
    err = _perform_action(ctx, i, step, sr)
    if probe is not None and err is None:
        probe.action(ctx.page, i, "after")
    return err


def _extracted(ctx: _Ctx, name: str, value: str) -> None:
    """Keep an extracted value; one that holds a secret is itself a secret from now on."""
    if ctx.values.holds_secret(value):
        ctx.values.add_derived(value)
    ctx.values.extracted[name] = value
    ctx.result.extracted[name] = value


def _fail(sr: StepResult, phase: Phase, message: str) -> None:
    sr.status = "failed"
    sr.failed_phase = phase
    sr.error = message


def _first_failure(verdicts: list[Verdict]) -> str:
    bad = next((v for v in verdicts if v.ok is False), None)
    return f"{bad.check}: {_why(bad)}" if bad else ""


def _failure_text(sr: StepResult, phase: str) -> str:
    """What the page showed right after the workflow's own action first (the failure the site
    made), then what the last attempt saw, when it saw something else."""
    first = _first_failure(sr.pre if phase == "pre" else sr.post)
    attempts = [att for att in sr.attempts if att.phase == phase]
    last = next((t for att in reversed(attempts) if att.verdicts and (t := _first_failure(att.verdicts))), "")
    if last and last != first:
        return f"{first}; after {len(attempts)} attempt(s): {last}"
    return first


def _why(v: Verdict) -> str:
    if v.expected or v.actual:
        return f"expected {v.expected}; actual: {v.actual}"
    return v.explanation or "not met"


def _op_ctx(ctx: _Ctx, step: Step) -> OpContext:
    _, _, _, action_timeout = _settings(ctx, step)
    reader = ctx.models.reader
    query = (lambda q: reader.read(ctx.page, _for_model(ctx, q, "extract query"))) if reader is not None else None
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
        output_dir=_output_dir(ctx),
    )


# Ops that act on an element; a fallback's first one acts on the page as it is (see _run_ops).
_ELEMENT_OPS = frozenset(
    ("click", "dblclick", "hover", "check", "uncheck", "focus", "fill", "type", "select", "upload", "download")
)
# How long a fallback's first element op looks for its element.
_FALLBACK_FIRST_MS = 1_000.0


def _run_ops(
    ctx: _Ctx, step: Step, ops: tuple[Op, ...], by: Literal["do", "fallback"], records: list[ActionRecord]
) -> None:
    """Run ops in order; record each; re-raise the first OpFailed after recording it.

    A fallback's first op, when it acts on an element, waits at most ``_FALLBACK_FIRST_MS`` for
    it: a fallback runs once the checks have given the page their whole ``check_timeout``, and it
    acts on the page as a person would at that moment ("Accept cookies" if the banner is there),
    not after another ``action_timeout`` for a banner that is not coming. The ops after it wait
    their ``action_timeout``: the first may have opened what they act on. An op's own ``timeout``
    is what it waits, in a fallback too: the author said so."""
    octx = _op_ctx(ctx, step)
    probe = ctx.options.probe if by == "do" else None
    step_index = next((n for n, s in enumerate(ctx.loaded.workflow.steps) if s is step), -1)
    for op_index, op in enumerate(ops):
        if probe is not None:
            probe.before_op(ctx.page, step_index, op_index, op, _locate(ctx))
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
                _extracted(ctx, name, ctx.values.extracted[name])


def _perform_action(ctx: _Ctx, i: int, step: Step, sr: StepResult) -> OpFailed | None:
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
            ctx.page, _for_agent(ctx, sr.action), goal=_for_agent(ctx, ctx.result.task), failure="", history=[]
        )
        _stamp(outcome, started)
        sr.actions.extend(outcome.actions)
        return (
            None
            if outcome.done
            else OpFailed(f"agent: {sr.action}", outcome.message or "the agent could not do it", "agent")
        )
    try:
        _run_ops(ctx, step, step.do, "do", sr.actions)
        return None
    except OpFailed as exc:
        if agent is None or exc.kind == "blocked":
            return exc
        broken_index = len([a for a in sr.actions if a.by == "do"]) - 1
        ctx.retrying()
        try:
            outcome = _heal(ctx, sr, exc)
        except BrokenRun as cut:
            _cut_short(ctx, None, cut)  # the action failed on the site; healing it could not be tried
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


def _heal(ctx: _Ctx, sr: StepResult, exc: OpFailed) -> AgentOutcome:
    assert ctx.models.agent is not None
    started = time.time()
    outcome = ctx.models.agent.perform(
        ctx.page,
        _for_agent(ctx, sr.action),
        goal=_for_agent(ctx, ctx.result.task),
        failure=ctx.values.mask(str(exc)),
        history=list(sr.actions),
    )
    return _stamp(outcome, started)


def _stamp(outcome: AgentOutcome, started: float) -> AgentOutcome:
    """The agent's actions get the times of the call that made them (shared evenly: it does not time them)."""
    ended = time.time()
    todo = [a for a in outcome.actions if not a.started]
    share = (ended - started) / max(len(todo), 1)
    for n, rec in enumerate(todo):
        rec.started, rec.ended = started + n * share, started + (n + 1) * share
    return outcome


def _for_model(ctx: _Ctx, words: str, what: str) -> str:
    """Words about to be sent to the model; a secret in them (through an extracted value) stops the run."""
    if ctx.values.holds_secret(words):
        raise BrokenRun(
            f"the {what} '{ctx.values.mask(words)}' would send a secret to the model (a value read from the page "
            "holds one); compare it with an expect instead"
        )
    return words


def _for_agent(ctx: _Ctx, words: str) -> str:
    """The step's action and the task go to the agent with secrets as ``{secret.NAME}`` (it types them
    through the placeholder); values that only hold one are masked."""
    return ctx.values.mask(words)


def _redo(ctx: _Ctx, i: int, step: Step, sr: StepResult, att: Attempt) -> bool:
    """Perform the step's action again inside an attempt; True when it went through."""
    before = len(sr.actions)
    err = _perform_action(ctx, i, step, sr)
    att.actions.extend(sr.actions[before:])
    del sr.actions[before:]
    if err is not None:
        att.note = str(err)
    return err is None


# How long checks wait when judged again after an attempt that did nothing to the page: one look.
_RELOOK_MS = 250.0


def _recover(ctx: _Ctx, i: int, step: Step, sr: StepResult, phase: Phase, reason: str, deadline: float) -> bool:
    """Up to ``retries`` attempts; attempt n uses fallback n (cycling). True once the phase holds.

    No fallback, no second action: a step without fallbacks makes no attempt. Its check has
    already waited up to ``check_timeout`` (a DOM assertion auto-waits, words are judged again
    when the page changes), and repeating the action could place an order or send a message again,
    and would change what the failure shows."""
    if not step.fallback:
        return False
    retries, _, step_timeout, _ = _settings(ctx, step)
    for n in range(1, retries + 1):
        if time.monotonic() > deadline:
            sr.attempts.append(Attempt(n, phase, "(none)", note=f"step_timeout of {step_timeout:g}s reached"))
            return False
        ctx.retrying()
        fb = step.fallback[(n - 1) % len(step.fallback)]
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
                att.verdicts, att.ok = _judge_all(
                    ctx,
                    step.pre if phase == "pre" else step.post,
                    phase,
                    ("steps", i, phase),
                    step,
                    when=f"attempt {n}",
                    timeout_ms=None if acted else _RELOOK_MS,
                )
                if not att.ok:
                    reason = _first_failure(att.verdicts)
        except BrokenRun as exc:
            # The verdict rule: the check (or action) already failed on the site; a recovery that the
            # browser or the model cut short does not turn that failure into "could not be judged".
            _cut_short(ctx, att, exc)
            return False
        # A failing check already pictured this state: the attempt shares that picture.
        pictured = next((v.screenshot for v in att.verdicts if v.screenshot is not None), None)
        att.screenshot = pictured or _shot(ctx, f"step {sr.index} attempt {n}", always=True)
        att.ended = time.time()
        if att.ok:
            return True
        log.info("step %s %s attempt %s failed: %s", sr.index, phase, n, ctx.values.mask(att.note or reason))
    return False


def _cut_short(ctx: _Ctx, att: Attempt | None, exc: BrokenRun) -> None:
    note = f"recovery cut short: {exc}"
    if att is not None:
        att.note = note
        att.ended = time.time()
    if not ctx.result.infrastructure:
        ctx.result.infrastructure = str(exc)
    log.info("%s", ctx.values.mask(note))


def _attempt(
    ctx: _Ctx, i: int, step: Step, sr: StepResult, phase: Phase, fb: Fallback, att: Attempt, reason: str
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
                _for_model(ctx, ctx.values.render(fb.agent), "fallback"),
                goal=_for_agent(ctx, sr.action),
                failure=ctx.values.mask(reason),
                history=list(sr.actions),
            )
            att.actions.extend(_stamp(outcome, started).actions)
            att.note = outcome.message
            return outcome.done
        assert fb.do is not None
        _run_ops(ctx, step, fb.do, "fallback", att.actions)
        if fb.redo and phase != "pre":
            return _redo(ctx, i, step, sr, att)
        return True
    except OpFailed as exc:
        att.note = str(exc)
        return False


# --------------------------------------------------------------------------- checks


def _judge_all(
    ctx: _Ctx,
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
    check_timeout = _settings(ctx, step)[1] if step is not None else ctx.loaded.workflow.settings.check_timeout * 1000
    probe = ctx.options.probe
    step_index = path[1] if path[0] == "steps" and isinstance(path[1], int) else None
    try:
        verdicts = []
        for n, c in enumerate(checks):
            if probe is not None:
                probe.before_check(ctx.page, step_index, phase, n, c, _locate(ctx))
            wait = c.timeout * 1000 if c.timeout is not None else check_timeout
            if timeout_ms is not None:
                wait = min(wait, timeout_ms)
            verdicts.append(_judge(ctx, c, phase, ctx.loaded.source.line(*path, n), wait, when))
    finally:
        ctx.looked_at = None  # the next phase looks again (it is None whenever no phase is judged)
    return verdicts, all(v.ok is not False for v in verdicts)


def _locate(ctx: _Ctx) -> Callable[[Locator], PwLocator]:
    """How a probe finds a workflow LOC on the current page (placeholders filled, secrets not)."""
    return lambda loc: resolve(ctx.page, loc, ctx.values.render)


def _check_expect(ctx: _Ctx, exp: Expect, timeout_ms: float) -> list[DomVerdict]:
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


def _judge(ctx: _Ctx, check: Check, phase: Phase, line: int, timeout_ms: float, when: str = "") -> Verdict:
    started = time.time()
    v = _judge_once(ctx, check, phase, line, timeout_ms, when)
    v.started, v.ended = started, time.time()
    return v


def _judge_once(ctx: _Ctx, check: Check, phase: Phase, line: int, timeout_ms: float, when: str) -> Verdict:
    render, mask = ctx.values.render, ctx.values.mask
    words = render(check.check) if check.check else None
    v = Verdict(
        check=mask(render(check.describe())), phase=phase, ok=None, source="none", line=line, page=_page_name(ctx)
    )
    if check.expect is not None:
        ctx.looked_at = None  # the assertions may wait for the page to change
        # Secrets are compared with their real values; what the verdict says about them is masked.
        failed = next((dv for exp in check.expect for dv in _check_expect(ctx, exp, timeout_ms) if not dv.ok), None)
        v.page = _page_name(ctx)  # where they were judged in the end (the opener, if a pop-up closed meanwhile)
        if failed is not None:
            v.ok, v.source, v.expected, v.actual = False, "dom", mask(failed.expected), mask(failed.actual)
            v.screenshot = _shot(ctx, f"{phase} check failed{f' ({when})' if when else ''}: {v.check}", always=True)
            if check.promoted and words is not None and ctx.models.judge is not None:
                _second_opinion(ctx, check, v, _for_model(ctx, words, "check"), phase, line, when, timeout_ms)
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
    words = _for_model(ctx, words, "check")
    label = f"{phase} check{f' ({when})' if when else ''}: {words}"
    shot, answer = _judge_words(ctx, judge, words, check.votes, label, timeout_ms)
    v.screenshot = shot
    _record_for_promotion(ctx, check, line, words, answer, shot.data)
    v.explanation = answer.explanation
    v.source = "dom+model" if check.expect is not None else "model"
    v.ok = answer.met
    return v


def _judge_words(
    ctx: _Ctx, judge: Judge, words: str, votes: int, label: str, timeout_ms: float
) -> tuple[Screenshot, Judgement]:
    """Ask the model; while it finds the condition not met, look again until ``timeout_ms`` and
    ask again only when the page has changed (a page still loading does not fail the check; a
    steady page costs one call). The same picture and text are never asked about twice in a run."""
    deadline = time.monotonic() + timeout_ms / 1000
    page = ctx.page
    view = (
        ctx.looked_at[1]
        if ctx.looked_at is not None and ctx.looked_at[0] is page
        else _view(ctx, timeout_ms, text=True, known=lambda v: judge.knows(words, v.image, v.text, votes))
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
            latest = _view(ctx, max(0.0, deadline - time.monotonic()) * 1000, text=True)
        if (latest.image, latest.text) == (view.image, view.text):
            break  # check_timeout reached on an unchanged page
        view = latest
    ctx.looked_at = (page, view)
    return Screenshot(label=label, data=view.image, masked=view.masked), answer


# How often a check found not met looks at the page again for a change.
_REJUDGE_POLL_MS = 250


def _record_for_promotion(ctx: _Ctx, check: Check, line: int, words: str, answer: Judgement, picture: bytes) -> None:
    """Keep what the model judged (page and verdict) for ``reuseit promote``."""
    recorder = ctx.models.recorder
    if recorder is not None and check.check is not None:
        recorder.record(line, check.check, words, answer.met, answer.explanation, ctx.page, picture)


def _second_opinion(
    ctx: _Ctx, check: Check, v: Verdict, words: str, phase: Phase, line: int, when: str, timeout_ms: float
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


# --------------------------------------------------------------------------- screenshots


def _view(ctx: _Ctx, settle_ms: float, *, text: bool = False, known: Callable[[View], bool] | None = None) -> View:
    """A capture of the settled, masked page (and its masked text for the model). ``known`` is
    asked with the text masked as the model would get it."""
    try:
        view = capture_view(
            ctx.page,
            ctx.options.jpeg_quality,
            ctx.options.max_width,
            masks=ctx.masks,
            settle_ms=settle_ms,
            text_chars=ctx.options.page_text_chars if text else 0,
            steady=text,  # a picture for the model: the cache key
            known=None if known is None else (lambda v: known(View(v.image, v.masked, ctx.values.mask(v.text)))),
        )
    except PlaywrightError as exc:
        err = classify(exc, "screenshot")
        raise (err if isinstance(err, BrokenRun) else BrokenRun(f"cannot take a screenshot: {err}")) from None
    view.text = ctx.values.mask(view.text)
    return view


def _capture(ctx: _Ctx, label: str) -> Screenshot:
    view = _view(ctx, ctx.loaded.workflow.settings.check_timeout * 1000)
    page = _page_name(ctx)  # which page is pictured, once there are several
    label = f"{label} [{page}]" if page else label
    return Screenshot(label=ctx.values.mask(label), data=view.image, masked=view.masked)


def _shot(ctx: _Ctx, label: str, *, always: bool) -> Screenshot | None:
    """A screenshot if the mode asks for it: step shots in 'steps' mode, failure shots unless 'off'."""
    mode = ctx.options.screenshots
    if mode == "off" or (mode == "failures" and not always):
        return None
    try:
        return _capture(ctx, label)
    except BrokenRun:
        return None


def _mask_result(ctx: _Ctx) -> None:
    """No secret value (typed, compared, or read from the page) in anything the reporters read.
    Every text of the result is masked, so a field added later cannot be forgotten."""
    if not ctx.values.has_secrets:
        return
    _mask_all(ctx.result, ctx.values.mask)


def _mask_all(obj: object, mask: Callable[[str], str]) -> object:
    if isinstance(obj, str):
        return mask(obj)
    if isinstance(obj, list):
        obj[:] = [_mask_all(x, mask) for x in obj]
    elif isinstance(obj, dict):
        for k in list(obj):
            obj[k] = _mask_all(obj[k], mask)
    elif dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        for f in dataclasses.fields(obj):
            value = getattr(obj, f.name)
            if isinstance(value, (str, list, dict)) or dataclasses.is_dataclass(value):
                setattr(obj, f.name, _mask_all(value, mask))
    return obj
