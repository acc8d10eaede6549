"""Verdicts through pytest itself, in a subprocess with a real browser and the fake model server:
no secret in any byte the session writes, a wrong password is *failed* even when the model cuts
the recovery short, and what a run could not judge never passes silently."""

from __future__ import annotations

import json
import re
import urllib.request
import xml.etree.ElementTree as ET
from urllib.parse import quote

import pytest

from tests.support.llm_server import FakeLLM
from tests.support.paths import ROOT

pytestmark = pytest.mark.browser

TOKEN = "tok-verdict-4471"
WRONG_PW = "wrong-horse-battery"

SECRETS_WF = """\
name: Token round trip
task: Show the token and check the greeting
start_url: "{base_url}/verdicts.html?t={secret.VERDICT_TOKEN}"
params: {token: "{secret.VERDICT_TOKEN}"}
settings: {retries: 1, check_timeout: 1, action_timeout: 2}
steps:
  - action: Type the token and show it
    do:
      - fill: {css: "#token", value: "{token}"}
      - click: "#show"
      - eval: "window.seen = '{secret.VERDICT_TOKEN}'"
    post:
      - The token is shown on the page
      - expect: {value: {css: "#token", equals: "{secret.VERDICT_TOKEN}"}}
      - expect: {url: {contains: "{secret.VERDICT_TOKEN}"}}
      - expect: {js: "window.seen === '{secret.VERDICT_TOKEN}'"}
    extract:
      - {into: typed, value: {css: "#token"}}
      - {into: shown, text: {css: "#echo"}}
  - action: Check the greeting for {typed}
    check_timeout: 0.5  # both checks fail, each waiting this out twice (retries: 1)
    do: [{wait: 1}]
    post:
      - expect: {text: {css: "#head", equals: "Hello {typed}"}}
      - expect: {text: {css: "#echo", equals: "{shown}!"}}
"""

LOGIN_WF = """\
name: Log in
task: Log in with the stored password
start_url: "{base_url}/verdicts.html"
settings: {retries: 1, check_timeout: 0.5, action_timeout: 1}  # the post check fails: it waits this out twice
steps:
  - action: Log in
    do:
      - fill: {css: "#pw", value: "{secret.VERDICT_PW}"}
      - click: "#login"
    post:
      - expect: {text: {css: "#status", equals: Welcome back}}
"""


def run(pytester: pytest.Pytester, pages_url: str, *args: str) -> pytest.RunResult:
    return pytester.runpytest(
        "-p",
        "no:cacheprovider",
        "--base-url",
        pages_url,
        "--reuseit-llm-retries",
        "0",
        "--reuseit-llm-backoff",
        "0.01",
        "--reuseit-cache",
        str(pytester.path / "cache"),
        "--alluredir",
        str(pytester.path / "allure"),
        "--junitxml",
        str(pytester.path / "junit.xml"),
        *args,
    )


def model_env(monkeypatch: pytest.MonkeyPatch, fake: FakeLLM) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", fake.base_url)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")


@pytest.mark.slow
def test_no_secret_in_any_byte_the_session_writes(
    pytester: pytest.Pytester, pages_url: str, fake_llm: FakeLLM, monkeypatch: pytest.MonkeyPatch
) -> None:
    model_env(monkeypatch, fake_llm)
    monkeypatch.setenv("VERDICT_TOKEN", TOKEN)
    fake_llm.add_rule("condition_check", None, {"met": True, "explanation": "the token is shown"})
    fake_llm.add_rule(
        "challenge_analysis",
        None,
        {
            "where": "step 2",
            "why": "greeting differs",
            "what": "checked",
            "guidance": ["fix"],
            "category": "site_changed",
        },
    )
    pytester.path.joinpath("token.reuseit.yaml").write_text(SECRETS_WF)
    result = run(
        pytester,
        pages_url,
        "-v",
        "-rA",
        "--log-level=INFO",
        "-o",
        "log_cli=true",
        "--reuseit-artifacts",
        "always",
        "--reuseit-screenshots",
        "steps",
        "--reuseit-trace",
        "on",
    )
    result.assert_outcomes(failed=1)
    data = json.loads(next((pytester.path / "reuseit-output").rglob("result.json")).read_text())
    # The secret assertions held (step 1 passed); step 2 failed on the greeting, with values masked.
    assert [s["status"] for s in data["steps"]] == ["passed", "failed"]
    assert data["steps"][1]["post"][0]["expected"] == "text of css='#head' to equal 'Hello ***'"
    assert data["final_url"].endswith("?shown=***") and data["start_url"].endswith("?t=***")
    assert fake_llm.calls("condition_check") >= 1 and fake_llm.calls("challenge_analysis") == 1
    assert list((pytester.path / "cache").rglob("*.json")) and not list((pytester.path / "cache").rglob("*.lock"))
    # A trace would record the typed and compared values: none is kept, and the report says why.
    assert data["trace"] is None and data["trace_withheld"]
    assert "trace: not kept (a secret was typed in this run" in result.stdout.str()
    shown = f"Your token is {TOKEN}"
    forms = {TOKEN, quote(TOKEN, safe=""), shown}
    texts = {"stdout": result.stdout.str(), "stderr": result.stderr.str(), "model requests": fake_llm.bodies_text()}
    files = [p for p in pytester.path.rglob("*") if p.is_file()]
    assert len(files) > 10  # allure results, junit, result.json, screenshots, cache entries
    for path in files:
        texts[f"name of {path}"] = str(path.relative_to(pytester.path))
        texts[str(path)] = path.read_bytes().decode("utf-8", "replace")
    for where, text in texts.items():
        for form in forms:
            assert form not in text, f"{form!r} in {where}"


