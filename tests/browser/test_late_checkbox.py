"""check / uncheck on a controlled checkbox that re-renders late (issue: "Clicking the checkbox
did not change its state" failed runs a user would have seen pass 300 ms later).

tests/pages/real/late-checkbox.html undoes the browser's toggle and shows the app's state 300 ms
after the click, every time: ten checks and unchecks in a row must all pass, and a box the app
never changes must fail saying so, as an incomplete action (not a missing element).
"""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.browser

LATE = """\
name: Late checkbox
task: Tick and untick a box the app re-renders late
start_url: "{base_url}/real/late-checkbox.html?delay=300"
settings: {check_timeout: 2, action_timeout: 3}
steps:
  - action: Check the box (1)
    do:
      - check: {label: Subscribe}
    post:
      - expect: {text: {css: "#state", equals: "on"}}
  - action: Uncheck the box (2)
    do:
      - uncheck: {label: Subscribe}
    post:
      - expect: {text: {css: "#state", equals: "off"}}
  - action: Check the box (3)
    do:
      - check: {label: Subscribe}
    post:
      - expect: {text: {css: "#state", equals: "on"}}
  - action: Uncheck the box (4)
    do:
      - uncheck: {label: Subscribe}
    post:
      - expect: {text: {css: "#state", equals: "off"}}
  - action: Check the box (5)
    do:
      - check: {label: Subscribe}
    post:
      - expect: {text: {css: "#state", equals: "on"}}
  - action: Uncheck the box (6)
    do:
      - uncheck: {label: Subscribe}
    post:
      - expect: {text: {css: "#state", equals: "off"}}
  - action: Check the box (7)
    do:
      - check: {label: Subscribe}
    post:
      - expect: {text: {css: "#state", equals: "on"}}
  - action: Uncheck the box (8)
    do:
      - uncheck: {label: Subscribe}
    post:
      - expect: {text: {css: "#state", equals: "off"}}
  - action: Check the box (9)
    do:
      - check: {label: Subscribe}
    post:
      - expect: {text: {css: "#state", equals: "on"}}
  - action: Uncheck the box (10)
    do:
      - uncheck: {label: Subscribe}
    post:
      - expect: {text: {css: "#state", equals: "off"}}
"""


def run(pytester: pytest.Pytester, pages_url: str, text: str) -> pytest.RunResult:
    pytester.path.joinpath("late.reuseit.yaml").write_text(text)
    return pytester.runpytest("-p", "no:cacheprovider", "--base-url", pages_url, "--reuseit-llm", "off")


@pytest.mark.slow
def test_ten_late_renders_in_a_row_all_pass(pytester: pytest.Pytester, pages_url: str) -> None:
    result = run(pytester, pages_url, LATE)
    out = result.stdout.str()
    assert "did not change its state" not in out
    result.assert_outcomes(passed=1)
    assert "1 passed, 0 recovered, 0 healed, 0 failed, 0 broken" in out


@pytest.mark.slow
def test_a_box_the_app_never_ticks_fails_as_an_incomplete_action(pytester: pytest.Pytester, pages_url: str) -> None:
    result = run(pytester, pages_url, LATE.replace("?delay=300", "?never=1"))
    result.assert_outcomes(failed=1)
    out = result.stdout.str()
    assert "the checkbox was clicked but did not become checked within 3s" in out
    assert "[action_incomplete]" in out and "step 1 of 10" in out
