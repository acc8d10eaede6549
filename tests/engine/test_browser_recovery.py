"""Recovery, healing and outcomes through ``engine.runner.execute`` in a real Chromium.

No model: the only model-backed part used is :class:`ScriptedAgent`, a test double of the
engine's ``Agent`` port that performs one known Playwright click (the browser work is real).
"""

from __future__ import annotations

import json
import textwrap
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml
from playwright.sync_api import Page

from pytest_reuseit.browser.tracing import RunTrace
from pytest_reuseit.engine.context import RunOptions
from pytest_reuseit.engine.ports import AgentOutcome, Models
from pytest_reuseit.engine.result import ActionRecord, RunResult
from pytest_reuseit.engine.runner import execute
from pytest_reuseit.report.text import failure_text
from pytest_reuseit.runtime import Runtime
from pytest_reuseit.settings import default
from pytest_reuseit.workflow.loader import parse

pytestmark = pytest.mark.browser

# Checks that fail first and hold later share one timeout. A check that holds is judged once
# whatever its timeout (Playwright's assertions look once before they wait), so a short one only
# shortens the waits of the checks that fail: most tests here wait it out once per attempt.
# Ops that are meant to fail set their own action_timeout.
FAST = {"retries": 2, "check_timeout": 0.3, "action_timeout": 3}


class ScriptedAgent:
    """Implements the Agent protocol by clicking ``selector``; remembers every call."""

    def __init__(self, selector: str = "#real", *, done: bool = True, message: str = "clicked the real button") -> None:
        self.selector = selector
        self.done = done
        self.message = message
        self.calls: list[dict[str, Any]] = []

    def perform(self, page, instruction: str, *, goal: str, failure: str, history: list[ActionRecord]) -> AgentOutcome:  # type: ignore[no-untyped-def]
        self.calls.append(
            {
                "instruction": instruction,
                "goal": goal,
                "failure": failure,
                "history": [(h.by, h.description, h.ok) for h in history],
            }
        )
        if not self.done:
            return AgentOutcome(False, [], "I could not find it")
        page.locator(self.selector).click(timeout=2000)
        record = ActionRecord(
            description=f"click {self.selector}", by="agent", ok=True, locator=self.selector, message=self.message
        )
        return AgentOutcome(True, [record], self.message)


def workflow(
    steps: list[dict[str, Any]], *, start: str = "recovery.html", settings: dict[str, Any] | None = None, **top: Any
) -> str:
    doc = {
        "name": "recovery",
        "task": "recover from trouble",
        "start_url": "{base_url}/" + start,
        "settings": {**FAST, **(settings or {})},
        "steps": steps,
        **top,
    }
    return yaml.safe_dump(doc, sort_keys=False)


def run(
    page,
    fence,
    pages_url: str,
    text: str,
    *,
    agent: ScriptedAgent | None = None,  # type: ignore[no-untyped-def]
    screenshots: str = "off",
    on_first_retry: Callable[[], None] | None = None,
) -> RunResult:
    loaded = parse(text, "recovery.reuseit.yaml")
    return execute(
        page,
        loaded,
        builtins={"base_url": pages_url},
        options=RunOptions(screenshots=screenshots, on_first_retry=on_first_retry),  # type: ignore[arg-type]
        models=Models(agent=agent),
        blocked=fence.blocked,
    )


def events(page) -> list[str]:  # type: ignore[no-untyped-def]
    return page.evaluate("window.events")  # type: ignore[no-any-return]


def text_of(page, css: str) -> str:  # type: ignore[no-untyped-def]
    return page.evaluate(f"document.querySelector({css!r}).textContent")  # type: ignore[no-any-return]


STATUS_LOADED = {"expect": {"text": {"css": "#status", "equals": "loaded"}}}
# A fallback that only repeats the step's action: the way to ask for a second action.
REDO = {"do": [{"wait": 1}], "redo": True}
REDONE = "do: wait 1 then redo the action"
NEVER = {"expect": {"text": {"css": "#status", "equals": "never"}}}
# Scripts for an eval op: #late shows N ms after it ran, or N ms after #fb is clicked (a wait
# measured from the op that starts it, not from the page's load).
SHOW_LATE = (
    "setTimeout(() => { const d = document.createElement('div'); d.id = 'late';"
    " d.textContent = 'Late arrival'; document.body.appendChild(d); }, %d)"
)
SHOW_LATE_AFTER_B = "document.getElementById('fb').addEventListener('click', () => " + SHOW_LATE + ")"


# --------------------------------------------------------------------------- passed / recovered