@pytest.mark.slow
def test_wrong_password_is_failed_even_when_the_model_cuts_the_recovery_short(
    pytester: pytest.Pytester, pages_url: str, fake_llm: FakeLLM, monkeypatch: pytest.MonkeyPatch
) -> None:
    model_env(monkeypatch, fake_llm)
    monkeypatch.setenv("VERDICT_PW", WRONG_PW)
    # The redo cannot find the form (a wrong password removes it), healing asks the model: it is down.
    fake_llm.add_rule(None, None, FakeLLM.error(503, "the model is overloaded"))
    # A fallback that logs in again (redo): the attempt the model then cuts short.
    redo = "    fallback:\n      - do: [{wait: 1}]\n        redo: true\n"
    pytester.path.joinpath("login.reuseit.yaml").write_text(LOGIN_WF + redo)
    result = run(pytester, pages_url)
    result.assert_outcomes(failed=1)
    out = result.stdout.str()
    assert "0 passed, 0 recovered, 0 healed, 1 failed, 0 broken  (1 workflow runs)" in out
    line = next(x for x in out.splitlines() if x.startswith("FAILED login.reuseit.yaml::login[default] ["))
    assert "Wrong password" in line and "recovery cut short" in line
    assert "infrastructure: " in out  # the model trouble is reported beside the verdict
    case = ET.parse(pytester.path / "junit.xml").getroot().find(".//testcase")
    assert case is not None and case.find("failure") is not None and case.find("error") is None
    allure = [json.loads(p.read_text()) for p in (pytester.path / "allure").glob("*-result.json")]
    assert [r["status"] for r in allure] == ["failed"]
    message = allure[0]["statusDetails"]["message"]
    assert "Wrong password" in message and "infrastructure:" in message and "verdicts.html" in message
    assert WRONG_PW not in out and WRONG_PW not in fake_llm.bodies_text()


WORDS_ONLY_WF = """\
name: Words only
task: Look at the page
start_url: "{base_url}/verdicts.html"
steps:
  - action: Look
    do: [{wait: 1}]
    post:
      - The page asks the user to sign in
"""


def no_model(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("OPENAI_BASE_URL", "OPENAI_API_KEY", "REUSEIT_LLM"):
        monkeypatch.delenv(name, raising=False)


@pytest.mark.slow
def test_unjudged_checks_skip_without_a_model_and_pass_only_by_explicit_choice(
    pytester: pytest.Pytester, pages_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    no_model(monkeypatch)
    pytester.path.joinpath("words.reuseit.yaml").write_text(WORDS_ONLY_WF)
    skipped = run(pytester, pages_url, "-rs", "--reuseit-trace", "off")
    skipped.assert_outcomes(skipped=1)
    out = skipped.stdout.str()
    assert "not judged: 1 check(s) in words need a model and none is configured" in out
    assert "give them an expect (a DOM assertion)" in out
    assert "1 skipped: checks in words not judged (no model configured)" in out
    allure = [json.loads(p.read_text()) for p in (pytester.path / "allure").glob("*-result.json")]
    assert [r["status"] for r in allure] == ["skipped"]

    accepted = run(pytester, pages_url, "--reuseit-llm", "off", "--reuseit-trace", "off")
    accepted.assert_outcomes(passed=1)
    assert "NOT JUDGED: 1 model-only checks in 1 runs" in accepted.stdout.str()


@pytest.mark.slow
def test_the_readme_example_runs_green_for_a_new_user(
    pytester: pytest.Pytester, pages_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    no_model(monkeypatch)
    readme = (ROOT / "README.md").read_text()
    block = re.search(r"```yaml\n(.*?)```", readme, re.S)
    assert block
    pytester.path.joinpath("search.reuseit.yaml").write_text(block.group(1))
    result = run(pytester, pages_url, "--reuseit-trace", "off")
    result.assert_outcomes(passed=2)


FAILING_WF = """\
name: Status check
task: Read the status
start_url: "{base_url}/verdicts.html"
settings: {retries: 1, check_timeout: 0.5}
steps:
  - action: Read the status
    do: [{wait: 1}]
    post:
      - expect: {text: {css: "#status", equals: signed in}}
    fallback:
      - do: [{wait: 1}]  # one attempt: the trace is recorded from the first retry
"""


@pytest.mark.slow
def test_trace_is_named_in_result_json_and_opens_offline(
    pytester: pytest.Pytester, pages_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pytest_reuseit.cli.trace import start_viewer, stop_viewer

    no_model(monkeypatch)
    pytester.path.joinpath("status.reuseit.yaml").write_text(FAILING_WF)
    result = run(pytester, pages_url, "--reuseit-llm", "off")
    result.assert_outcomes(failed=1)
    folder = next(p for p in (pytester.path / "reuseit-output").iterdir() if p.is_dir())
    data = json.loads((folder / "result.json").read_text())
    assert data["trace"] == str(folder / "trace.zip") and (folder / "trace.zip").is_file()
    hint = f"(open with: reuseit trace {folder.name}"
    assert hint in result.stdout.str().replace("reuseit-output/", "")
    proc, url = start_viewer(folder / "trace.zip")
    try:
        assert re.fullmatch(r"http://127\.0\.0\.1:\d+/?\S*", url), url
        with urllib.request.urlopen(url, timeout=30) as page:  # noqa: S310 - 127.0.0.1 only
            assert page.status == 200 and "Playwright" in page.read().decode()
    finally:
        stop_viewer(proc)
    # Nothing of the viewer is left serving (its Node server was a child of the process stopped).
    with pytest.raises(OSError):
        urllib.request.urlopen(url, timeout=5)  # noqa: S310 - 127.0.0.1 only
