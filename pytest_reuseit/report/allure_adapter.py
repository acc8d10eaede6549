"""Allure output for workflow runs; every call is a no-op when allure-pytest is not active.

Kept as an adapter around the RunResult: it reads the result, never the engine. The step tree is
replayed from the result after the run (one Allure step per workflow step, sub-steps for the
pre checks, the action, the post checks and each recovery attempt), so the engine needs no
knowledge of Allure and the tree is the same whether a model was used or not.
"""

from __future__ import annotations

import functools
import hashlib
import html
import json
import logging
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from ..engine.analysis import changes_text
from ..engine.result import ActionRecord, Attempt, RunResult, Screenshot, StepResult, Verdict
from ..workflow.loader import LoadedWorkflow

log = logging.getLogger(__name__)

USAGE_ATTACHMENT = "model usage (json)"
CHANGED_ATTACHMENT = "changed since the last pass"

# Bytes one attachment may have (--reuseit-attach-max), for the run being written: after_run sets
# it, and every attachment made while the run's steps are replayed is bounded by it.
_LIMIT: ContextVar[float] = ContextVar("reuseit_attach_limit", default=1_000_000)
# The pictures already attached for the run being written: digest -> the first one's name.
_SHOWN: ContextVar[dict[str, str] | None] = ContextVar("reuseit_shown_pictures", default=None)

try:  # allure-pytest is a dependency, but the plugin must work with it disabled (-p no:allure_pytest)
    import allure
    from allure_commons._allure import plugin_manager
    from allure_commons.model2 import StatusDetails, TestResult, TestStepResult

    _HAVE_ALLURE = True
except ImportError:  # pragma: no cover - exercised only without allure installed
    _HAVE_ALLURE = False


def _listener() -> Any:
    return next((p for p in plugin_manager.get_plugins() if type(p).__name__ == "AllureListener"), None)


def active() -> bool:
    """True when allure-pytest is listening (``--alluredir`` given)."""
    if not _HAVE_ALLURE:
        return False
    return _listener() is not None


def _current(kind: type) -> Any:
    """The innermost open Allure item of ``kind`` (the step just opened, or the running test)."""
    listener = _listener()
    return listener.allure_logger.get_last_item(kind) if listener is not None else None


def _ms(t: float) -> int:
    return int(t * 1000)


@contextmanager
def _step(
    title: str, status: str = "passed", *, start: float = 0.0, stop: float = 0.0, message: str = ""
) -> Iterator[None]:
    """An Allure step with the status, message and the times the engine recorded (the tree is
    written after the run, so Allure's own clock would bunch every step at the end)."""
    with allure.step(title[:300]):
        step = _current(TestStepResult)
        yield
    if step is None:
        return
    step.status = status
    step.statusDetails = StatusDetails(message=message) if message else None
    if start:
        step.start = _ms(start)
    if stop or start:
        step.stop = _ms(max(stop, start))


def _attach_shot(shot: Screenshot | None, *, again_at: float = 0.0) -> None:
    """Attach a screenshot. One taken before or after an action (``again_at``: when) that the run
    has already attached is named instead: with screenshots before and after every step, a step's
    "before" is most often the last one's "after" (the main job's results were 17 MB of pictures,
    10 MB of them different within their run). A check's or attempt's picture is always attached
    where it was taken, as a reader of that check looks for it. (Pointing a second attachment at
    the same file is no way out: Allure then shows one name for both.)"""
    if shot is None or not shot.data:
        return
    kind = allure.attachment_type.JPG if shot.mime == "image/jpeg" else allure.attachment_type.PNG
    name = shot.label + (" [regions masked]" if shot.masked else "")
    shown = _SHOWN.get()
    digest = hashlib.sha1(shot.data, usedforsecurity=False).hexdigest()
    if shown is not None and again_at and digest in shown:
        with _step(f"{name}: the same picture as '{shown[digest]}'", start=again_at, stop=again_at):
            pass
        return
    if shown is not None:
        shown.setdefault(digest, name)
    _attach(shot.data, name, kind, where=shot.path)


