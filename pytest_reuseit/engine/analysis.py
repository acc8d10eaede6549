"""The challenge analysis the runner writes from what it observed (no model needed).

ReUseIt §4.2 asks every failure notification to say where the agent failed, why, what it did,
and what the author could change. With a model, the analyst rewrites this from the attempts'
messages and screenshots; without one, these rules still give the author a place to start.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping
from typing import Any

from ..browser.aria import renamed, role_names, set_aside_count, set_aside_words
from .result import ActionRecord, Analysis, Category, RunResult, StepResult, Verdict

_OVERLAY_WORDS = re.compile(r"intercepts pointer events|cookie|banner|dialog|modal|overlay|pop-?up|consent", re.I)
# A page whose next document its server did not answer within the navigation budget, so the run
# closed it (browser/observe.py close_if_unresponsive: an op's OpFailed "no_answer", or a js check).
_NO_ANSWER = re.compile(r"\S+ did not answer within [\d.]+s \(navigation_timeout\), so the page was closed")


def _failed_step(result: RunResult) -> StepResult | None:
    if result.failed_step is None:
        return None
    return result.steps[result.failed_step - 1]


def failing_verdict(step: StepResult, phase: str) -> Verdict | None:
    """The check of ``phase`` (pre or post) that still failed: the last attempt's word on it, else
    the phase's own."""
    for att in reversed(step.attempts):
        if att.phase == phase:
            bad = [v for v in att.verdicts if v.ok is False]
            if bad:
                return bad[0]
    return _first_verdict(step, phase)


def _first_verdict(step: StepResult, phase: str) -> Verdict | None:
    """What the page showed right after the workflow's own action (before any attempt)."""
    return next((v for v in (step.pre if phase == "pre" else step.post) if v.ok is False), None)


def _no_attempt(step: StepResult, without_fallback: Collection[int] | None) -> str:
    """Why a failed step made no recovery attempt, as precisely as the caller knows."""
    if without_fallback is None:
        return "no fallback declared, or retries: 0"
    if step.index in without_fallback:
        return "no fallback declared: the action was not repeated"
    return "retries: 0"


def _what(result: RunResult, step: StepResult | None, without_fallback: Collection[int] | None) -> str:
    if step is None:
        return "Nothing was done: the run stopped before the first step." if not result.steps else ""
    lines = [f"Step {step.index} ({step.action}):"]
    for rec in step.actions:
        lines.append(f"  - {_record(rec)}")
    if not step.attempts and step.status == "failed":
        # An empty list would read as "nothing was tried, for no reason": say why, and why that is right.
        lines.append(
            f"  - no recovery attempt ({_no_attempt(step, without_fallback)}): the action was done once "
            "(repeating it may place an order or send a message twice, and an action that failed may have "
            "half happened)"
        )
    for att in step.attempts:
        outcome = "recovered" if att.ok else "did not recover"
        lines.append(
            f"  - attempt {att.number} ({att.phase}): {att.fallback} -> {outcome}"
            + (f" [{att.note}]" if att.note else "")
        )
        for rec in att.actions:
            lines.append(f"      {_record(rec)}")
    return "\n".join(lines)


def _record(rec: ActionRecord) -> str:
    """One action as the analysis lists it, with the agent's own words when it gave any."""
    line = f"{rec.by}: {rec.description} -> {'ok' if rec.ok else 'FAILED (' + rec.error + ')'}"
    return line + (f' (agent: "{rec.message}")' if rec.message else "")


def observe(result: RunResult, without_fallback: Collection[int] | None = None) -> Analysis:
    """Analysis from the recorded run: where, why, what, guidance and a category.

    ``without_fallback`` holds the (1-based) steps that declare no fallback, when the caller knows
    the workflow: the analysis then says which of "no fallback" or "retries: 0" made no attempt."""
    analysis = _observe(result, without_fallback)
    if result.status == "failed" and result.unvisited_pages:
        _window_left_behind(analysis, result)
    if result.changed is not None:
        analysis.why = f"{ended(analysis.why)} {changes_sentence(result.changed, _compared_step(result))}".lstrip()
        renamed = _renamed(result, result.changed)
        if renamed:
            analysis.guidance = [renamed, *analysis.guidance]
    edits = [e for e in result.proven if e.kind != "check"]
    if edits:
        # One rename edits every place that names the element: said once, with how many places.
        words = "; ".join(dict.fromkeys(e.summary for e in edits))
        places = f", {len(edits)} places" if len(edits) > len({e.summary for e in edits}) else ""
        analysis.guidance.append(
            f"`reuseit heal` shows {'this edit' if len(edits) == 1 else 'these edits'} ({words}{places}) "
            "as a diff of the file and `reuseit heal --apply` writes it: the comparison with the last pass proves it, "
            "no model involved."
        )
    return analysis


