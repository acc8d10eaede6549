"""Workflow scripts that navigate the page (issue: an eval that reloads failed as 'site_changed').

``eval: location.reload()``, ``location.href = ...`` and ``form.submit()`` take the page's
JavaScript world with them: the step goes on with the new page, as after a click on a link, and an
``expect: {js}`` polled across the navigation judges the new page. Through a real pytest session.
"""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.browser

WORKFLOW = """\
name: Scripts that navigate
task: Navigate from a script and check the new page
start_url: "{base_url}/real/navigate.html?first=1"
params: {script: "location.reload()", lands: "?first=1"}
variations:
  - id: reload
  - id: href
    params: {script: "location.href = 'navigate.html?moved=1'", lands: "?moved=1"}
  - id: submit
    params: {script: "document.getElementById('f').submit()", lands: "?sent=yes"}
  - id: later
    params: {script: "setTimeout(() => { location.href = 'navigate.html?later=1'; }, 200)", lands: "?later=1"}
settings: {check_timeout: 5, action_timeout: 5}
steps:
  - action: Mark the page, then navigate from a script
    do:
      - eval: "document.getElementById('where').textContent = 'marked'"
      - eval: "{script}"
    post:
      - expect:
          - js: "location.search === '{lands}' && document.getElementById('where').textContent !== 'marked'"
          - text: {css: "#where", equals: "loaded {lands}"}
          # The script ran once: the start page, then the one it led to. (It ran as a polled
          # predicate, which Playwright runs again in each new document: a reload repeated until
          # one came back in time, a form submitted again and again.)
          - text: {css: "#loads", equals: "2"}
"""


@pytest.mark.slow
def test_a_script_that_navigates_is_a_step_like_a_click(pytester: pytest.Pytester, pages_url: str) -> None:
    pytester.path.joinpath("nav.reuseit.yaml").write_text(WORKFLOW)
    result = pytester.runpytest("-p", "no:cacheprovider", "--base-url", pages_url, "--reuseit-llm", "off")
    out = result.stdout.str()
    assert "Execution context was destroyed" not in out and "site_changed" not in out
    result.assert_outcomes(passed=4)
    assert "4 passed, 0 recovered, 0 healed, 0 failed, 0 broken  (4 workflow runs)" in out


@pytest.mark.slow
def test_a_failing_script_is_still_the_sites_error(pytester: pytest.Pytester, pages_url: str) -> None:
    # Only a navigation is forgiven: a script that throws fails the step with the page's error.
    broken = WORKFLOW.replace("location.reload()", "document.getElementById('nope').click()")
    pytester.path.joinpath("nav.reuseit.yaml").write_text(broken)
    result = pytester.runpytest(
        "-p", "no:cacheprovider", "--base-url", pages_url, "--reuseit-llm", "off", "-k", "reload"
    )
    result.assert_outcomes(failed=1)
    out = result.stdout.str()
    assert "action failed: eval" in out and "script error" in out and "Cannot read properties of null" in out