def test_passed_needs_no_attempt(page, fence, pages_url) -> None:  # type: ignore[no-untyped-def]
    steps = [
        {
            "action": "Press A",
            "do": [{"click": "#fa"}],
            "post": [{"expect": {"text": {"css": "#out", "equals": "A"}}}],
            "fallback": [{"do": [{"click": "#fb"}]}],
        }
    ]
    result = run(page, fence, pages_url, workflow(steps))
    assert (result.status, result.label, result.recovered) == ("passed", "passed", False)
    (step,) = result.steps
    assert step.status == "passed" and step.attempts == [] and step.post[0].ok is True
    assert result.analysis is None and result.failed_step is None
    assert events(page) == ["A"]  # the fallback did not run


@pytest.mark.slow
def test_post_check_recovered_by_do_fallback_with_redo(page, fence, pages_url) -> None:  # type: ignore[no-untyped-def]
    steps = [
        {
            "action": "Load the data",
            "do": [{"click": "#load"}],
            "post": [STATUS_LOADED],
            "fallback": [{"do": [{"check": "#enable"}], "redo": True}],
        }
    ]
    result = run(page, fence, pages_url, workflow(steps))
    assert result.status == "passed" and result.label == "recovered" and result.recovered
    (step,) = result.steps
    assert step.status == "recovered"
    assert step.post[0].ok is False and "'idle'" in step.post[0].actual  # the first judgement failed
    (att,) = step.attempts
    assert (att.number, att.phase, att.ok) == (1, "post", True)
    assert att.fallback == "do: check selector='#enable' then redo the action"
    assert [(a.by, a.description, a.ok) for a in att.actions] == [
        ("fallback", "check selector='#enable'", True),
        ("do", "click selector='#load'", True),
    ]
    assert [v.ok for v in att.verdicts] == [True]
    assert [a.description for a in step.actions] == ["click selector='#load'"]  # the redo belongs to the attempt
    assert events(page) == ["load", "load"] and text_of(page, "#status") == "loaded"


@pytest.mark.slow
def test_fallbacks_are_used_in_order_and_cycle(page, fence, pages_url) -> None:  # type: ignore[no-untyped-def]
    steps = [
        {
            "action": "Load the data",
            "do": [{"click": "#load"}],
            "post": [NEVER],
            "retries": 3,
            "fallback": [{"do": [{"click": "#fa"}]}, {"do": [{"click": "#fb"}]}],
        }
    ]
    result = run(page, fence, pages_url, workflow(steps))
    assert result.status == "failed"
    atts = result.steps[0].attempts
    assert [a.number for a in atts] == [1, 2, 3]
    assert [a.fallback for a in atts] == [
        "do: click selector='#fa'",
        "do: click selector='#fb'",
        "do: click selector='#fa'",
    ]
    assert [a.ok for a in atts] == [False, False, False]
    assert events(page) == ["load", "A", "B", "A"]  # they really ran, in that order, with no redo


@pytest.mark.slow
def test_without_fallbacks_the_action_is_done_once(page, fence, pages_url) -> None:  # type: ignore[no-untyped-def]
    # No fallback, no second action: the check waits (check_timeout) and the step fails with what
    # the page showed after the workflow's own action; the click that would have made it pass is
    # not repeated (it could have placed an order).
    steps = [
        {
            "action": "Press the flaky button",
            "do": [{"click": "#flaky"}],
            "post": [{"expect": {"text": {"css": "#flaky-out", "equals": "done"}}}],
        }
    ]
    result = run(page, fence, pages_url, workflow(steps))
    assert (result.status, result.failed_step, result.failed_phase) == ("failed", 1, "post")
    (step,) = result.steps
    assert step.attempts == []
    assert events(page) == ["flaky1"]
    assert result.message.startswith("post check failed: text css='#flaky-out' equals='done': expected text of")
    assert result.analysis is not None
    assert "no recovery attempt (no fallback declared: the action was not repeated)" in result.analysis.what
    assert "no fallback declared" in result.analysis.guidance[0]


