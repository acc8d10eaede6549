"""Sessions (`session: {from: ...}`, `browser.storage_state`) and browser-context keys, run for real.

Each test runs a pytest session in a subprocess with a real Chromium against pages served on
127.0.0.1 (the tiny page of tests/support/tiny_site.py; a small basic-auth server for `http_credentials`).
"""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler

import pytest

from tests.support.pytest_sessions import output_of, run_sub, write
from tests.support.serve import Served
from tests.support.tiny_site import tiny_site

__all__ = ["tiny_site"]  # the fixture, for the tests below

LOGIN_WF = """\
name: Log in
task: log in
start_url: "{base_url}/index.html"
settings: {retries: 0, check_timeout: 1}  # the failing session test's check waits this out
steps:
  - action: Log in (remember a token in local storage)
    do:
      - eval: "localStorage.setItem('token', 'tok-' + Math.random())"
    post:
      - expect: {js: "localStorage.getItem('token').startsWith('tok-')"}
"""

NEEDS_LOGIN_WF = """\
name: Needs the login {n}
task: read the token
start_url: "{base_url}/index.html"
session: {from: login.reuseit.yaml}
params: {n: "1"}
settings: {retries: 0, check_timeout: 1}  # a run without the session waits this out
steps:
  - action: Read the token the login left
    do: [{wait: 1}]
    post:
      - expect: {js: "(localStorage.getItem('token') || '').startsWith('tok-')"}
    extract: {into: token, js: "localStorage.getItem('token')"}
"""

TOKEN_LOG = """
    import json, pathlib
    def pytest_reuseit_run_end(item, result):
        with open(pathlib.Path(__file__).parent / "tokens.jsonl", "a") as f:
            f.write(json.dumps({"item": item.name, "status": result.status,
                                "token": result.extracted.get("token"), "message": result.message}) + "\\n")
"""


def _ends(pytester: pytest.Pytester) -> dict[str, dict[str, str]]:
    lines = (pytester.path / "tokens.jsonl").read_text().splitlines()
    return {json.loads(x)["item"]: json.loads(x) for x in lines}


@pytest.mark.slow
def test_session_workflow_runs_once_and_dependents_start_from_its_storage(
    pytester: pytest.Pytester, tiny_site: str
) -> None:
    pytester.makeconftest(TOKEN_LOG)
    write(pytester, "flows/login.reuseit.yaml", LOGIN_WF)
    write(pytester, "flows/first.reuseit.yaml", NEEDS_LOGIN_WF)
    write(pytester, "flows/second.reuseit.yaml", NEEDS_LOGIN_WF.replace('n: "1"', 'n: "2"'))
    write(pytester, "flows/alone.reuseit.yaml", NEEDS_LOGIN_WF.replace("session: {from: login.reuseit.yaml}\n", ""))
    result = run_sub(pytester, tiny_site, "flows", "-k", "not login", "--reuseit-artifacts", "always")
    result.assert_outcomes(passed=2, failed=1)
    ends = _ends(pytester)
    first, second = ends["first[default]"], ends["second[default]"]
    assert first["status"] == second["status"] == "passed"
    # One login for the whole session: both runs read the same random token.
    assert first["token"] and first["token"] == second["token"]
    # Without the session the storage is empty: the same check fails (so the check can fail).
    assert ends["alone[default]"]["status"] == "failed"
    # The login's storage stays in memory: only the runs that extracted the token on purpose show it.
    out = pytester.path / "reuseit-output"
    session_files = [p for p in out.rglob("*") if p.is_file() and "session-" in str(p.relative_to(out))]
    assert session_files  # the login run kept its artifacts (--reuseit-artifacts always) ...
    for path in session_files:
        assert first["token"].encode() not in path.read_bytes(), path  # ... and its storage is not among them


@pytest.mark.slow
def test_a_failing_session_workflow_breaks_its_dependents_and_names_it(
    pytester: pytest.Pytester, tiny_site: str
) -> None:
    pytester.makeconftest(TOKEN_LOG)
    write(pytester, "login.reuseit.yaml", LOGIN_WF.replace("startsWith('tok-')", "startsWith('nope-')"))
    write(pytester, "first.reuseit.yaml", NEEDS_LOGIN_WF)
    write(pytester, "second.reuseit.yaml", NEEDS_LOGIN_WF.replace('n: "1"', 'n: "2"'))
    result = run_sub(pytester, tiny_site, "-k", "not login")
    result.assert_outcomes(failed=2)
    ends = _ends(pytester)
    for name in ("first[default]", "second[default]"):
        assert ends[name]["status"] == "broken"
        assert ends[name]["message"].startswith("the session workflow login.reuseit.yaml did not pass (failed: ")
    out = output_of(result)
    assert "BROKEN first.reuseit.yaml::first[default] [infrastructure] the session workflow login.reuseit.yaml" in out


def test_session_file_problems_are_load_errors(pytester: pytest.Pytester) -> None:
    write(pytester, "first.reuseit.yaml", NEEDS_LOGIN_WF.replace("login.reuseit.yaml", "nologin.reuseit.yaml"))
    write(pytester, "self.reuseit.yaml", NEEDS_LOGIN_WF.replace("login.reuseit.yaml", "self.reuseit.yaml"))
    write(
        pytester,
        "both.reuseit.yaml",
        NEEDS_LOGIN_WF.replace("session:", "browser: {storage_state: s.json}\nsession:"),
    )
    result = pytester.runpytest_inprocess("-p", "no:cacheprovider", "--reuseit-llm", "off")
    result.assert_outcomes(failed=3)
    out = output_of(result)
    assert (
        "first.reuseit.yaml:4: session.from: file 'nologin.reuseit.yaml' does not exist "
        "(first.reuseit.yaml → nologin.reuseit.yaml" in out
    )
    assert "self.reuseit.yaml:4: session.from: a cycle: self.reuseit.yaml → self.reuseit.yaml" in out
    assert "'session' and 'browser.storage_state' both give the starting browser storage" in out