def _renamed(result: RunResult, changed: Mapping[str, Any]) -> str:
    """When the element a failed step looked for by role and name left the page and exactly one
    element of that role appeared, it was most likely renamed: say which edit makes the file match."""
    step = _failed_step(result)
    if step is None:
        return ""
    looked_for: set[tuple[str, str]] = set()
    for rec in [*step.actions, *(a for att in step.attempts for a in att.actions)]:
        if not rec.ok:
            looked_for |= role_names(rec.description)
    for verdict in [*step.pre, *step.post]:
        if verdict.ok is False:
            looked_for |= role_names(verdict.expected)
    found = renamed(looked_for, changed)
    if found is None:
        return ""
    role, name, new = found
    return (
        f'The {role} "{name}" that step {step.index} uses is gone since the last pass and one {role} '
        f'appeared, "{new}": if the site renamed it on purpose, change the locator in '
        f"{step.file or result.file}:{step.line} to {{role: {role}, name: {new}}}; if not, the "
        "rename is the regression."
    )


# Lines named per side in the why: enough for a renamed element or two; the attachment lists all.
_WHY_LINES = 3
# What may close a sentence after its final mark: a quote or a bracket ('said "stop."', '(see x.)').
_CLOSERS = "\"')]»”’"


def ended(text: str) -> str:
    """``text`` as a finished sentence: a period added unless it already ends with one (or ! ? …),
    so a sentence appended after it reads as a new one. Empty stays empty."""
    text = text.rstrip()
    if not text or text.rstrip(_CLOSERS)[-1:] in (".", "!", "?", "…"):
        return text
    return text + "."


def _compared_step(result: RunResult) -> int | None:
    if result.failed_step is not None:
        return result.failed_step
    return result.steps[-1].index if result.steps else None


def _pair(changed: Mapping[str, Any], key: str) -> tuple[str, str] | None:
    """``[then, now]`` of url or title when they differ, else None."""
    pair = changed.get(key)
    if isinstance(pair, (list, tuple)) and len(pair) == 2 and pair[0] != pair[1]:
        return str(pair[0]), str(pair[1])
    return None


def _element(line: str) -> str:
    """An ARIA snapshot line without its list dash: ``button "Add to cart"``."""
    return line[2:] if line.startswith("- ") else line


def _listed(lines: list[str], more: int) -> str:
    shown = "; ".join(lines[:_WHY_LINES])
    left = len(lines) - _WHY_LINES + more
    return shown + (f" (and {left} more)" if left > 0 else "")


def changes_sentence(changed: Mapping[str, Any], step: int | None = None) -> str:
    """What is different on the page since the run last passed, in one sentence for the why."""
    since = str(changed.get("since") or "")
    page = f"the page of step {step}" if step else "the page"
    when = f" ({since})" if since else ""
    removed = [_element(str(x)) for x in changed.get("removed") or []]
    added = [_element(str(x)) for x in changed.get("added") or []]
    more = changed.get("more") or {}
    parts = []
    if removed:
        parts.append(f"gone: {_listed(removed, int(more.get('removed', 0)))}")
    if added:
        parts.append(f"new: {_listed(added, int(more.get('added', 0)))}")
    for key in ("url", "title"):
        pair = _pair(changed, key)
        if pair is not None:
            parts.append(f"{key} was '{pair[0]}', now '{pair[1]}'")
    aside = set_aside_words(changed)
    churn = f"{aside} set aside" if aside else ""
    if not parts:
        return (
            f"Since the run last passed{when}, {page} looks the same to its accessibility tree "
            f"(the same elements, url and title{f'; {churn}' if churn else ''}): what differs is not on the page "
            "(timing, or the data behind it)."
        )
    return f"Since the run last passed{when}, {page} changed: {'; '.join(parts)}{f' ({churn})' if churn else ''}."