@pytest.mark.slow
def test_a_fallback_with_redo_repeats_the_action_and_one_without_does_not(page, fence, pages_url) -> None:  # type: ignore[no-untyped-def]
    check = {"expect": {"text": {"css": "#flaky-out", "equals": "done"}}}
    steps = [{"action": "Press the flaky button", "do": [{"click": "#flaky"}], "post": [check], "fallback": [REDO]}]
    result = run(page, fence, pages_url, workflow(steps))
    assert result.status == "passed" and result.label == "recovered"
    (att,) = result.steps[0].attempts
    assert att.fallback == REDONE and att.ok
    assert [(a.by, a.description) for a in att.actions] == [("fallback", "wait 1"), ("do", "click selector='#flaky'")]
    assert events(page) == ["flaky1", "flaky2"]

    steps[0]["fallback"] = [{"do": [{"wait": 1}]}]  # no redo: the click is not repeated
    steps[0]["retries"] = 2
    result = run(page, fence, pages_url, workflow(steps))
    assert result.status == "failed"
    assert [a.fallback for a in result.steps[0].attempts] == ["do: wait 1", "do: wait 1"]
    assert events(page) == ["flaky1"]


@pytest.mark.slow
def test_retries_zero_fails_at_once(page, fence, pages_url) -> None:  # type: ignore[no-untyped-def]
    steps = [
        {
            "action": "Press the flaky button",
            "do": [{"click": "#flaky"}],
            "retries": 0,
            "post": [{"expect": {"text": {"css": "#flaky-out", "equals": "done"}}}],
        }
    ]
    result = run(page, fence, pages_url, workflow(steps))
    assert result.status == "failed" and result.failed_phase == "post"
    assert result.steps[0].attempts == []
    assert events(page) == ["flaky1"]


@pytest.mark.slow
def test_click_intercepted_by_overlay_recovered_by_fallback(page, fence, pages_url) -> None:  # type: ignore[no-untyped-def]
    steps = [
        {
            "action": "Buy the product",
            "do": [{"click": {"role": "button", "name": "Buy now"}}],
            "action_timeout": 1,
            "post": [{"expect": {"text": {"css": "#out", "equals": "bought"}}}],
            "fallback": [{"do": [{"click": {"role": "button", "name": "Accept"}}], "redo": True}],
        }
    ]
    result = run(page, fence, pages_url, workflow(steps, start="overlay.html"))
    assert result.status == "passed" and result.label == "recovered", result.message
    (step,) = result.steps
    assert step.status == "recovered"
    (first,) = step.actions
    assert first.ok is False and "intercepts pointer events" in first.error
    (att,) = step.attempts
    assert att.phase == "action" and att.ok
    assert [(a.by, a.ok) for a in att.actions] == [("fallback", True), ("do", True)]
    assert text_of(page, "#out") == "bought"
    assert page.locator("#overlay").count() == 0


@pytest.mark.slow
def test_click_intercepted_by_overlay_without_fallback_is_a_popup_failure(page, fence, pages_url) -> None:  # type: ignore[no-untyped-def]
    steps = [{"action": "Buy the product", "do": [{"click": "#buy"}], "retries": 1, "action_timeout": 1}]
    result = run(page, fence, pages_url, workflow(steps, start="overlay.html"))
    assert result.status == "failed" and result.failed_phase == "action"
    assert "intercepts pointer events" in result.message
    assert result.analysis is not None and result.analysis.category == "popup_or_overlay"
    assert any("fallback" in g for g in result.analysis.guidance)
    assert text_of(page, "#out") == ""


# --------------------------------------------------------------------------- failed


@pytest.mark.slow
def test_failure_after_all_attempts_is_analysed_with_screenshots(page, fence, pages_url) -> None:  # type: ignore[no-untyped-def]
    steps = [
        {"action": "Press A", "do": [{"click": "#fa"}]},
        {
            "action": "Load the data",
            "do": [{"click": "#load"}],
            "post": [STATUS_LOADED],
            "retries": 2,
            "fallback": [REDO],
        },
        {"action": "Never reached", "do": [{"click": "#fb"}]},
    ]
    text = workflow(steps)
    result = run(page, fence, pages_url, text, screenshots="failures")
    assert (result.status, result.label) == ("failed", "failed")
    assert (result.failed_step, result.failed_phase) == (2, "post")
    assert [s.status for s in result.steps] == ["passed", "failed"]  # step 3 never started
    assert result.message == (
        "post check failed: text css='#status' equals='loaded': expected text of css='#status' to equal 'loaded'; actual: 'idle'"
    )
    step = result.steps[1]
    assert [(a.number, a.fallback, a.ok) for a in step.attempts] == [(1, REDONE, False), (2, REDONE, False)]
    for att in step.attempts:
        assert att.screenshot is not None and att.screenshot.data[:2] == b"\xff\xd8"  # a JPEG per attempt
        assert [v.ok for v in att.verdicts] == [False]
    assert step.post[0].screenshot is not None  # the failed check itself
    assert step.before is None and step.after is None  # 'failures' mode: no step shots
    analysis = result.analysis
    assert analysis is not None and analysis.source == "observed"
    assert analysis.category == "wrong_element_or_value"
    assert analysis.where.startswith(f"recovery.reuseit.yaml:{step.line} step 2 (Load the data), phase post")
    assert "'idle'" in analysis.why
    assert f"attempt 1 (post): {REDONE} -> did not recover" in analysis.what
    assert "attempt 2 (post)" in analysis.what
    assert analysis.guidance and all(isinstance(g, str) and g for g in analysis.guidance)
    assert events(page) == ["A", "load", "load", "load"]


