"""Runs one workflow variation on one page: action → checks → recovery → outcome.

No pytest, no Allure, no model client here: the plugin, the CLI and the Python API are adapters
around :func:`execute`, and model-backed parts arrive through :class:`~.ports.Models`.

The run and each step are here; a step's action is in ``actions``, judging its checks in
``judging`` (pictures in ``screenshots``), its attempts in ``recovery``; what they share in ``context``.
"""

from __future__ import annotations

import dataclasses
import logging
import time
from collections.abc import Callable, Mapping
from typing import Any

from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import Page

from ..browser.aria import PageSnapshot, compare, page_snapshot
from ..browser.masking import ScreenMasks, attach
from ..browser.observe import acted, navigation_budget, watch_network
from ..browser.ops import OpFailed, classify, extract_value
from ..browser.pages import DialogPolicy, Pages, until_loaded
from ..browser.session import web_address
from ..errors import BrokenRun, PlaceholderError, ReuseitError
from ..workflow.loader import LoadedWorkflow, placeholder_names
from ..workflow.locators import Locator
from ..workflow.model import Variation
from ..workflow.placeholders import Values
from ..workflow.steps import Step
from .actions import keep_extracted, op_context, probed_action
from .analysis import observe
from .context import RunContext, RunOptions
from .judging import first_failure, judge_all, why
from .ports import Models
from .proven import prove
from .recovery import recover
from .result import Phase, RunResult, StepResult
from .screenshots import take_shot

