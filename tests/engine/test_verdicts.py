"""Verdicts you can believe, in a real Chromium through the engine: secrets compared and masked,
values read from a secret's field kept secret, Promises awaited, ambiguity named, and the run's
timeline recorded for the reports."""

from __future__ import annotations

import json
from typing import Any

import pytest
import yaml

from pytest_reuseit.engine.context import RunOptions
from pytest_reuseit.engine.ports import Models
from pytest_reuseit.engine.result import RunResult
from pytest_reuseit.engine.runner import execute
from pytest_reuseit.workflow.loader import parse

pytestmark = pytest.mark.browser

TOKEN = "tok-verdict-4471"


def run(page, fence, pages_url: str, steps: list[dict[str, Any]], **top: Any) -> RunResult:  # type: ignore[no-untyped-def]
    doc = {
        "name": "verdicts",
        "task": "exercise verdicts",
        "start_url": "{base_url}/verdicts.html",
        "settings": {"retries": 0, "check_timeout": 2, "action_timeout": 5},
        "steps": steps,
        **top,
    }
    loaded = parse(yaml.safe_dump(doc, sort_keys=False), "verdicts.reuseit.yaml")
    return execute(
        page,
        loaded,
        builtins={"base_url": pages_url},
        options=RunOptions(screenshots="failures"),
        models=Models(),
        blocked=fence.blocked,
    )


def everything(result: RunResult) -> str:
    return json.dumps(result.to_dict()) + "".join(s.label for s in result.screenshots())


# --------------------------------------------------------------------------- secrets