@pytest.mark.slow
def test_pre_check_fails_then_holds_after_a_wait(page, fence, pages_url) -> None:  # type: ignore[no-untyped-def]
    # #late appears 1.5 s after load; the first pre judgement gives up after 0.3 s (well before
    # it, on a loaded machine too), and each attempt's fallback waits 0.3 s before judging again
    # (0.3 s each): a later attempt sees it.
    steps = [
        {
            "action": "Press A once the late element is there",
            "pre": [{"expect": {"visible": "#late"}}],
            "do": [{"click": "#fa"}],
            "retries": 6,
            "fallback": [{"do": [{"wait": 300}]}],
        }
    ]
    result = run(page, fence, pages_url, workflow(steps, start="recovery.html?late=1500"))
    assert result.status == "passed" and result.label == "recovered", result.message
    step = result.steps[0]
    assert step.pre[0].ok is False and step.pre[0].actual == "no element matches"
    assert all(a.phase == "pre" and a.fallback == "do: wait 300" for a in step.attempts)
    assert step.attempts[-1].ok and not any(a.ok for a in step.attempts[:-1])
    assert events(page) == ["A"]  # the action ran once, after the pre check held


@pytest.mark.slow
def test_pre_check_that_never_holds_stops_before_the_action(page, fence, pages_url) -> None:  # type: ignore[no-untyped-def]
    steps = [{"action": "Press A", "pre": [{"expect": {"visible": "#late"}}], "do": [{"click": "#fa"}], "retries": 1}]
    result = run(page, fence, pages_url, workflow(steps))
    assert result.status == "failed" and result.failed_phase == "pre"
    assert result.message.startswith("pre check failed: visible selector='#late'")
    assert result.analysis is not None and result.analysis.category == "page_not_ready"
    assert result.steps[0].actions == []
    assert events(page) == []


@pytest.mark.slow
def test_step_timeout_stops_the_attempts(page, fence, pages_url) -> None:  # type: ignore[no-untyped-def]
    steps = [
        {
            "action": "Load the data",
            "do": [{"click": "#load"}],
            "post": [NEVER],
            "retries": 20,
            "fallback": [REDO],
            "step_timeout": 0.6,
            "check_timeout": 0.2,
        }
    ]
    result = run(page, fence, pages_url, workflow(steps))
    assert result.status == "failed" and result.failed_phase == "post"
    atts = result.steps[0].attempts
    assert len(atts) < 20  # typically 3: two real attempts, then the note
    assert atts[-1].note == "step_timeout of 0.6s reached" and atts[-1].fallback == "(none)"
    assert all(a.note == "" for a in atts[:-1])
    assert result.steps[0].duration < 5


@pytest.mark.slow
def test_outcome_check_failing_is_a_product_defect(page, fence, pages_url) -> None:  # type: ignore[no-untyped-def]
    steps = [{"action": "Press A", "do": [{"click": "#fa"}]}, {"action": "Press B", "do": [{"click": "#fb"}]}]
    text = workflow(steps, outcome=[{"expect": {"text": {"css": "#out", "equals": "A"}}}])
    result = run(page, fence, pages_url, text)
    assert result.status == "failed" and result.failed_phase == "outcome"
    assert result.failed_step is None
    assert [s.status for s in result.steps] == ["passed", "passed"]
    (v,) = result.outcome
    assert v.ok is False and v.phase == "outcome" and v.actual == "'B'"
    assert (
        result.message
        == "outcome check failed: text css='#out' equals='A': expected text of css='#out' to equal 'A'; actual: 'B'"
    )
    assert result.analysis is not None and result.analysis.category == "product_defect"
    assert result.analysis.guidance


def test_outcome_check_holding_passes(page, fence, pages_url) -> None:  # type: ignore[no-untyped-def]
    text = workflow(
        [{"action": "Press B", "do": [{"click": "#fb"}]}],
        outcome=[{"expect": {"text": {"css": "#out", "equals": "B"}}}],
    )
    result = run(page, fence, pages_url, text)
    assert result.status == "passed" and [v.ok for v in result.outcome] == [True]


