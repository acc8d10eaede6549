"""The model path through pytest itself: healing, terminal summary, usage.json and healing.json."""

from __future__ import annotations

import json
import re

import pytest

from tests.support.llm_server import FakeLLM, Request

HEAL = """
name: Heal a broken locator
task: Press the paint button
start_url: "{base_url}/model/app.html"
settings: {action_timeout: 0.5, check_timeout: 1}  # the broken click waits this out before healing
steps:
  - action: Click the Paint button
    do: [{click: "#no-such-button"}]
    post:
      - expect: {text: {css: "#status", contains: "painted"}}
"""


def _click_paint(req: Request) -> dict[str, str]:
    """Plays the agent: click the element the observation names "Paint", then say done."""
    if "Already done in this step:\n- nothing yet" not in req.text and "agent: click" in req.text:
        return {"thought": "", "action": "done", "element": "", "value": "", "message": "painted"}
    ref = re.search(r'button "Paint" \[ref=(e\d+)\]', req.text)
    assert ref, req.text
    return {"thought": "", "action": "click", "element": ref.group(1), "value": "", "message": "clicked Paint"}


@pytest.mark.slow
def test_healed_run_is_summarised_and_its_suggestion_and_usage_are_written(
    pytester: pytest.Pytester, pages_url: str, fake_llm: FakeLLM, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake_llm.add_rule("agent_action", None, _click_paint)
    monkeypatch.setenv("OPENAI_BASE_URL", fake_llm.base_url)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-never-printed")
    pytester.path.joinpath("heal.reuseit.yaml").write_text(HEAL)
    result = pytester.runpytest(
        "-p",
        "no:cacheprovider",
        "--base-url",
        pages_url,
        "--reuseit-llm",
        "auto",
        "--reuseit-llm-backoff",
        "0.01",
        "--reuseit-cache",
        str(pytester.path / "cache"),
    )
    result.assert_outcomes(passed=1)
    out = result.stdout.str()
    assert "0 passed, 0 recovered, 1 healed, 0 failed, 0 broken" in out
    assert re.search(r"model: 2 calls, 0 cache hits, \d+ tokens", out)
    assert "replace 'click selector='#no-such-button'' with 'role=button[name=\"Paint\"]'" in out
    assert "sk-test-never-printed" not in out
    healing = json.loads((pytester.path / "reuseit-output" / "healing.json").read_text())
    assert healing == [
        {
            "file": "heal.reuseit.yaml",
            "line": 8,
            "step": 1,
            "op_index": 0,
            "broken": "click selector='#no-such-button'",
            "replacement": 'role=button[name="Paint"]',
            "test": "heal.reuseit.yaml::heal[default]",
        }
    ]
    usage = json.loads((pytester.path / "reuseit-output" / "usage.json").read_text())
    assert usage["total"]["calls"] == 2 and usage["items"]["heal.reuseit.yaml::heal[default]"]["calls"] == 2
    # Learning is opt-in: nothing was kept without --reuseit-learn.
    assert not (pytester.path / ".reuseit" / "experience").exists()

    # Strict mode: a healed run is not a clean pass. The answers are cached now: no new calls.
    calls_before = fake_llm.calls()
    strict = pytester.runpytest(
        "-p",
        "no:cacheprovider",
        "--base-url",
        pages_url,
        "--reuseit-llm",
        "replay",
        "--reuseit-strict",
        "--reuseit-cache",
        str(pytester.path / "cache"),
    )
    strict.assert_outcomes(failed=1)
    assert "the run was healed (--reuseit-strict)" in strict.stdout.str()
    assert fake_llm.calls() == calls_before


@pytest.mark.slow
def test_reuseit_learn_keeps_what_a_healed_run_taught(
    pytester: pytest.Pytester, pages_url: str, fake_llm: FakeLLM, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake_llm.add_rule("agent_action", None, _click_paint)
    monkeypatch.setenv("OPENAI_BASE_URL", fake_llm.base_url)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    pytester.path.joinpath("heal.reuseit.yaml").write_text(HEAL)
    result = pytester.runpytest(
        "-p", "no:cacheprovider", "--base-url", pages_url, "--reuseit-learn", "--reuseit-llm-backoff", "0.01"
    )
    result.assert_outcomes(passed=1)
    rules = json.loads((pytester.path / ".reuseit" / "experience" / "127.0.0.1.json").read_text())
    assert [r["rule"] for r in rules] == ["To 'Click the Paint button', use role=button[name=\"Paint\"]."]