def _attach(body: str | bytes, name: str, kind: Any, *, where: str | None = None) -> None:
    """Attach ``body`` whole up to the limit; past it, a line naming it, its size and where it is
    kept (``where``; a screenshot's file exists only when the run's artifacts were written)."""
    size = len(body.encode() if isinstance(body, str) else body)
    if size <= _LIMIT.get():
        allure.attach(body, name=name, attachment_type=kind)
        return
    _listed(name, size, _LIMIT.get(), f"The file: {where}" if where else "Not kept on disk (see --reuseit-artifacts).")


def _listed(name: str, size: int, limit: float, kept: str) -> None:
    """What stands for an attachment over the limit: its name, size and where it is kept."""
    allure.attach(
        f"{name}: {_size(size)}, over the {limit / 1_000_000:g} MB attached whole (--reuseit-attach-max); "
        f"not embedded.\n{kept}\n",
        name=f"{name} ({_size(size)}, not attached)",
        attachment_type=allure.attachment_type.TEXT,
    )


def _masked(reasons: list[str]) -> None:
    """Say which regions the step's screenshots (the model's included) had painted over, and why."""
    if not reasons:
        return
    with _step("masked in screenshots: " + "; ".join(reasons)):
        pass


def before_run(loaded: LoadedWorkflow, variation: str, overrides: dict[str, Any]) -> None:
    """Labels and parameters known before the run. The variation parameter gives each variation
    its own Allure history entry (allure-pytest derives history ids from parameters only)."""
    if not active():
        return
    wf = loaded.workflow
    var = next(v for v in wf.all_variations() if v.id == variation)
    allure.dynamic.parameter("variation", variation)
    allure.dynamic.title(f"{wf.name} [{variation}]")
    allure.dynamic.suite(loaded.source.path)
    # The file's own feature/story (and its severity, epic) are marks set at collection, as
    # allure-pytest's decorators set them; without them the workflow and the variation stand in.
    if wf.feature is None:
        allure.dynamic.feature(wf.name)
    if wf.story is None:
        allure.dynamic.story(f"{variation} ({var.kind})")
    # Tags need no call here: allure-pytest turns the item's markers (our tags) into Allure tags.
    # The description is written after the run, with its placeholders filled (see after_run).


def _description(result: RunResult) -> str:
    steps = "".join(f"<li>{html.escape(s.action)}</li>" for s in result.steps)
    missing = result.total_steps - len(result.steps)
    more = f"<p>({missing} more step(s) not reached)</p>" if missing > 0 else ""
    return (
        f"<p><b>Task:</b> {html.escape(result.task)}</p><p><b>Steps:</b></p><ol>{steps}</ol>{more}"
        f"<p><code>{html.escape(result.file)}</code></p>{_analysis_summary(result)}"
    )


def _analysis_summary(result: RunResult) -> str:
    """The challenge analysis in words, for the description: Allure shows the description open on
    the test's page whatever its status, while the status trace of a skipped (xfailed) test and
    the attachments are folded away."""
    a = result.analysis
    if a is None:
        return ""
    esc = html.escape
    guidance = "".join(f"<li>{esc(g)}</li>" for g in a.guidance)
    return (
        f"<p><b>Challenge analysis [{esc(a.category)}]</b> "
        f"({'written by the model' if a.source == 'model' else 'observed by the runner'})</p>"
        f"<p><b>Where:</b> {esc(a.where)}</p><p><b>Why:</b> {esc(a.why)}</p>"
        f"<p><b>What was tried:</b></p><pre style='white-space:pre-wrap'>{esc(a.what)}</pre>"
        f"<p><b>What to change:</b></p><ul>{guidance}</ul>"
        "<p>The screenshots: the attachment <i>challenge analysis</i> below, and each step's own.</p>"
    )


def _verdict_title(v: Verdict) -> str:
    state = {True: "met", False: "NOT met", None: "not judged"}[v.ok]
    detail = ""
    if v.expected or v.actual:
        detail = f" — expected {v.expected}; actual {v.actual}"
    elif v.explanation:
        detail = f" — {v.explanation}"
    return f"{v.phase} check [{v.source}] {state}: {v.check}{detail}"


