"""A slow server is not a dead one: a page whose server takes 1.5 s to answer (a login POST hashing
a password, a busy database) is waited for up to the navigation budget (``navigation_timeout``),
wherever its load was started (a ``do`` op, a fallback, a redo, an ``eval``, a mutant's run); the
element waits stay short. A server that never answers is still found out within that budget and
reported as such: the page did not answer, never a site change.

The server is real (127.0.0.1, a thread per request): ``/login`` shows a form whose POST is
answered after ``SLOW_S``; ``/late`` is a GET answered after ``SLOW_S``; ``/never`` and a POST
to ``/never`` are never answered (until the server closes).
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

import pytest
import yaml

from pytest_reuseit.engine.context import RunOptions
from pytest_reuseit.engine.ports import Models
from pytest_reuseit.engine.result import RunResult
from pytest_reuseit.engine.runner import execute
from pytest_reuseit.workflow.loader import parse
from tests.support.llm_server import Request
from tests.support.model_answers import ANALYSIS, act, already_done, ref
from tests.support.mutate_command import mutate
from tests.support.serve import Served

pytestmark = pytest.mark.browser

# Three times the element waits below (0.5 s), a second past them: a loaded machine keeps the order.
SLOW_S = 1.5

_FORM = """<!doctype html><title>Log in</title>
<div id="banner" style="display:{banner};position:fixed;inset:0;background:#eee">
  <button onclick="this.parentNode.style.display='none'">Accept cookies</button></div>
<form method="post" action="{action}">
  <label>User <input name="user"></label>
  <button>Log in</button>
</form>
<a href="late">Later page</a>
"""
_WELCOME = "<!doctype html><title>Welcome</title><h1>Welcome, {user}</h1>"


class _SlowSite:
    """The slow (and the silent) server; ``stop`` releases the requests it never answered."""

    def __init__(self) -> None:
        self.stop = threading.Event()
        site = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: object) -> None:  # noqa: A002
                pass

            def _page(self, html: str) -> None:
                body = html.encode()
                self.send_response(200)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def do_GET(self) -> None:  # noqa: N802 - stdlib name
                path, _, query = self.path.partition("?")
                if path == "/never":
                    site.stop.wait(120)
                    return
                if path == "/late":
                    time.sleep(SLOW_S)
                    self._page(_WELCOME.format(user="reader"))
                    return
                action = "never" if "to=never" in query else "login"
                self._page(_FORM.format(banner="block" if "banner" in query else "none", action=action))

            def do_POST(self) -> None:  # noqa: N802 - stdlib name
                length = int(self.headers.get("Content-Length") or 0)
                form = self.rfile.read(length).decode()
                if self.path.startswith("/never"):
                    site.stop.wait(120)
                    return
                time.sleep(SLOW_S)
                user = form.partition("user=")[2].partition("&")[0] or "nobody"
                self._page(_WELCOME.format(user=user))

        self.served = Served(Handler)
        self.url = self.served.url

    def close(self) -> None:
        self.stop.set()
        self.served.close()


@pytest.fixture(scope="module")
def slow_site() -> Iterator[_SlowSite]:
    site = _SlowSite()
    yield site
    site.close()


# Element waits short on purpose (the page's elements are there at once): only the navigation
# budget may let the 1.5 s answer in.
FAST = {"retries": 1, "check_timeout": 0.5, "action_timeout": 0.5, "step_timeout": 40}
WELCOMED = {"expect": {"title": {"equals": "Welcome"}}}
FILL = {"fill": {"label": "User", "value": "ada"}}
LOG_IN = {"click": {"role": "button", "name": "Log in"}}


def workflow(steps: list[dict[str, Any]], *, start: str = "/login", **settings: Any) -> str:
    doc = {
        "name": "slow login",
        "task": "log in on a slow server",
        "start_url": "{base_url}" + start,
        "settings": {**FAST, **settings},
        "steps": steps,
    }
    return yaml.safe_dump(doc, sort_keys=False)


def run(page, fence, url: str, text: str) -> RunResult:  # type: ignore[no-untyped-def]
    return execute(
        page,
        parse(text, "slow.reuseit.yaml"),
        builtins={"base_url": url},
        options=RunOptions(screenshots="off"),
        models=Models(),
        blocked=fence.blocked,
    )


def _welcomed(result: RunResult, status: str) -> None:
    assert result.label == status, (result.message, [(s.status, s.error, s.attempts) for s in result.steps])
    assert result.final_url.endswith("/login"), result.final_url
    assert "did not answer" not in result.message


# --------------------------------------------------------------------------- slow, but answering


@pytest.mark.slow
def test_a_do_op_that_submits_to_a_slow_server_waits_for_its_answer(page, fence, slow_site) -> None:  # type: ignore[no-untyped-def]
    steps = [{"action": "Log in", "do": [FILL, LOG_IN], "post": [WELCOMED]}]
    result = run(page, fence, slow_site.url, workflow(steps))
    _welcomed(result, "passed")
    assert result.steps[0].post[0].ok


@pytest.mark.slow
def test_a_fallback_that_submits_to_a_slow_server_recovers(page, fence, slow_site) -> None:  # type: ignore[no-untyped-def]
    """The issue's case: the step's locator is wrong, its fallback clicks the real button. The
    fallback's first op gets half a second to find its element, not to see the next page load."""
    steps = [
        {
            "action": "Log in",
            "do": [FILL, {"click": {"role": "button", "name": "Sign in"}}],
            "post": [WELCOMED],
            "fallback": [{"do": [LOG_IN]}],
        }
    ]
    result = run(page, fence, slow_site.url, workflow(steps))
    _welcomed(result, "recovered")
    (attempt,) = result.steps[0].attempts
    assert attempt.ok and [a.ok for a in attempt.actions] == [True], attempt