def changes_text(changed: Mapping[str, Any], step: int | None = None) -> str:
    """The same comparison in full, one line per element, for a person (Allure) or the model."""
    since = str(changed.get("since") or "")
    out = [
        f"Changed since the last pass{f' ({since})' if since else ''}"
        + (f", on the page of step {step}" if step else "")
        + ": the page's accessibility tree (ARIA snapshot) then and now."
    ]
    for key in ("url", "title"):
        pair = _pair(changed, key)
        if pair is not None:
            out.append(f"{key}: {pair[0]} -> {pair[1]}")
        elif isinstance(changed.get(key), (list, tuple)) and changed[key]:
            out.append(f"{key}: {changed[key][-1]} (unchanged)")
    aside = changed.get("set_aside")
    if isinstance(aside, Mapping):
        # Said, and counted, so that nothing is left out silently.
        earlier = str(aside.get("since") or "")
        passes = f" ({earlier} and {since})" if earlier and since else ""
        n = set_aside_count(changed)
        out.append(
            f"{n} line(s) set aside ({int(aside.get('removed') or 0)} gone, {int(aside.get('added') or 0)} new): "
            f"they differ between the last two passes{passes} too, so they are the page's own churn, not a change."
            if n
            else f"Nothing set aside: none of these lines differs between the last two passes{passes} too."
        )
    more = changed.get("more") or {}
    for key, sign, what in (("removed", "-", "gone since then"), ("added", "+", "new since then")):
        lines = [_element(str(x)) for x in changed.get(key) or []]
        extra = int(more.get(key, 0))
        out.append(f"{len(lines) + extra} line(s) {what}:" if lines else f"nothing {what}")
        out.extend(f"  {sign} {line}" for line in lines)
        if extra:
            out.append(f"  ... and {extra} more")
    return "\n".join(out)


def _window_left_behind(analysis: Analysis, result: RunResult) -> None:
    """A pop-up or tab opened and the run kept acting on its opener: say so first, it is the usual cause."""
    urls = ", ".join(result.unvisited_pages)
    many = len(result.unvisited_pages) > 1
    analysis.why = (
        f"{'Pages' if many else 'A page'} opened during the run and nobody switched to {'them' if many else 'it'}: "
        f"{urls}. The run kept acting on the page that opened it. " + analysis.why
    )
    analysis.category = "popup_or_overlay"
    analysis.guidance = [
        "If the step should continue in the new window or tab, add `new_page: true` to the op that opens it "
        "(or `switch_page: last` after it).",
        *analysis.guidance,
    ]
    if result.steps:
        lines = [s for s in result.steps if s.page]
        if lines:
            analysis.what += f"\nCurrent page at the end: {lines[-1].page}"


def _observe(result: RunResult, without_fallback: Collection[int] | None) -> Analysis:
    step = _failed_step(result)
    phase = result.failed_phase or "start"
    where = (
        f"{step.file or result.file}:{step.line} step {step.index} ({step.action}), phase {phase}"
        if step
        else f"{result.file}:{result.line}, {phase}"
    )
    what = _what(result, step, without_fallback)
    if result.status == "broken":
        if result.message.startswith("placeholder:"):
            guidance = [
                "The run could not start: a value it needs is missing from the environment (not a verdict on the site).",
                "Export the variable named above where the tests run (CI secrets or the shell), then run again; "
                "`reuseit validate` lists every variable a workflow needs.",
            ]
        elif "not a web address" in result.message:
            guidance = [
                "The workflow names an address the browser may not open (a local file, a browser page, no "
                "http://); this is not a verdict on the site.",
                "Write it with http:// or https://, or with a placeholder that holds such an address ({base_url}).",
            ]
        elif result.infrastructure and not result.steps and result.failed_phase == "start":
            guidance = [
                "The run could not be judged: no browser could be started or reached for it (not a verdict on the site).",
                "Check the browser host: Chromium installed, the browser server or DevTools address up, or the "
                "Selenium Grid's nodes up with a free slot for these capabilities; then run again.",
            ]
        else:
            guidance = [
                "The run could not be judged; this is not a verdict on the site.",
                "Check that the site (start_url) and the model endpoint are reachable from the runner, then run again.",
            ]
        return Analysis(where=where, why=result.message, what=what, category="infrastructure", guidance=guidance)
    if phase == "outcome":
        return _outcome(result, where, what)
    if step is None:
        return Analysis(
            where=where,
            why=result.message,
            what=what,
            category="site_changed",
            guidance=["The start page answered an error: check start_url."],
        )
    if (late := _no_answer(step)) is not None:
        return _not_answered(step, late, where, what)
    if phase == "action":
        category, guidance = _action_failure(step)
        return Analysis(where=where, why=step.error, what=what, category=category, guidance=guidance)
    return _check_failure(step, phase, where, what, _no_attempt(step, without_fallback))