def _verdicts(verdicts: list[Verdict]) -> None:
    for v in verdicts:
        failed = v.ok is False
        with _step(
            _verdict_title(v),
            "failed" if failed else "passed",
            start=v.started,
            stop=v.ended,
            message=f"expected {v.expected}; actual {v.actual}" if failed and (v.expected or v.actual) else "",
        ):
            _attach_shot(v.screenshot)


def _span(items: list[Any]) -> tuple[float, float]:
    starts = [i.started for i in items if i.started]
    ends = [i.ended for i in items if i.ended]
    return (min(starts) if starts else 0.0, max(ends) if ends else 0.0)


def _action(rec: ActionRecord) -> None:
    title = f"{rec.by}: {rec.description}" + (
        f" (locator {rec.locator})" if rec.locator and rec.locator not in rec.description else ""
    )
    if rec.message:
        title += f" — {rec.message}"
    if not rec.ok:
        title += f" — failed: {rec.error}"
    with _step(title, "passed" if rec.ok else "failed", start=rec.started, stop=rec.ended, message=rec.error):
        pass


def _attempt(att: Attempt) -> None:
    title = f"attempt {att.number} ({att.phase}): {att.fallback} — {'recovered' if att.ok else 'did not recover'}"
    with _step(title, "passed" if att.ok else "failed", start=att.started, stop=att.ended, message=att.note):
        for rec in att.actions:
            _action(rec)
        if att.note and not att.ok:
            last = max([att.started, *(r.ended for r in att.actions), *(v.ended for v in att.verdicts)])
            with _step(f"note: {att.note}", start=last, stop=last):
                pass
        _verdicts(att.verdicts)
        if all(att.screenshot is not v.screenshot for v in att.verdicts):  # not attached twice
            _attach_shot(att.screenshot)


def _checks(title: str, verdicts: list[Verdict]) -> None:
    start, stop = _span(verdicts)
    with _step(title, "failed" if any(v.ok is False for v in verdicts) else "passed", start=start, stop=stop):
        _verdicts(verdicts)


def _action_group(s: StepResult) -> None:
    failed = any(not a.ok for a in s.actions) and s.status != "healed"
    title = "action" + (" (healed by the agent)" if s.status == "healed" else "")
    with _step(title, "failed" if failed else "passed", start=s.action_started, stop=s.action_ended):
        _attach_shot(s.before, again_at=s.action_started)
        for rec in s.actions:
            _action(rec)
        _attach_shot(s.after, again_at=s.action_ended)


def _workflow_step(s: StepResult, page: str, extra: Callable[[], None] | None = None) -> None:
    status = {"failed": "failed", "broken": "broken"}.get(s.status, "passed")
    marker = f" [{s.status}]" if s.status in ("recovered", "healed", "skipped") else ""
    # The parts in the order they happened (an action's recovery comes before the post checks).
    parts: list[tuple[float, Callable[[], None]]] = []
    if s.pre:
        parts.append((_span(s.pre)[0], lambda: _checks("pre checks", s.pre)))
    if s.actions or s.before or s.after:
        parts.append((s.action_started, lambda: _action_group(s)))
    if s.post:
        parts.append((_span(s.post)[0], lambda: _checks("post checks", s.post)))
    for att in s.attempts:
        parts.append((att.started, functools.partial(_attempt, att)))
    message = f"{s.error}{page}" if s.status in ("failed", "broken") else ""
    with _step(f"Step {s.index}: {s.action}{marker}", status, start=s.started, stop=s.ended, message=message):
        for _, draw in sorted(parts, key=lambda p: p[0]):
            draw()
        for key, value in s.extracted.items():
            with _step(f"extracted {key} = {value!r}", start=s.ended, stop=s.ended):
                pass
        for d in s.dialogs:
            with _step(f"dialog ({d.type}) {d.message!r}: {d.answer}"):
                pass
        if s.page:
            with _step(f"current page: {s.page}"):
                pass
        _masked(s.masked)
        if extra is not None:
            extra()


