"""Allure output for workflow runs; every call is a no-op when allure-pytest is not active.

Kept as an adapter around the RunResult: it reads the result, never the engine. The step tree is
replayed from the result after the run (one Allure step per workflow step, sub-steps for the
pre checks, the action, the post checks and each recovery attempt), so the engine needs no
knowledge of Allure and the tree is the same whether a model was used or not.
"""

from __future__ import annotations

import html
import json
import logging
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from ..engine.result import ActionRecord, Attempt, RunResult, Screenshot, StepResult, Verdict
from ..workflow.loader import LoadedWorkflow

log = logging.getLogger(__name__)

USAGE_ATTACHMENT = "model usage (json)"

try:  # allure-pytest is a dependency, but the plugin must work with it disabled (-p no:allure_pytest)
    import allure
    from allure_commons._allure import plugin_manager

    _HAVE_ALLURE = True
except ImportError:  # pragma: no cover - exercised only without allure installed
    _HAVE_ALLURE = False


class _StepFailed(AssertionError):
    """Raised inside an Allure step only to mark it failed; caught right outside it."""


class _StepBroken(Exception):
    """Likewise, to mark a step broken."""


def active() -> bool:
    """True when allure-pytest is listening (``--alluredir`` given)."""
    if not _HAVE_ALLURE:
        return False
    return any(type(p).__name__ == "AllureListener" for p in plugin_manager.get_plugins())


@contextmanager
def _step(title: str, status: str = "passed") -> Iterator[None]:
    """An Allure step whose status is set from ``status`` (failed/broken) without a real error."""
    try:
        with allure.step(title[:300]):
            yield
            if status == "failed":
                raise _StepFailed(title)
            if status == "broken":
                raise _StepBroken(title)
    except (_StepFailed, _StepBroken):
        pass