@pytest.mark.slow
def test_a_redo_that_submits_to_a_slow_server_recovers(page, fence, slow_site) -> None:  # type: ignore[no-untyped-def]
    """A cookie banner covers the form: the click fails; the fallback accepts the cookies and redoes
    the action, whose click now submits to the slow server."""
    steps = [
        {
            "action": "Log in",
            "do": [{"click": {"role": "button", "name": "Log in"}}],
            "post": [WELCOMED],
            "fallback": [{"do": [{"click": {"role": "button", "name": "Accept cookies"}}], "redo": True}],
        }
    ]
    result = run(page, fence, slow_site.url, workflow(steps, start="/login?banner"))
    _welcomed(result, "recovered")
    (attempt,) = result.steps[0].attempts
    assert [a.description for a in attempt.actions if a.ok][-1].startswith("click"), attempt


@pytest.mark.slow
def test_an_eval_that_submits_to_a_slow_server_is_followed_by_its_page(page, fence, slow_site) -> None:  # type: ignore[no-untyped-def]
    """The script submits the form; the next op acts on the page the server answered with (a js
    check, run in the page, and the next op both need that page)."""
    steps = [
        {
            "action": "Log in by script",
            "do": [FILL, {"eval": "document.querySelector('form').submit()"}],
            "post": [{"expect": {"js": "document.title === 'Welcome'"}}],
        },
        {"action": "Read the greeting", "do": [{"extract": {"into": "hello", "text": {"css": "h1"}}}]},
    ]
    result = run(page, fence, slow_site.url, workflow(steps))
    _welcomed(result, "passed")
    assert result.extracted["hello"] == "Welcome, ada"


@pytest.mark.slow
def test_a_slow_get_started_by_a_fallback_is_waited_for(page, fence, slow_site) -> None:  # type: ignore[no-untyped-def]
    """The same for a link: the GET is answered after 1.5 s."""
    steps = [
        {
            "action": "Open the later page",
            "do": [{"click": {"role": "link", "name": "Sooner page"}}],
            "post": [WELCOMED],
            "fallback": [{"do": [{"click": {"role": "link", "name": "Later page"}}]}],
        }
    ]
    result = run(page, fence, slow_site.url, workflow(steps))
    assert result.label == "recovered", result.message
    assert result.final_url.endswith("/late")


@pytest.mark.slow
def test_the_agents_click_that_submits_to_a_slow_server_goes_through(make_runtime, fake_llm_env, slow_site) -> None:  # type: ignore[no-untyped-def]
    """The step has no ``do``: the agent clicks "Log in"; its click waits for its element, and the
    page it submits to gets the navigation budget. The agent is done only when its click went through."""

    def agent(req: Request) -> dict[str, str]:
        done = already_done(req)
        if "agent: " not in done:
            return act("click", ref(req, "button", "Log in"), message="I log in.")
        return act("done") if "(ok)" in done else act("fail", message=f"my click failed: {done}")

    fake_llm_env.add_rule("challenge_analysis", None, ANALYSIS)
    fake_llm_env.add_rule("agent_action", None, agent)
    rt = make_runtime(base_url=slow_site.url)
    result = rt.run(parse(workflow([{"action": "Log in", "post": [WELCOMED]}]), "slow.reuseit.yaml"), None, "run")
    _welcomed(result, "passed")
    assert [a.ok for a in result.steps[0].actions] == [True], result.steps[0].actions