def usage_summary(result: RunResult) -> dict[str, Any]:
    """What the run's model use was, as shown in Allure and read back by ``reuseit report``'s trends."""
    u = result.usage
    return {
        "calls": u.calls,
        "cache_hits": u.cache_hits,
        "prompt_tokens": u.prompt_tokens,
        "completion_tokens": u.completion_tokens,
        "tokens": u.prompt_tokens + u.completion_tokens,
        "cost_usd": round(u.cost, 6),
    }


def _usage(result: RunResult) -> None:
    """Calls, tokens and cost as parameters (excluded from the history id) and a JSON attachment."""
    summary = usage_summary(result)
    if not (summary["calls"] or summary["cache_hits"]):
        return
    allure.dynamic.parameter("model calls", str(summary["calls"]), excluded=True)
    allure.dynamic.parameter("model tokens", str(summary["tokens"]), excluded=True)
    allure.dynamic.parameter("model cost", f"${summary['cost_usd']:.4f}", excluded=True)
    _attach(json.dumps(summary, indent=2), USAGE_ATTACHMENT, allure.attachment_type.JSON)


def _steps_grouped(steps: list[StepResult], page: str, extra: dict[int, Callable[[], None]] | None = None) -> None:
    """The run's steps; those from a ``use``d workflow nest under one parent step per use.
    ``extra``: what to add at the end of a step (by index), after its own parts."""
    extra = extra or {}
    i = 0
    while i < len(steps):
        group, group_id = steps[i].group, steps[i].group_id
        if not group:
            _workflow_step(steps[i], page, extra.get(steps[i].index))
            i += 1
            continue
        j = i
        while j < len(steps) and steps[j].group_id == group_id:
            j += 1
        members = steps[i:j]
        worst = next((st.status for st in members if st.status in ("failed", "broken")), "passed")
        with _step(f"use: {group}", worst, start=members[0].started, stop=members[-1].ended):
            for member in members:
                _workflow_step(member, page, extra.get(member.index))
        i = j


def analysis_html(result: RunResult, limit: float = float("inf")) -> str:
    """A readable page: where / why / what / guidance, with the attempts' screenshots. A page over
    ``limit`` bytes names the screenshots (and their files) instead of embedding them."""
    a = result.analysis
    assert a is not None
    esc = html.escape
    import base64  # noqa: PLC0415 - only needed here

    every = [s for s in result.screenshots() if s.data]
    place = {s.data: i for i, s in enumerate(every)}  # the same picture once, at its last place
    last = [s for i, s in enumerate(every) if place[s.data] == i][-6:]
    shots = "".join(
        f"<figure><img src='data:{s.mime};base64,{base64.b64encode(s.data).decode()}' style='max-width:100%;border:1px solid #ccc'>"
        f"<figcaption>{esc(s.label)}</figcaption></figure>"
        for s in last
    )
    if sum(len(s.data) for s in last) * 4 / 3 > limit:
        shots = "<p>Together over --reuseit-attach-max, so not embedded here: each is in its step.</p><ul>" + "".join(
            f"<li>{esc(s.label)}" + (f": <code>{esc(s.path)}</code>" if s.path else "") + "</li>" for s in last
        )
        shots += "</ul>"
    guidance = "".join(f"<li>{esc(g)}</li>" for g in a.guidance)
    return (
        "<!doctype html><meta charset='utf-8'><title>Challenge analysis</title>"
        "<body style='font-family:sans-serif;max-width:60em;margin:1em'>"
        f"<h2>Challenge analysis <small style='color:#a33'>[{esc(a.category)}]</small></h2>"
        f"<p><i>{'written by the model' if a.source == 'model' else 'observed by the runner'}</i> — "
        f"workflow <b>{esc(result.workflow)}</b> [{esc(result.variation)}], {esc(result.status)}</p>"
        f"<h3>Where</h3><p>{esc(a.where)}</p><h3>Why</h3><p>{esc(a.why)}</p>"
        f"<h3>What was tried</h3><pre style='white-space:pre-wrap'>{esc(a.what)}</pre>"
        f"<h3>What to change</h3><ul>{guidance}</ul><h3>Screenshots</h3>{shots}</body>"
    )