def test_extracted_value_feeds_a_later_step(page, fence, pages_url) -> None:  # type: ignore[no-untyped-def]
    steps = [
        {"action": "Read the code", "do": [{"wait": 0}], "extract": {"into": "code", "text": "#code"}},
        {
            "action": "Type the code {code}",
            "do": [{"fill": {"css": "#code-in", "value": "{code}"}}],
            "post": [{"expect": {"value": {"css": "#code-in", "equals": "{code}"}}}],
        },
    ]
    result = run(page, fence, pages_url, workflow(steps))
    assert result.status == "passed", result.message
    assert result.extracted == {"code": "ZX-9"}
    assert result.steps[1].action == "Type the code ZX-9"
    assert page.input_value("#code-in") == "ZX-9"


# --------------------------------------------------------------------------- healing and the agent


# The broken op gives up after its own 0.4 s (what it waits does not change what healing does);
# #fa, which must go through, keeps the step's action_timeout.
HEALING = textwrap.dedent("""\
    name: heal
    task: press the real button
    start_url: "{base_url}/recovery.html"
    settings: {retries: 1, check_timeout: 0.8, action_timeout: 1}
    steps:
      - action: Press the real button
        do:
          - click: "#fa"
          - click: "#gone-button"
            timeout: 0.4
        post:
          - expect: {text: {css: "#out", equals: real}}
    """)
BROKEN_OP_LINE = 9


@pytest.mark.slow
def test_broken_locator_is_healed_by_the_agent(page, fence, pages_url) -> None:  # type: ignore[no-untyped-def]
    assert HEALING.splitlines()[BROKEN_OP_LINE - 1].strip() == '- click: "#gone-button"'
    agent = ScriptedAgent("#real")
    result = run(page, fence, pages_url, HEALING, agent=agent)
    assert result.status == "passed" and result.label == "healed" and result.healed
    (step,) = result.steps
    assert step.status == "healed" and step.attempts == []
    assert [(a.by, a.ok) for a in step.actions] == [("do", True), ("do", False), ("agent", True)]
    (h,) = result.healing
    assert (h.step, h.op_index, h.line) == (1, 1, BROKEN_OP_LINE)
    assert h.broken == "click selector='#gone-button'" and h.replacement == "#real"
    (call,) = agent.calls
    assert call["instruction"] == "Press the real button"
    assert "#gone-button" in call["failure"] and "timed out" in call["failure"]
    assert call["history"] == [("do", "click selector='#fa'", True), ("do", "click selector='#gone-button'", False)]
    assert events(page) == ["A", "real"]


@pytest.mark.slow
def test_healing_that_fails_leaves_the_step_failed(page, fence, pages_url) -> None:  # type: ignore[no-untyped-def]
    agent = ScriptedAgent(done=False)
    result = run(page, fence, pages_url, HEALING, agent=agent)
    assert result.status == "failed" and result.failed_phase == "action"
    assert result.healing == [] and not result.healed
    assert "#gone-button" in result.message
    assert len(agent.calls) == 1  # healing the action; no fallback, so no second action
    assert events(page) == ["A"]


@pytest.mark.slow
def test_without_a_model_a_broken_locator_just_fails(page, fence, pages_url) -> None:  # type: ignore[no-untyped-def]
    result = run(page, fence, pages_url, HEALING)
    assert result.status == "failed" and result.failed_phase == "action"
    assert result.healing == []
    assert result.analysis is not None and result.analysis.category == "site_changed"


@pytest.mark.slow
def test_words_fallback_is_handed_to_the_agent(page, fence, pages_url) -> None:  # type: ignore[no-untyped-def]
    steps = [
        {
            "action": "Load the data",
            "do": [{"click": "#load"}],
            "post": [{"expect": {"text": {"css": "#out", "equals": "real"}}}],
            "fallback": ["Press the {which} button instead"],
        }
    ]
    agent = ScriptedAgent("#real", message="pressed Real button")
    result = run(page, fence, pages_url, workflow(steps, params={"which": "real"}), agent=agent)
    assert result.status == "passed" and result.label == "recovered"
    (att,) = result.steps[0].attempts
    assert att.fallback == "agent: Press the real button instead"
    assert att.ok and att.note == "pressed Real button"
    assert [(a.by, a.locator) for a in att.actions] == [("agent", "#real")]
    (call,) = agent.calls
    assert call["instruction"] == "Press the real button instead" and call["goal"] == "Load the data"
    assert "expected text of css='#out' to equal 'real'" in call["failure"] and "'load'" in call["failure"]
    assert events(page) == ["load", "real"]