STORAGE_WF = """\
name: Starts from a saved storage
task: read the token
start_url: "{base_url}/index.html"
browser: {storage_state: state/saved.json}
settings: {retries: 0, check_timeout: 3}
steps:
  - action: Read the saved token
    do: [{wait: 1}]
    post:
      - expect: {js: "localStorage.getItem('token') === 'from-file'"}
"""


@pytest.mark.slow
def test_storage_state_file_relative_to_the_workflow(pytester: pytest.Pytester, tiny_site: str) -> None:
    state = {
        "cookies": [],
        "origins": [{"origin": tiny_site, "localStorage": [{"name": "token", "value": "from-file"}]}],
    }
    write(pytester, "flows/state/saved.json", json.dumps(state))
    write(pytester, "flows/saved.reuseit.yaml", STORAGE_WF)
    write(pytester, "flows/missing.reuseit.yaml", STORAGE_WF.replace("saved.json", "gone.json"))
    result = run_sub(pytester, tiny_site)
    result.assert_outcomes(passed=1, failed=1)
    assert "browser.storage_state file 'state/gone.json' does not exist" in output_of(result)


# --------------------------------------------------------------------------- context keys

AUTH_USER, AUTH_PASSWORD = "stage", "Basic-Auth-Pw-9931"


class _BasicAuth(BaseHTTPRequestHandler):
    def do_GET(self) -> None:  # noqa: N802 - stdlib name
        expected = "Basic " + base64.b64encode(f"{AUTH_USER}:{AUTH_PASSWORD}".encode()).decode()
        if self.headers.get("Authorization") != expected:
            self.send_response(401)
            self.send_header("WWW-Authenticate", 'Basic realm="staging"')
            self.end_headers()
            return
        body = b"<!doctype html><title>staging</title><p id='out'>welcome to staging</p>"
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002
        pass


@pytest.fixture
def auth_site() -> Iterator[str]:
    with Served(_BasicAuth) as site:
        yield site.url


def _probe(name: str, browser: str, check: str, do: str = "[{wait: 1}]", start: str = "{base_url}/index.html") -> str:
    return (
        f'name: {name}\ntask: probe\nstart_url: "{start}"\nbrowser: {browser}\n'
        "settings: {retries: 0, check_timeout: 2}\n"
        f"steps:\n  - action: Probe\n    do: {do}\n    post:\n      - expect: {check}\n"
    )


@pytest.mark.slow
def test_browser_context_keys(
    pytester: pytest.Pytester, tiny_site: str, auth_site: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("STAGING_PW", AUTH_PASSWORD)
    write(
        pytester,
        "phone.reuseit.yaml",
        _probe(
            "phone",
            "{device: iPhone 13}",
            "{js: \"navigator.userAgent.includes('iPhone') && screen.width < 500 && 'ontouchstart' in window\"}",
        ),
    )
    write(
        pytester,
        "phone_typo.reuseit.yaml",
        _probe("phone typo", "{device: iPhone 13x}", '{js: "true"}'),
    )
    write(
        pytester,
        "geo.reuseit.yaml",
        _probe(
            "geo",
            "{geolocation: {latitude: 48.85, longitude: 2.35}, permissions: [geolocation]}",
            '{js: "window.lat === 48.85"}',
            do='[{eval: "navigator.geolocation.getCurrentPosition(p => { window.lat = p.coords.latitude })"}]',
        ),
    )
    write(pytester, "offline.reuseit.yaml", _probe("offline", "{offline: true}", '{js: "true"}'))
    auth = f"{{http_credentials: {{username: {AUTH_USER}, password: '{{secret.STAGING_PW}}'}}}}"
    write(
        pytester,
        "staging.reuseit.yaml",
        _probe("staging", auth, "{text: {css: '#out', equals: welcome to staging}}", start=f"{auth_site}/"),
    )
    write(
        pytester,
        "staging_anon.reuseit.yaml",
        _probe("staging anonymous", "{}", "{text: {css: '#out', equals: welcome to staging}}", start=f"{auth_site}/"),
    )
    result = run_sub(pytester, tiny_site, "-rf", "--reuseit-artifacts", "always", "--reuseit-trace", "on")
    out = output_of(result)
    result.assert_outcomes(passed=3, failed=3)
    assert "browser.device: unknown Playwright device 'iPhone 13x'; did you mean: 'iPhone 13'" in out
    assert "FAILED offline.reuseit.yaml::offline[default]" in out
    # Without credentials the same page refuses the run (so the credentials were what let it in).
    assert "FAILED staging_anon.reuseit.yaml::staging_anon[default]" in out
    # The headless shell shows the 401 answer; the full browser stops with its own error instead.
    assert "start_url http" in out and "answered HTTP 401" in out or "ERR_INVALID_AUTH_CREDENTIALS" in out
    # The password reached the site (it passed) but no output of the run holds it, and no trace was kept.
    assert AUTH_PASSWORD not in out
    for path in (pytester.path / "reuseit-output").rglob("*"):
        if path.is_file():
            assert AUTH_PASSWORD.encode() not in path.read_bytes(), path
    assert not list((pytester.path / "reuseit-output").glob("staging.reuseit.yaml-staging-default/trace.zip"))