def page_text(result: RunResult) -> str:
    """Where the page was when the run ended: every failure message says it."""
    if not result.final_url:
        return ""
    title = f"'{result.final_title}' " if result.final_title else ""
    return f" (page {title}at {result.final_url})"


def status_message(result: RunResult) -> str:
    """First line of a failure: starts with [category] so categories.json can group by it."""
    a = result.analysis
    category = a.category if a else ("infrastructure" if result.status == "broken" else "site_changed")
    why = (a.why if a else result.message).splitlines()[0] if (a and a.why) or result.message else result.status
    beside = f"; infrastructure: {result.infrastructure}" if result.infrastructure else ""
    return f"[{category}] {why}{page_text(result)}{beside}"


def recovery_message(result: RunResult) -> str:
    """The message of a recovered or healed pass: categories.json groups those runs by it."""
    from .text import recovered_text  # noqa: PLC0415

    how = "Healed locator" if result.label == "healed" else "Recovered by fallback"
    return f"[{result.label}] {how}: " + "; ".join(recovered_text(result))


def _top_steps(result: RunResult) -> None:
    first = result.steps[0].started if result.steps else result.ended
    if result.started and first:
        failed_start = not result.steps and result.status in ("failed", "broken")
        with _step(
            f"open {result.start_url}",
            result.status if failed_start else "passed",
            start=result.started,
            stop=first,
            message=(result.message + page_text(result)) if failed_start else "",
        ):
            pass
    # What changed since the last pass goes beside the failure's own pictures: in the failing step,
    # or in the outcome when an outcome check failed.
    changes: Callable[[], None] | None = functools.partial(_changes, result) if result.changed is not None else None
    in_step: dict[int, Callable[[], None]] = (
        {result.failed_step: changes} if changes is not None and result.failed_step is not None else {}
    )
    _steps_grouped(result.steps, page_text(result), in_step)
    if result.outcome:
        start, stop = _span(result.outcome)
        with _step(
            "outcome", "failed" if any(v.ok is False for v in result.outcome) else "passed", start=start, stop=stop
        ):
            _verdicts(result.outcome)
            if changes is not None and result.failed_phase == "outcome":
                changes()


def changed_text(result: RunResult) -> str:
    """The comparison with the last pass as a person reads it (the run's result is already masked)."""
    assert result.changed is not None
    step = result.failed_step or (result.steps[-1].index if result.steps else None)
    return changes_text(result.changed, step) + "\n"


def _changes(result: RunResult) -> None:
    """The text of what changed since the last pass and, when it kept one, that pass's screenshot."""
    _attach(changed_text(result), CHANGED_ATTACHMENT, allure.attachment_type.TEXT)
    shot = result.last_pass_screenshot
    if shot is not None and shot.data:
        kind = allure.attachment_type.JPG if shot.mime == "image/jpeg" else allure.attachment_type.PNG
        _attach(shot.data, shot.label, kind)


def _host(host: str) -> None:
    """The ``host`` label names the machine whose browser ran the run (a Grid node) instead of this
    one: the timeline then shows each node's runs on a line of their own. allure-pytest adds its
    label (its listener's ``_host``) at the test's teardown, after the run: it is given the node."""
    listener = _listener()
    if not host or listener is None:
        return
    if isinstance(getattr(listener, "_host", None), str):
        listener._host = host  # every run of this process has a node: the next one sets its own
    else:
        allure.dynamic.label("host", host)