def _no_answer(step: StepResult) -> str | None:
    """The words of a page the run closed because its server did not answer within the navigation
    budget, wherever the step met it: its action, an attempt's ops, a check."""
    texts = [step.error, *(a.error for a in step.actions)]
    for att in step.attempts:
        texts += [att.note, *(a.error for a in att.actions), *(v.actual for v in att.verdicts)]
    texts += [v.actual for v in (*step.pre, *step.post)]
    return next((m.group(0) for t in texts if (m := _NO_ANSWER.search(t or ""))), None)


def _not_answered(step: StepResult, late: str, where: str, what: str) -> Analysis:
    """A page that did not answer is not ready, however the step failed after: not a site change
    (a locator that found nothing on a closed page says nothing about the site)."""
    why = step.error if late in step.error else f"{step.error}; {late}"
    return Analysis(
        where=where,
        why=why,
        what=what,
        category="page_not_ready",
        guidance=[
            f"A page of step {step.index} never answered: {late}. If the server is only slow there, raise "
            "navigation_timeout (settings, or the step's own); if it hangs, that is a defect of the site (or its "
            "server is overloaded or down)."
        ],
    )


def _outcome(result: RunResult, where: str, what: str) -> Analysis:
    """Every step went through but an outcome check did not hold."""
    bad = next((v for v in result.outcome if v.ok is False), None)
    why = f"The task's outcome check '{bad.check}' did not hold: {_verdict_why(bad)}" if bad else result.message
    return Analysis(
        where=f"{result.file}: outcome check '{bad.check}'" if bad else where,
        why=why,
        what=what,
        category="product_defect",
        guidance=[
            "Every step went through, but the end result is wrong: if the site's behaviour changed on purpose, "
            "update the outcome check; otherwise this is a defect to report.",
            "Add post checks to the steps that produce this result so the next failure points at the step.",
        ],
    )


def _action_failure(step: StepResult) -> tuple[Category, list[str]]:
    """Category and guidance when the step's action itself failed, read from its error."""
    error = step.error
    # Before the overlay words: "no pop-up window or tab appeared" says nothing covered the page.
    if "page stopped responding" in error:
        return "action_incomplete", [
            f"A script on the page of step {step.index} never finished, so the page was closed. If it is the "
            "workflow's own (eval, js), fix the expression; otherwise the page's code hangs: a product defect."
        ]
    if "no download started" in error:
        return "action_incomplete", [
            f"The click of step {step.index} went through but the browser received no file. If the site now "
            "shows the file as a page, check that page (expect text or url) instead of downloading; if an export "
            "takes longer, raise action_timeout (or the op's own timeout:)."
        ]
    if "the checkbox was clicked but did not become" in error:
        return "action_incomplete", [
            f"The click of step {step.index} went through but the checkbox never showed the new state. If the "
            "app takes longer to re-render it (a slow request), raise action_timeout (or the op's own timeout:); "
            "otherwise the site ignores the click: a product defect."
        ]
    if "no new page opened" in error:
        return "action_incomplete", [
            f"The action of step {step.index} went through but no pop-up window or tab opened. If the site now "
            "opens it in the same tab, remove new_page: true; if it opens later, raise action_timeout (or the "
            "op's own timeout:)."
        ]
    if _OVERLAY_WORDS.search(error):
        return "popup_or_overlay", [
            f"Something covered the page when step {step.index} tried to act: add a pre check "
            "'No cookie banner, dialog or pop-up covers the page'.",
            "Add a fallback that dismisses it, e.g. {do: [{click: {role: button, name: <the dismiss button>}}], redo: true}.",
        ]
    if "matches" in error and "elements" in error:
        return "wrong_element_or_value", [
            f"The locator in step {step.index} matches several elements: add nth, exact, has_text or within."
        ]
    if "blocked" in error:
        return "site_changed", [
            "The page navigated outside allowed_domains: add the domain to allowed_domains if it is expected."
        ]
    if "script error" in error:
        return "action_incomplete", [
            f"The JavaScript of step {step.index} threw: check the expression against the current page."
        ]
    return "site_changed", [
        f"The element used by step {step.index} was not found or never became usable: the page may have changed. "
        "Update the locator (reuseit heal applies suggestions from healed runs).",
        "If the element appears late, add a pre check that waits for it (expect: {visible: ...}).",
        "Describe the action in words in 'action' so the agent can heal it when a model is enabled.",
    ]