@pytest.mark.slow
def test_words_fallback_without_a_model_is_not_run(page, fence, pages_url) -> None:  # type: ignore[no-untyped-def]
    steps = [
        {
            "action": "Load the data",
            "do": [{"click": "#load"}],
            "post": [STATUS_LOADED],
            "retries": 1,
            "fallback": ["Tick 'Enable loading' and press Load again"],
        }
    ]
    result = run(page, fence, pages_url, workflow(steps))
    assert result.status == "failed" and result.failed_phase == "post"
    (att,) = result.steps[0].attempts
    assert att.note == "not run: fallbacks in words need a model (--reuseit-llm)" and not att.ok
    assert att.actions == []
    assert events(page) == ["load"]


@pytest.mark.slow
def test_an_attempt_that_did_nothing_looks_once_instead_of_waiting_again(page, fence, pages_url) -> None:  # type: ignore[no-untyped-def]
    """A fallback in words without a model changes nothing on the page: the post check, which
    already waited its 1.5 s, is judged again with one look, not 1.5 s more per attempt.
    The verdict stays failed, at the post check."""
    steps = [
        {
            "action": "Load the data",
            "do": [{"click": "#load"}],
            "post": [STATUS_LOADED],
            "retries": 2,
            "check_timeout": 1.5,
            "fallback": ["Tick 'Enable loading' and press Load again"],
        }
    ]
    result = run(page, fence, pages_url, workflow(steps))
    assert result.status == "failed" and result.failed_phase == "post"
    step = result.steps[0]
    assert step.post[0].ended - step.post[0].started >= 1.5  # the first judgement waited its timeout
    assert len(step.attempts) == 2
    for att in step.attempts:
        (verdict,) = att.verdicts
        # One look (0.25 s and reading what it saw) stays well under the 1.5 s of another wait.
        assert verdict.ok is False and verdict.ended - verdict.started < 1.0, verdict


@pytest.mark.slow
def test_a_fallbacks_first_op_acts_on_the_page_as_it_is(page, fence, pages_url) -> None:  # type: ignore[no-untyped-def]
    """A fallback runs after the check waited its check_timeout: its first op ("Accept cookies")
    looks for its element for 1 s, not the step's 5 s action_timeout, when the element is not
    there. The ops after it keep their action_timeout: the first op's click makes #late show
    1.5 s later, well over the second the first op got."""
    absent = [
        {
            "action": "Load the data",
            "do": [{"click": "#load"}],
            "post": [STATUS_LOADED],
            "retries": 1,
            "action_timeout": 5,
            "fallback": [{"do": [{"click": "#no-such-button"}]}],
        }
    ]
    result = run(page, fence, pages_url, workflow(absent))
    assert result.status == "failed" and result.failed_phase == "post"
    ((op,),) = [att.actions for att in result.steps[0].attempts]
    assert not op.ok and 0.9 < op.ended - op.started < 3, op
    later = [
        {
            "action": "Press A, then wait for the late element",
            "do": [{"eval": SHOW_LATE_AFTER_B % 1500}, {"click": "#fa"}],
            "post": [{"expect": {"visible": "#late"}}],
            "retries": 1,
            "action_timeout": 6,
            "fallback": [{"do": [{"click": "#fb"}, {"click": "#late"}]}],
        }
    ]
    result = run(page, fence, pages_url, workflow(later))
    assert result.status == "passed" and result.label == "recovered", result.message
    (att,) = result.steps[0].attempts
    first, second = att.actions
    assert first.ok and second.ok and second.ended - second.started > 1.2, att.actions