def after_run(result: RunResult, attach_max: float = 1.0) -> None:
    """Steps, attachments and analysis of the finished run. Files over ``attach_max`` MB are listed,
    not embedded: a 200 MB export would double in allure-results and again in the HTML report."""
    if not active():
        return
    token, shown = _LIMIT.set(attach_max * 1_000_000), _SHOWN.set({})
    try:
        for name, value in result.params.items():
            allure.dynamic.parameter(name, value, excluded=True)
        allure.dynamic.description_html(_description(result))
        _host(result.browser_host)
        _usage(result)
        _top_steps(result)
        if result.label in ("recovered", "healed"):
            allure.dynamic.tag(result.label)
            from .text import recovered_text  # noqa: PLC0415

            note = "\n".join(f"- {line}" for line in recovered_text(result))
            _attach(
                f"This run passed only after {result.label.replace('ed', 'ing')}:\n{note}\n",
                f"{result.label}: what was recovered",
                allure.attachment_type.TEXT,
            )
        if result.not_judged:
            allure.dynamic.tag("not-judged")
        if result.changed is not None:
            # Also beside the challenge analysis, where a reader of the test starts.
            _attach(changed_text(result), CHANGED_ATTACHMENT, allure.attachment_type.TEXT)
        if result.analysis is not None:
            _attach(
                analysis_html(result, _LIMIT.get()),
                f"challenge analysis [{result.analysis.category}]",
                allure.attachment_type.HTML,
            )
            _attach(
                json.dumps(result.to_dict()["analysis"], indent=2),
                "challenge analysis (json)",
                allure.attachment_type.JSON,
                where=os.path.join(result.artifacts_dir, "result.json") if result.artifacts_dir else None,
            )
        for d in result.downloads:
            _attach_file(d.path, f"download: {d.name}", d.name.rsplit(".", 1)[-1], attach_max)
        if result.trace:
            _attach_file(result.trace, "playwright trace", "zip", attach_max)
        elif result.trace_withheld:
            _attach(
                f"No Playwright trace was kept: {result.trace_withheld}.\n",
                "playwright trace withheld",
                allure.attachment_type.TEXT,
            )
    except Exception as exc:  # noqa: BLE001 - a report problem must never change the test's verdict
        log.warning("could not write the Allure steps: %s", exc)
    finally:
        _LIMIT.reset(token)
        _SHOWN.reset(shown)


def _size(n: float) -> str:
    for unit in ("bytes", "KB", "MB", "GB"):
        if n < 1000 or unit == "GB":
            return f"{n:.0f} {unit}" if unit == "bytes" else f"{n:.1f} {unit}"
        n /= 1000
    return f"{n:.1f} GB"


def _attach_file(path: str, name: str, extension: str, limit_mb: float) -> None:
    """Attach the file whole up to ``limit_mb``; past it, a line naming it, its size and where it is."""
    try:
        size = os.path.getsize(path)
    except OSError as exc:
        allure.attach(f"{name}: cannot read {path}: {exc}\n", name=name, attachment_type=allure.attachment_type.TEXT)
        return
    if size <= limit_mb * 1_000_000:
        allure.attach.file(path, name=name, extension=extension)
        return
    _listed(name, size, limit_mb * 1_000_000, f"The file: {path}")


def finish(result: RunResult | None) -> None:
    """After pytest's report of the call: the test's status message in user words (allure-pytest
    would write the exception's module path), and the flaky mark of a recovered or healed pass."""
    if not active() or result is None:
        return
    test = _current(TestResult)
    if test is None:
        return
    if result.started and result.ended:
        # The test's time is the workflow run's, as its steps' are (not the browser's start-up or
        # the writing of artifacts around it): the steps add up to the duration Allure shows.
        test.start, test.stop = _ms(result.started), _ms(result.ended)
    if result.label in ("recovered", "healed") and test.status == "passed":
        test.statusDetails = StatusDetails(flaky=True, message=recovery_message(result))
    elif result.status in ("failed", "broken") and test.statusDetails is not None:
        # An expected failure (xfail) keeps allure-pytest's "XFAIL <reason>" first: the reader sees
        # it is the known defect, then what the run found.
        known = test.statusDetails.message or ""
        prefix = known.splitlines()[0] + "\n\n" if known.startswith("XFAIL") else ""
        test.statusDetails.message = prefix + status_message(result)