log = logging.getLogger(__name__)


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
    ctx = RunContext(
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
        _changed_since_last_pass(ctx)
    # Mask first: the analysis quotes verdicts and messages, and the analyst sends them to a model.
    _mask_result(ctx)
    result.proven = prove(result, loaded, values)
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


def _record_pages(ctx: RunContext) -> None:
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


def _look(ctx: RunContext, sr: StepResult) -> None:
    """The page once the step is over, as its accessibility tree sees it: a passing run's are kept
    by the nightly history, a failing step's is compared with the same step's when the run last
    passed. One ARIA snapshot (tens of milliseconds); it never raises. Without ``step_pages`` only
    a step that did not pass is looked at (its status is still open when the run broke on it)."""
    if not ctx.options.step_pages and sr.status in ("passed", "recovered", "healed"):
        return
    page = page_snapshot(ctx.page, ctx.values.mask)
    sr.page_url, sr.page_title, sr.page_aria = page.url, page.title, page.aria


def _changed_since_last_pass(ctx: RunContext) -> None:
    """A failed or broken run of a test that passed before: what is different on the page the run
    gave up on since the last pass saw the same point of the run.

    That point is the failing step's page then (after the step), or the page before it (after the
    step before, or the start page for step 1): an action that failed left the page as it was
    before the step, and compared with the page after it then, every line the action changes
    (a cart count, or a whole new page) would read as a change of the site. Of the two, the one
    closer to the page now is taken; on a tie, the page before for a pre check or an action, the
    page after for a post check, an extract or the outcome. With the pass before the last known,
    lines that differ between the two passes too are set aside as the page's own churn (and
    counted), before the two points are weighed."""
    result, last = ctx.result, ctx.options.last_pass
    if last is None or result.status not in ("failed", "broken") or not result.steps:
        return
    if result.failed_step is not None:
        step = result.steps[result.failed_step - 1]
    elif result.failed_phase == "outcome":
        step = result.steps[-1]
    else:
        return  # the start page failed: no step's page to compare
    if not step.page_aria:
        return  # the page was closed or gone: every line would read as changed
    now = PageSnapshot(step.page_url, step.page_title, step.page_aria)
    order = (step.index - 1, step.index) if result.failed_phase in ("pre", "action") else (step.index, step.index - 1)
    best: tuple[int, int, dict[str, Any]] | None = None
    for index in order:
        then = last.pages.get(index)
        if then is None or not then.aria:
            continue
        # The pass before the last at the same point: what differs between the two is churn.
        changed = compare(then, now, earlier=last.earlier_pages.get(index), earlier_since=last.earlier_since)
        size = sum(len(changed[k]) for k in ("removed", "added")) + sum(dict(changed.get("more", {})).values())
        if best is None or size < best[0]:
            best = (size, index, changed)
    if best is None:
        return
    _, index, changed = best
    result.changed = {**changed, "since": last.since}
    result.last_pass_screenshot = last.screenshots.get(index)


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


def _broken(ctx: RunContext, message: str) -> None:
    ctx.result.status = "broken"
    ctx.result.message = message
    if ctx.result.failed_phase is None:
        ctx.result.failed_phase = "start" if not ctx.result.steps else ctx.result.steps[-1].failed_phase or "action"
    if ctx.result.steps and ctx.result.steps[-1].status not in ("passed", "recovered", "healed"):
        ctx.result.steps[-1].status = "broken"
        ctx.result.steps[-1].error = message
        ctx.result.failed_step = ctx.result.steps[-1].index


def _run(ctx: RunContext) -> None:
    wf = ctx.loaded.workflow
    url = ctx.values.render(wf.start_url, reveal=True)
    ctx.result.start_url = ctx.values.mask(url)
    if ctx.options.probe is not None:
        ctx.options.probe.start(ctx.page)
    _open(ctx, url)
    if ctx.options.step_pages:  # the page before step 1, as _look sees a step's
        opened = page_snapshot(ctx.page, ctx.values.mask)
        ctx.result.start_page_url, ctx.result.start_page_title = opened.url, opened.title
        ctx.result.start_page_aria = opened.aria
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
            # The look at the page belongs to the step's time: reports lay steps end to end.
            _look(ctx, sr)
            sr.duration = time.monotonic() - started
            sr.ended = sr.started + sr.duration
            ctx.masks.step_regions = ()
            sr.masked = ctx.masks.drain()
            ctx.result.masked.extend(m for m in sr.masked if m not in ctx.result.masked)
            sr.dialogs = ctx.pages.dialogs[dialogs_before:]
            sr.page = ctx.page_name()
        if sr.status == "failed":
            ctx.result.status = "failed"
            ctx.result.failed_step = sr.index
            ctx.result.failed_phase = sr.failed_phase
            ctx.result.message = sr.error
            return
    if wf.outcome:
        verdicts, ok = judge_all(ctx, wf.outcome, "outcome", ("outcome",))
        ctx.result.outcome = verdicts
        ctx.result.masked.extend(m for m in ctx.masks.drain() if m not in ctx.result.masked)
        if not ok:
            bad = next(v for v in verdicts if v.ok is False)
            ctx.result.status = "failed"
            ctx.result.failed_phase = "outcome"
            ctx.result.message = f"outcome check failed: {bad.check}: {why(bad)}"
            return
        if ctx.options.probe is not None:
            ctx.options.probe.step_end(ctx.page, None)
    ctx.result.healed = any(s.status == "healed" for s in ctx.result.steps)


def _open(ctx: RunContext, url: str) -> None:
    # How long a page may take to answer, as everywhere a load starts (a slow server is not a dead one).
    timeout = ctx.loaded.workflow.settings.navigation_timeout * 1000
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
            raise BrokenRun(f"start_url {url} did not load within {timeout / 1000:g}s (navigation_timeout)") from None
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


def _step(ctx: RunContext, i: int, step: Step, sr: StepResult) -> None:
    _, _, step_timeout, _ = ctx.step_settings(step)
    deadline = time.monotonic() + step_timeout
    # How long a page may take to load in this step, whatever starts the load (its ops, a
    # fallback, the agent, a script, the page): the element waits never cut it short.
    navigation_budget(ctx.page, step.navigation_timeout or ctx.loaded.workflow.settings.navigation_timeout)
    if step.pre:
        sr.pre, ok = judge_all(ctx, step.pre, "pre", ("steps", i, "pre"), step)
        if not ok and not recover(ctx, i, step, sr, "pre", first_failure(sr.pre), deadline):
            return _fail(sr, "pre", f"pre check failed: {_failure_text(sr, 'pre')}")
    sr.action_started = time.time()
    sr.before = take_shot(ctx, f"step {sr.index} before action", always=False)
    err = probed_action(ctx, i, step, sr)
    sr.action_ended = time.time()
    if err is not None and not recover(ctx, i, step, sr, "action", str(err), deadline):
        return _fail(sr, "action", f"action failed: {err}")
    sr.after = take_shot(ctx, f"step {sr.index} after action", always=False)
    if err is None:  # after a recovery the attempts hold the time since the action failed
        sr.action_ended = time.time()
    if step.post:
        sr.post, ok = judge_all(ctx, step.post, "post", ("steps", i, "post"), step)
        if not ok and not recover(ctx, i, step, sr, "post", first_failure(sr.post), deadline):
            return _fail(sr, "post", f"post check failed: {_failure_text(sr, 'post')}")
    for ex in step.extract:
        try:
            value = extract_value(ex, op_context(ctx, step))
        except OpFailed as exc:
            return _fail(sr, "extract", f"extract failed: {exc}")
        keep_extracted(ctx, ex.into, value)
        sr.extracted[ex.into] = value
    if sr.status != "healed":
        stale = any(v.stale for v in sr.pre + sr.post)
        sr.status = "recovered" if stale or any(a.ok for a in sr.attempts) else "passed"
    if ctx.options.probe is not None:
        ctx.options.probe.step_end(ctx.page, i)


def _fail(sr: StepResult, phase: Phase, message: str) -> None:
    sr.status = "failed"
    sr.failed_phase = phase
    sr.error = message


def _failure_text(sr: StepResult, phase: str) -> str:
    """What the page showed right after the workflow's own action first (the failure the site
    made), then what the last attempt saw, when it saw something else."""
    first = first_failure(sr.pre if phase == "pre" else sr.post)
    attempts = [att for att in sr.attempts if att.phase == phase]
    last = next((t for att in reversed(attempts) if att.verdicts and (t := first_failure(att.verdicts))), "")
    if last and last != first:
        return f"{first}; after {len(attempts)} attempt(s): {last}"
    return first


def _mask_result(ctx: RunContext) -> None:
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