@pytest.mark.slow
def test_an_op_or_a_check_waits_its_own_timeout_instead_of_its_steps(page, fence, pages_url) -> None:  # type: ignore[no-untyped-def]
    """``timeout:`` on an op or a check is what that one waits: shorter than the step's (an op
    given 0.5 s of the step's 5 s fails in about half a second) or longer (a check given 5 s
    of the step's 0.3 s sees #late, shown 1 s after the step's action; a fallback's first op
    given 4 s sees #late shown 2 s after load, over the one second a fallback's first op
    otherwise gets)."""
    short = [{"action": "Click what is not there", "do": [{"click": "#no-such-button", "timeout": 0.5}]}]
    result = run(page, fence, pages_url, workflow(short, settings={"action_timeout": 5}))
    assert result.status == "failed" and result.failed_phase == "action", result.message
    (op,) = result.steps[0].actions
    assert "Timeout 500ms" in op.error and op.ended - op.started < 2.5, op
    longer = [
        {
            "action": "Wait for the late element",
            "do": [{"eval": SHOW_LATE % 1000}],
            "post": [{"expect": {"visible": "#late"}, "timeout": 5}],
            "check_timeout": 0.3,
        }
    ]
    result = run(page, fence, pages_url, workflow(longer))
    assert result.status == "passed", result.message
    (verdict,) = result.steps[0].post
    assert verdict.ended - verdict.started > 0.7, verdict  # over twice the step's 0.3 s
    fallback = [
        {
            "action": "Press A, then click the late element",
            "do": [{"click": "#fa"}],
            "post": [{"expect": {"visible": "#late"}}],
            "check_timeout": 0.3,
            "retries": 1,
            "fallback": [{"do": [{"click": "#late", "timeout": 4}]}],
        }
    ]
    result = run(page, fence, pages_url, workflow(fallback, start="recovery.html?late=2000"))
    assert result.status == "passed" and result.label == "recovered", result.message
    ((op,),) = [att.actions for att in result.steps[0].attempts]
    assert op.ok and op.ended - op.started > 1.0, op


def test_a_page_right_by_the_time_a_failed_fallback_gives_up_is_recovered(page, fence, pages_url) -> None:  # type: ignore[no-untyped-def]
    """The look after an attempt that did nothing still sees a page that came right meanwhile:
    #late comes when the recovery starts (the run's on_first_retry, after the first judgement
    failed and before the fallback's op), not on a timer, so however slow the machine the first
    judgement sees no #late, the fallback's click finds nothing and only the look after it can
    see the page right."""

    def come_right() -> None:
        page.evaluate(
            "() => { const d = document.createElement('div'); d.id = 'late';"
            " d.textContent = 'Late arrival'; document.body.appendChild(d); }"
        )

    steps = [
        {
            "action": "Press A",
            "do": [{"click": "#fa"}],
            "post": [{"expect": {"visible": "#late"}}],
            "retries": 1,
            "fallback": [{"do": [{"click": "#no-such-button", "timeout": 0.5}]}],
        }
    ]
    result = run(page, fence, pages_url, workflow(steps), on_first_retry=come_right)
    assert result.status == "passed" and result.label == "recovered", result.message
    assert result.steps[0].post[0].ok is False  # the first judgement, before #late came
    (att,) = result.steps[0].attempts
    assert att.actions and not any(a.ok for a in att.actions) and att.ok


def test_step_without_do_is_performed_by_the_agent(page, fence, pages_url) -> None:  # type: ignore[no-untyped-def]
    steps = [{"action": "Press the real button", "post": [{"expect": {"text": {"css": "#out", "equals": "real"}}}]}]
    agent = ScriptedAgent("#real")
    result = run(page, fence, pages_url, workflow(steps), agent=agent)
    assert result.status == "passed" and result.label == "passed"
    assert [(a.by, a.ok) for a in result.steps[0].actions] == [("agent", True)]
    assert agent.calls[0]["instruction"] == "Press the real button" and agent.calls[0]["failure"] == ""


def test_step_without_do_and_without_a_model_is_broken(page, fence, pages_url) -> None:  # type: ignore[no-untyped-def]
    result = run(page, fence, pages_url, workflow([{"action": "Press the real button"}]))
    assert result.status == "broken"
    assert "no 'do' ops and no model" in result.message
    assert result.steps[0].status == "broken"
    assert result.analysis is not None and result.analysis.category == "infrastructure"
    assert events(page) == []


def test_words_only_check_without_a_model_is_not_judged_and_the_run_passes(page, fence, pages_url) -> None:  # type: ignore[no-untyped-def]
    steps = [{"action": "Press A", "do": [{"click": "#fa"}], "post": ["The page says A"]}]
    result = run(page, fence, pages_url, workflow(steps))
    assert result.status == "passed" and result.label == "passed"
    (v,) = result.not_judged
    assert v.check == "The page says A" and v.ok is None and v.source == "none"
    assert "need a model" in v.explanation
    assert result.steps[0].post == [v] and result.steps[0].attempts == []


def test_ambiguous_locator_fails_naming_the_match_count(page, fence, pages_url) -> None:  # type: ignore[no-untyped-def]
    steps = [{"action": "Press Same", "do": [{"click": {"role": "button", "name": "Same"}}], "retries": 1}]
    result = run(page, fence, pages_url, workflow(steps))
    assert result.status == "failed" and result.failed_phase == "action"
    assert "matches 2 elements" in result.message
    assert result.analysis is not None and result.analysis.category == "wrong_element_or_value"
    assert events(page) == []


