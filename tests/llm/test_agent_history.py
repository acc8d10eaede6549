"""The agent's own ``back``, ``forward`` and ``reload`` on a browser that keeps Chromium's
back/forward cache (one reached over CDP: ``--reuseit-cdp``, a Selenium Grid node).

A page restored from that cache fires no load event: a plain ``go_back()`` waits for one until
the navigation timeout, and the agent's step fails as if the site had changed. The model is the
local fake endpoint, answering from the observation it is sent. An agent that goes back where
there is no previous page is told so, and its step fails in its words."""

from __future__ import annotations

import logging
import re
import time
from pathlib import Path

import pytest
import yaml

from pytest_reuseit.runtime import Runtime
from pytest_reuseit.workflow.loader import parse
from tests.support.browser_server import CdpChromium
from tests.support.guarded_runs import fake, rt, workflow
from tests.support.llm_server import FakeLLM, Request
from tests.support.model_answers import ANALYSIS, act, already_done, observation, requests, user_text
from tests.support.paths import PAGES
from tests.support.selenium_grid import CHROMIUM
from tests.support.threaded_runtime import ThreadedRuntime

__all__ = ["fake", "rt"]  # the model-guard tests' fixtures, for the tests below

pytestmark = [pytest.mark.browser, pytest.mark.slow]

REAL = PAGES / "real"
NAVIGATION_S = 8  # what a step that waited out a load event would take at least


def loads(req: Request) -> int:
    """How many documents the tab loaded, as navigate.html shows it in the observation."""
    m = re.search(r'- paragraph \[ref=\w+\]: "(\d+)"', observation(req))
    assert m, observation(req)
    return int(m.group(1))


def history_agent(req: Request) -> dict[str, str]:
    """Asked to go back, forward or reload: does it once, then says done when the observation
    shows the page it wanted (and fail, as a careful model would, when its action failed)."""
    text = user_text(req)
    done = already_done(req)
    if "failed:" in done:
        return act("fail", message="My history action failed.")
    for action, title in (("back", "Files"), ("forward", "Navigate"), ("reload", "Navigate")):
        if f"Step action to carry out now: {action} " in text:
            if "agent: " not in done:
                return act(action, message=f"I {action}.")
            if f"Page: {title} " not in text:
                return act("fail", message=f"I am not on the {title} page.")
            return act("done", message=f"{action} done.")
    raise AssertionError(text)


def test_agent_goes_back_forward_and_reloads_on_a_browser_that_keeps_its_back_forward_cache(
    tmp_path: Path, fake_llm_env: FakeLLM, pages_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="pytest_reuseit.browser.pages")
    fake_llm_env.add_rule("challenge_analysis", None, ANALYSIS)
    fake_llm_env.add_rule("agent_action", None, history_agent)
    doc = {
        "name": "agent history",
        "task": "Move through the pages",
        "start_url": "{base_url}/real/files.html",
        "settings": {"retries": 0, "check_timeout": 2, "action_timeout": 2, "navigation_timeout": NAVIGATION_S},
        "steps": [
            {"action": "Open the navigate page", "do": [{"goto": "{base_url}/real/navigate.html"}]},
            {"action": "back to the files page", "post": [{"expect": {"title": {"equals": "Files"}}}]},
            {"action": "forward to the navigate page", "post": [{"expect": {"title": {"equals": "Navigate"}}}]},
            {"action": "reload the navigate page", "post": [{"expect": {"title": {"equals": "Navigate"}}}]},
        ],
    }
    loaded = parse(yaml.safe_dump(doc, sort_keys=False), "history.reuseit.yaml", folder=str(REAL))
    with CdpChromium(executable=CHROMIUM) as chromium:
        rt = ThreadedRuntime(
            tmp_path,
            cdp=chromium.endpoint,
            base_url=pages_url,
            screenshots="off",
            llm="auto",
            cache=str(tmp_path / "cache"),
            llm_backoff=0.01,
            llm_retries=2,
            llm_timeout=5,
        )
        try:
            start = time.monotonic()
            result = rt.call(rt.runtime.run, loaded, None, "history")
            took = time.monotonic() - start
        finally:
            rt.close()
    steps = {
        s.index: (round(s.ended - s.started, 1), [(a.description, a.ok, a.error) for a in s.actions])
        for s in result.steps
    }
    assert result.status == "passed", (result.message, steps)
    for step in result.steps[1:]:
        assert [(a.description, a.ok, a.error) for a in step.actions] == [(step.actions[0].description, True, "")]
        # No history step waited for a load event that a restored page never fires.
        assert step.ended - step.started < NAVIGATION_S / 2, steps
    assert [s.actions[0].description for s in result.steps[1:]] == ["back", "forward", "reload"]
    assert took < 3 * NAVIGATION_S, steps
    # The browser did keep the pages it left: back and forward each found theirs restored.
    for method in ("go_back", "go_forward"):
        assert f"{method}: the page came back from the browser's back/forward cache" in caplog.text
    # The reload loaded the document again: the tab's count of loads went up by one.
    turns = requests(fake_llm_env, "agent_action")
    reload_turns = [r for r in turns if "Step action to carry out now: reload " in user_text(r)]
    assert len(reload_turns) == 2
    assert loads(reload_turns[1]) == loads(reload_turns[0]) + 1


def test_agent_told_there_is_no_previous_page_fails_the_step(rt: Runtime, fake: FakeLLM) -> None:
    def agent(req: Request) -> dict[str, str]:
        done = already_done(req)
        if "agent: " not in done:
            return act("back", message="I go back.")
        assert "agent: back (failed: there is no previous page in this page's history)" in done
        return act("fail", message="There is no page to go back to.")

    fake.add_rule("agent_action", None, agent)
    steps = [
        {
            "action": "Open the help in a tab (a new tab has no history)",
            "do": [{"click": {"role": "link", "name": "Open the help in a tab"}, "new_page": True}],
        },
        {"action": "back to the page before", "post": [{"expect": {"title": {"equals": "Book form"}}}]},
    ]
    result = rt.run(workflow(steps, start="real/popup.html"), None, "run")
    assert result.status == "failed", result.message
    assert "There is no page to go back to." in result.message
    back = result.steps[1].actions[0]
    assert (back.description, back.ok) == ("back", False)
    assert back.error == "there is no previous page in this page's history"