@pytest.mark.slow
def test_a_page_the_agent_goes_to_waits_the_navigation_budget_not_its_element_wait(
    make_runtime, fake_llm_env, slow_site
) -> None:  # type: ignore[no-untyped-def]
    """The agent's ``goto`` of a page answered after 1.5 s, in a step whose element waits are 0.25 s:
    the page gets the navigation budget (it got three element waits, 0.75 s, and failed)."""

    def agent(req: Request) -> dict[str, str]:
        done = already_done(req)
        if "agent: " not in done:
            return act("goto", value="/late", message="The later page.")
        return act("done") if "(ok)" in done else act("fail", message=f"my goto failed: {done}")

    fake_llm_env.add_rule("challenge_analysis", None, ANALYSIS)
    fake_llm_env.add_rule("agent_action", None, agent)
    rt = make_runtime(base_url=slow_site.url)
    steps = [{"action": "Open the later page", "post": [WELCOMED]}]
    result = rt.run(parse(workflow(steps, action_timeout=0.25), "slow.reuseit.yaml"), None, "run")
    assert result.label == "passed", (result.message, [(a.description, a.error) for a in result.steps[0].actions])
    assert [a.ok for a in result.steps[0].actions] == [True], result.steps[0].actions
    assert result.final_url.endswith("/late")


# --------------------------------------------------------------------------- never answering


@pytest.mark.slow
@pytest.mark.parametrize("by", ["do", "fallback"])
def test_a_server_that_never_answers_is_reported_within_the_budget(page, fence, slow_site, by) -> None:  # type: ignore[no-untyped-def]
    never = {"do": [LOG_IN], "post": [WELCOMED]}
    if by == "fallback":
        never = {
            "do": [{"click": {"role": "button", "name": "Sign in"}}],
            "post": [WELCOMED],
            "fallback": [{"do": [LOG_IN]}],
        }
    steps = [{"action": "Log in", **never}]
    started = time.monotonic()
    result = run(page, fence, slow_site.url, workflow(steps, start="/login?to=never", navigation_timeout=1.5))
    took = time.monotonic() - started
    assert result.status in ("failed", "broken"), result.message
    assert took < 1.5 + 8, took  # the budget, plus the short element waits and the start
    words = f"{slow_site.url}/never did not answer within 1.5s (navigation_timeout), so the page was closed"
    assert result.analysis is not None
    assert words in result.analysis.why, result.analysis.why
    # Where it was met: the step's own op, or the fallback's (its step failed on the wrong locator first).
    assert words in (result.message if by == "do" else result.steps[0].attempts[0].note), result.message
    assert result.analysis.category in ("infrastructure", "page_not_ready"), result.analysis
    assert "navigation_timeout" in " ".join(result.analysis.guidance), result.analysis.guidance


@pytest.mark.slow
def test_a_step_may_give_its_navigations_a_budget_of_their_own(page, fence, slow_site) -> None:  # type: ignore[no-untyped-def]
    """The workflow's budget (3 s) lets the 1.5 s answer in; a step's own (1 s) does not."""
    steps = [{"action": "Log in", "do": [FILL, LOG_IN], "post": [WELCOMED], "navigation_timeout": 1}]
    result = run(page, fence, slow_site.url, workflow(steps, navigation_timeout=3))
    assert result.status == "failed", result.message
    assert f"{slow_site.url}/login did not answer within 1s (navigation_timeout)" in result.message, result.message


# --------------------------------------------------------------------------- reuseit mutate

_MUTATE = """name: Slow login
task: Log in
start_url: "{base_url}/login"
settings: {retries: 1, check_timeout: 0.5, action_timeout: 0.5}
steps:
  - action: Log in
    do:
      - fill: {label: User, value: ada}
      - click: {role: button, name: Sign in}
    post:
      - expect: {title: {equals: Welcome}}
    fallback:
      - do: [{click: {role: button, name: Log in}}]
"""


@pytest.mark.slow
def test_the_benign_slow_responses_mutants_of_a_slow_login_are_clean(tmp_path: Path, slow_site) -> None:  # type: ignore[no-untyped-def]
    """The clean run recovers through the slow POST; its benign mutant passes under the capped
    waits at once (a navigation's load is never capped)."""
    (tmp_path / "slow.reuseit.yaml").write_text(_MUTATE, encoding="utf-8")
    pytest_args = ("--base-url", slow_site.url, "--reuseit-llm", "off")
    proc = mutate(tmp_path, ".", "--operators", "slow_responses", pytest_args=pytest_args)
    written = tmp_path / "reuseit-output" / "mutation.json"
    assert written.exists(), proc.stdout[-2000:] + proc.stderr[-2000:]
    report = json.loads(written.read_text(encoding="utf-8"))
    mutants = report["reuseit"]["mutants"]
    assert mutants, proc.stdout[-2000:] + proc.stderr[-2000:]
    for mutant in mutants:
        assert mutant["outcome"] == "clean", (mutant, proc.stdout[-2000:])
        assert [(r["outcome"], r["full_waits"]) for r in mutant["runs"]] == [("clean", False)], mutant