@pytest.mark.slow
def test_a_secret_echoed_by_the_page_stays_out_of_the_log(page, fence, pages_url, caplog, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """The page shows what was typed; the failing check's text (and so the attempt's log line) holds it."""
    import logging

    from pytest_reuseit.engine.runner import execute
    from pytest_reuseit.workflow.loader import parse

    secret = "s3cr3t-in-the-log-42"
    monkeypatch.setenv("LOG_SECRET", secret)
    loaded = parse(
        f"""
name: echo
task: type a secret
start_url: "{pages_url}/model/app.html"
settings: {{check_timeout: 0.3, retries: 1}}
steps:
  - action: Send the secret
    do:
      - fill: {{css: "#secret", value: "{{secret.LOG_SECRET}}"}}
      - click: {{role: button, name: Send}}
    post:
      - expect: {{text: {{css: "#echo", equals: "nothing"}}}}
    fallback:
      - do: [{{wait: 1}}]
""",
        "echo.reuseit.yaml",
    )
    with caplog.at_level(logging.DEBUG):
        result = execute(page, loaded, blocked=fence.blocked)
    assert result.status == "failed"
    assert "attempt 1 failed" in caplog.text  # the line that would carry it was written
    assert secret not in caplog.text
    assert "***" in caplog.text


# --------------------------------------------------------------------------- the trace, from the first retry

TRACED = {
    "retries": 1,
    "check_timeout": 0.3,
    "action_timeout": 3,
}


def _trace_clicks(path: str) -> list[str]:
    """The selectors of the clicks a Playwright trace recorded, in order."""
    with zipfile.ZipFile(path) as z:
        events = [json.loads(line) for line in z.read("trace.trace").decode().splitlines() if line.strip()]
    return [e["params"]["selector"] for e in events if e.get("type") == "before" and e.get("method") == "click"]


@pytest.mark.slow
def test_the_default_trace_starts_at_the_first_retry_and_is_kept_for_a_failure(
    make_runtime: Callable[..., Runtime], tmp_path: Path
) -> None:
    rt = make_runtime(trace=default("trace"), llm="off")
    steps = [
        {"action": "Press A", "do": [{"click": "#fa"}]},
        {
            "action": "Press B",
            "do": [{"click": "#fb"}],
            "post": [{"expect": {"text": {"css": "#out", "equals": "C"}}}],
            "fallback": [REDO],
        },
    ]
    failed = rt.run(parse(workflow(steps, settings=TRACED), "t.reuseit.yaml"), None, "failed")
    assert (failed.status, failed.failed_step, len(failed.steps[1].attempts)) == ("failed", 2, 1)
    assert failed.trace is not None
    # Recorded from the retry on: the redone click is in it, the clicks before it are not.
    assert _trace_clicks(failed.trace) == ["#fb"]

    passed = rt.run(parse(workflow(steps[:1], settings=TRACED), "t.reuseit.yaml"), None, "passed")
    assert passed.status == "passed" and passed.trace is None
    # A run that fails without a retry has no trace, and its report says why and what records one.
    at_once = rt.run(parse(workflow(steps, settings={**TRACED, "retries": 0}), "t.reuseit.yaml"), None, "at-once")
    assert at_once.status == "failed" and at_once.trace is None
    assert "trace: not kept (it is recorded from a run's first retry and this run made none; " in failure_text(at_once)
    assert "no attempt was made (retries: 0)" in failure_text(at_once)
    # A run that never got past its start has nothing a trace would show: no word of one.
    typing = [{"action": "Type the code", "do": [{"fill": {"css": "#code-in", "value": "{secret.REUSEIT_NEVER_SET}"}}]}]
    never = rt.run(parse(workflow(typing, settings=TRACED), "t.reuseit.yaml"), None, "never")
    assert (never.status, never.failed_phase, never.trace_withheld) == ("broken", "start", "")
    assert "trace:" not in failure_text(never)


def test_run_trace_records_when_its_mode_says(page: Page) -> None:
    for mode, at_start, after_retry in (
        ("on-first-retry", False, True),
        ("retain-on-failure", True, True),
        ("on", True, True),
        ("off", False, False),
    ):
        trace = RunTrace(page.context, mode)
        assert trace.recording is at_start, mode
        trace.on_first_retry()
        assert trace.recording is after_retry, mode
        if trace.recording:
            page.context.tracing.stop()