@pytest.mark.slow
def test_secret_is_navigated_to_evaluated_and_compared_and_shown_masked(page, fence, pages_url, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("VERDICT_TOKEN", TOKEN)
    steps = [
        {
            "action": "Type the token and show it",
            "do": [
                {"goto": "{base_url}/verdicts.html?t={secret.VERDICT_TOKEN}"},
                {"fill": {"css": "#token", "value": "{secret.VERDICT_TOKEN}"}},
                {"click": "#show"},
                {"eval": "window.seen = '{secret.VERDICT_TOKEN}'"},
            ],
            "post": [
                {"expect": {"value": {"css": "#token", "equals": "{secret.VERDICT_TOKEN}"}}},
                {"expect": {"text": {"css": "#echo", "contains": "{secret.VERDICT_TOKEN}"}}},
                {"expect": {"url": {"contains": "{secret.VERDICT_TOKEN}"}}},
                {"expect": {"js": "window.seen === '{secret.VERDICT_TOKEN}'"}},
            ],
        }
    ]
    result = run(page, fence, pages_url, steps)
    assert result.status == "passed", result.to_dict()
    assert page.evaluate("window.seen") == TOKEN  # the real value reached the page
    assert TOKEN in page.url
    assert TOKEN not in everything(result)
    assert result.final_url.endswith("?shown=***")
    assert result.steps[0].actions[0].description == f"goto '{pages_url}/verdicts.html?t={{secret.VERDICT_TOKEN}}'"


@pytest.mark.slow
def test_value_read_from_a_secret_field_is_secret_even_when_the_page_changed_it(
    page, fence, pages_url, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("VERDICT_TOKEN", TOKEN)
    # The page uppercases what is typed: the value read back is not the secret, but it is one.
    page.route("**/upper.html", lambda route: route.fulfill(content_type="text/html", body=UPPER_PAGE))
    steps = [
        {
            "action": "Type the token",
            "do": [{"fill": {"css": "#loud", "value": "{secret.VERDICT_TOKEN}"}}],
            "extract": {"into": "loud", "value": {"css": "#loud"}},
        },
        {
            "action": "Compare it with something else",
            "do": [{"wait": 1}],
            "post": [{"expect": {"text": {"css": "#label", "equals": "{loud}"}}}],
        },
    ]
    result = run(page, fence, pages_url, steps, start_url="{base_url}/upper.html")
    assert page.evaluate("document.getElementById('loud').value") == TOKEN.upper()
    assert result.status == "failed" and result.failed_step == 2
    assert TOKEN.upper() not in everything(result)
    assert result.extracted == {"loud": "***"}
    assert result.steps[1].post[0].expected == "text of css='#label' to equal '***'"


UPPER_PAGE = """<!doctype html><title>Upper</title>
<input id="loud" oninput="this.value = this.value.toUpperCase()"><p id="label">label</p>"""


def test_unset_env_is_broken_before_anything_runs_and_says_so(page, fence, pages_url, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.delenv("VERDICT_UNSET", raising=False)
    steps = [
        {"action": "Go", "do": [{"click": "#show"}]},
        {"action": "Then type", "do": [{"fill": {"css": "#token", "value": "{env.VERDICT_UNSET}"}}]},
    ]
    result = run(page, fence, pages_url, steps)
    assert result.status == "broken" and result.steps == []  # step 1 never ran
    assert "environment variable 'VERDICT_UNSET' (used as {env.VERDICT_UNSET}) is not set" in result.message
    assert result.analysis is not None
    assert not any("reachable" in g for g in result.analysis.guidance), result.analysis.guidance


def test_short_secret_is_refused_before_anything_runs(page, fence, pages_url, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("VERDICT_TOKEN", "ab")
    steps = [{"action": "Type", "do": [{"fill": {"css": "#token", "value": "{secret.VERDICT_TOKEN}"}}]}]
    result = run(page, fence, pages_url, steps)
    assert result.status == "broken" and result.steps == []
    assert "secret 'VERDICT_TOKEN' is 2 characters long; secrets need at least 4" in result.message


# --------------------------------------------------------------------------- js and ambiguity


@pytest.mark.parametrize(
    ("expr", "ok"),
    [
        ("Promise.resolve(false)", False),
        ("new Promise(r => setTimeout(() => r(true), 50))", True),
        ("(async () => 0)()", False),
        ("async () => document.title === 'Verdicts'", True),
        ("[]", True),  # JavaScript truthiness: an empty array is truthy
    ],
)
@pytest.mark.slow
def test_js_assertion_awaits_promises(page, fence, pages_url, expr: str, ok: bool) -> None:  # type: ignore[no-untyped-def]
    settings = {"retries": 0, "check_timeout": 0.5}  # the false ones wait it out
    steps = [{"action": "Look", "do": [{"wait": 1}], "post": [{"expect": {"js": expr}}]}]
    result = run(page, fence, pages_url, steps, settings=settings)
    assert result.status == ("passed" if ok else "failed"), result.message


def test_eval_and_extract_await_promises(page, fence, pages_url) -> None:  # type: ignore[no-untyped-def]
    steps = [
        {
            "action": "Wait for a promise",
            "do": [{"eval": "new Promise(r => setTimeout(() => { window.done = 'yes'; r(); }, 100))"}],
            "extract": {"into": "later", "js": "new Promise(r => setTimeout(() => r(window.done + '!'), 50))"},
        }
    ]
    result = run(page, fence, pages_url, steps)
    assert result.status == "passed" and result.extracted == {"later": "yes!"}


def test_text_assertion_on_two_elements_names_the_ambiguity(page, fence, pages_url) -> None:  # type: ignore[no-untyped-def]
    steps = [
        {
            "action": "Read the item",
            "do": [{"wait": 1}],
            "post": [{"expect": {"text": {"css": ".item", "equals": "buy some cheese"}}}],
        }
    ]
    result = run(page, fence, pages_url, steps)
    assert result.status == "failed"
    assert "2 elements match (the locator must be unique" in result.steps[0].post[0].actual
    assert "2 elements match" in result.message
    # The advice says what to change in the file, not that the site shows another value.
    assert result.analysis is not None and result.analysis.category == "wrong_element_or_value"
    advice = " ".join(result.analysis.guidance)
    assert "matches several elements" in advice and "nth, exact, has_text or within" in advice
    assert "shows another value" not in advice


def test_a_state_check_that_fails_is_advised_by_the_state_it_found(page, fence, pages_url) -> None:  # type: ignore[no-untyped-def]
    steps = [
        {
            "action": "Look at the hidden note",
            "do": [{"wait": 1}],
            "post": [{"expect": {"visible": "#not-shown"}}],
            "retries": 0,
        }
    ]
    result = run(page, fence, pages_url, steps, start_url="{base_url}/ops.html", settings={"check_timeout": 0.3})
    assert result.status == "failed" and result.steps[0].post[0].actual == "not visible"
    assert result.analysis is not None and result.analysis.category == "wrong_element_or_value"
    advice = " ".join(result.analysis.guidance)
    assert "The element is on the page but not visible" in advice and "shows another value" not in advice


# --------------------------------------------------------------------------- timeline


@pytest.mark.slow
def test_every_part_of_the_run_has_its_real_times(page, fence, pages_url) -> None:  # type: ignore[no-untyped-def]
    steps = [
        {
            "action": "Wait a little",
            "do": [{"wait": 300}, {"click": "#show"}],
            "post": [{"expect": {"text": {"css": "#status", "equals": "nope"}}}],
            "fallback": [{"do": [{"wait": 200}], "redo": True}],
            "retries": 2,
        }
    ]
    result = run(page, fence, pages_url, steps, settings={"retries": 2, "check_timeout": 0.3, "action_timeout": 2})
    step = result.steps[0]
    assert result.started <= step.started <= step.action_started < step.action_ended <= step.ended <= result.ended
    wait = step.actions[0]
    assert 0.28 <= wait.ended - wait.started < 2
    assert [a.number for a in step.attempts] == [1, 2]
    first, second = step.attempts
    assert step.post[0].ended <= first.started < first.ended <= second.started < second.ended <= step.ended
    assert all(v.started and v.ended >= v.started for a in step.attempts for v in a.verdicts)
    assert abs((result.ended - result.started) - result.duration) < 0.01