def _check_category(phase: str, bad: Verdict | None) -> Category:
    """What a failed pre/post check most probably means."""
    text = f"{bad.check if bad else ''} {bad.actual if bad else ''}"
    if _OVERLAY_WORDS.search(text):
        return "popup_or_overlay"
    if phase == "pre":
        return "page_not_ready"
    if bad is not None and (bad.actual in ("no element matches", "0") or "no such element" in bad.actual):
        return "action_incomplete"
    if bad is not None and bad.source == "dom":
        return "wrong_element_or_value"
    return "action_incomplete"


def _check_failure(step: StepResult, phase: str, where: str, what: str, no_attempt: str) -> Analysis:
    """A pre or post check still failed after the step's attempts."""
    bad = failing_verdict(step, phase)
    first = _first_verdict(step, phase)
    tried = len(step.attempts)
    # The site's own answer first (the attempts' actions may have changed the page since), then the
    # last attempt's when it saw something else.
    shown = first or bad
    why = f"The {phase} check '{shown.check}' did not hold: {_verdict_why(shown)}" if shown else step.error
    if shown is not None and bad is not None and _verdict_why(bad) != _verdict_why(shown):
        why += f"; after {tried} attempt(s): {_verdict_why(bad)}"
    category = _check_category(phase, bad)
    guidance = [
        f"Step {step.index}'s {phase} check still failed after {tried} attempt(s); look at the attempt screenshots."
        if tried
        else f"Step {step.index}'s {phase} check failed and no attempt was made ({no_attempt})"
        + (
            ": add a fallback if the page may need help, with redo: true only if the action is safe to do twice."
            if no_attempt.startswith("no fallback")
            else "."
        ),
    ]
    if category == "page_not_ready":
        guidance.append(
            "If the page needs longer, raise check_timeout for this step (or the check's own timeout:) "
            "or add a wait op before it."
        )
    elif category == "wrong_element_or_value" and bad is not None and "elements match (" in bad.actual:
        # A second match is often new on the page; which one the author meant only the file can say.
        where_line = f" (line {bad.line})" if bad.line else ""
        guidance.append(
            "The check's locator matches several elements, so it cannot tell which one to read: make it unique "
            f"with nth, exact, has_text or within{where_line}."
        )
    elif category == "wrong_element_or_value" and bad is not None and bad.actual.startswith("not "):
        guidance.append(
            f"The element is on the page but {bad.actual}: if the page now shows it another way (a widget that "
            "replaces it, a collapsed section), update the check; otherwise this is a product defect."
        )
    elif category == "wrong_element_or_value":
        guidance.append(
            "The element exists but shows another value: if the site changed on purpose, update the expected value; "
            "otherwise this is a product defect."
        )
    elif category == "action_incomplete":
        guidance.append(
            f"The action of step {step.index} did not produce its result: add a fallback that performs it another way "
            "(e.g. click the button instead of pressing Enter); add redo: true only if the action is safe to do twice."
        )
    else:
        guidance.append("Add a fallback that dismisses what covers the page, with redo: true.")
    return Analysis(where=where, why=why, what=what, category=category, guidance=guidance)


def _verdict_why(v: Verdict) -> str:
    if v.expected or v.actual:
        return f"expected {v.expected}; actual: {v.actual}"
    return v.explanation or "not met"