def _attach_shot(shot: Screenshot | None) -> None:
    if shot is None or not shot.data:
        return
    kind = allure.attachment_type.JPG if shot.mime == "image/jpeg" else allure.attachment_type.PNG
    name = shot.label + (" [regions masked]" if shot.masked else "")
    allure.attach(shot.data, name=name, attachment_type=kind)


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
    steps = "".join(f"<li>{html.escape(s.action)}</li>" for s in wf.steps)
    allure.dynamic.description_html(
        f"<p><b>Task:</b> {html.escape(wf.task)}</p><p><b>Steps:</b></p><ol>{steps}</ol>"
        f"<p><code>{html.escape(loaded.source.path)}</code></p>"
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
        with _step(_verdict_title(v), "failed" if v.ok is False else "passed"):
            _attach_shot(v.screenshot)


def _action(rec: ActionRecord) -> None:
    title = f"{rec.by}: {rec.description}" + (
        f" (locator {rec.locator})" if rec.locator and rec.locator not in rec.description else ""
    )
    if rec.message:
        title += f" — {rec.message}"
    if not rec.ok:
        title += f" — failed: {rec.error}"
    with _step(title, "passed" if rec.ok else "failed"):
        pass


def _attempt(att: Attempt) -> None:
    title = f"attempt {att.number} ({att.phase}): {att.fallback} — {'recovered' if att.ok else 'did not recover'}"
    with _step(title, "passed" if att.ok else "failed"):
        for rec in att.actions:
            _action(rec)
        if att.note and not att.ok:
            with _step(f"note: {att.note}"):
                pass
        _verdicts(att.verdicts)
        if all(att.screenshot is not v.screenshot for v in att.verdicts):  # not attached twice
            _attach_shot(att.screenshot)


def _workflow_step(s: StepResult) -> None:
    status = {"failed": "failed", "broken": "broken"}.get(s.status, "passed")
    marker = f" [{s.status}]" if s.status in ("recovered", "healed", "skipped") else ""
    with _step(f"Step {s.index}: {s.action}{marker}", status):
        if s.pre:
            with _step("pre checks", "failed" if any(v.ok is False for v in s.pre) else "passed"):
                _verdicts(s.pre)
        if s.actions or s.before or s.after:
            failed = any(not a.ok for a in s.actions) and s.status != "healed"
            with _step(
                "action" + (" (healed by the agent)" if s.status == "healed" else ""), "failed" if failed else "passed"
            ):
                _attach_shot(s.before)
                for rec in s.actions:
                    _action(rec)
                _attach_shot(s.after)
        if s.post:
            with _step("post checks", "failed" if any(v.ok is False for v in s.post) else "passed"):
                _verdicts(s.post)
        for att in s.attempts:
            _attempt(att)
        for key, value in s.extracted.items():
            with _step(f"extracted {key} = {value!r}"):
                pass
        for d in s.dialogs:
            with _step(f"dialog ({d.type}) {d.message!r}: {d.answer}"):
                pass
        if s.page:
            with _step(f"current page: {s.page}"):
                pass
        _masked(s.masked)


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
    allure.attach(json.dumps(summary, indent=2), name=USAGE_ATTACHMENT, attachment_type=allure.attachment_type.JSON)


def _steps_grouped(steps: list[StepResult]) -> None:
    """The run's steps; those from a ``use``d workflow nest under one parent step per use."""
    i = 0
    while i < len(steps):
        group, group_id = steps[i].group, steps[i].group_id
        if not group:
            _workflow_step(steps[i])
            i += 1
            continue
        j = i
        while j < len(steps) and steps[j].group_id == group_id:
            j += 1
        members = steps[i:j]
        worst = next((st.status for st in members if st.status in ("failed", "broken")), "passed")
        with _step(f"use: {group}", worst):
            for member in members:
                _workflow_step(member)
        i = j


def analysis_html(result: RunResult) -> str:
    """A readable page: where / why / what / guidance, with the attempts' screenshots."""
    a = result.analysis
    assert a is not None
    esc = html.escape
    import base64  # noqa: PLC0415 - only needed here

    shots = "".join(
        f"<figure><img src='data:{s.mime};base64,{base64.b64encode(s.data).decode()}' style='max-width:100%;border:1px solid #ccc'>"
        f"<figcaption>{esc(s.label)}</figcaption></figure>"
        for s in result.screenshots()[-6:]
        if s.data
    )
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


def status_message(result: RunResult) -> str:
    """First line of a failure: starts with [category] so categories.json can group by it."""
    a = result.analysis
    category = a.category if a else ("infrastructure" if result.status == "broken" else "site_changed")
    why = (a.why if a else result.message).splitlines()[0] if (a and a.why) or result.message else result.status
    return f"[{category}] {why}"


def after_run(result: RunResult) -> None:
    """Steps, attachments and analysis of the finished run."""
    if not active():
        return
    try:
        for name, value in result.params.items():
            allure.dynamic.parameter(name, value, excluded=True)
        _usage(result)
        _steps_grouped(result.steps)
        if result.outcome:
            with _step("outcome", "failed" if any(v.ok is False for v in result.outcome) else "passed"):
                _verdicts(result.outcome)
        if result.label in ("recovered", "healed"):
            allure.dynamic.tag(result.label)
            from .text import recovered_text  # noqa: PLC0415

            note = "\n".join(f"- {line}" for line in recovered_text(result))
            allure.attach(
                f"This run passed only after {result.label.replace('ed', 'ing')}:\n{note}\n",
                name=f"{result.label}: what was recovered",
                attachment_type=allure.attachment_type.TEXT,
            )
        if result.not_judged:
            allure.dynamic.tag("not-judged")
        if result.analysis is not None:
            allure.attach(
                analysis_html(result),
                name=f"challenge analysis [{result.analysis.category}]",
                attachment_type=allure.attachment_type.HTML,
            )
            allure.attach(
                json.dumps(result.to_dict()["analysis"], indent=2),
                name="challenge analysis (json)",
                attachment_type=allure.attachment_type.JSON,
            )
        for d in result.downloads:
            allure.attach.file(d.path, name=f"download: {d.name}", extension=d.name.rsplit(".", 1)[-1])
        if result.trace:
            allure.attach.file(result.trace, name="playwright trace", extension="zip")
        elif result.trace_withheld:
            allure.attach(
                f"No Playwright trace was kept: {result.trace_withheld}.\n",
                name="playwright trace withheld",
                attachment_type=allure.attachment_type.TEXT,
            )
    except Exception as exc:  # noqa: BLE001 - a report problem must never change the test's verdict
        log.warning("could not write the Allure steps: %s", exc)
