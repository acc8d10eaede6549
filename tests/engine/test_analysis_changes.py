"""The challenge analysis reads what changed on the page since the last pass: a renamed element
becomes the edit that makes the file match, and only when the comparison says so."""

from __future__ import annotations

from typing import Any

from pytest_reuseit.engine.analysis import changes_text, ended, observe
from pytest_reuseit.engine.result import ActionRecord, RunResult, StepResult

CLICK = "click role='button'[name='Add to cart']"


def _failed_run(changed: dict[str, Any] | None) -> RunResult:
    step = StepResult(index=2, action='Click "Add to cart"', line=14, status="failed", failed_phase="action")
    step.actions.append(ActionRecord(description=CLICK, by="do", ok=False, error="timed out"))
    result = RunResult(
        workflow="Add to cart", file="workflows/cart.reuseit.yaml", line=1, variation="default", kind="original",
        task="", params={}, status="failed", steps=[StepResult(index=1, action="Open", line=8, status="passed"), step],
        failed_step=2, failed_phase="action", message=f"action failed: {CLICK}: timed out",
    )  # fmt: skip
    result.changed = changed
    return result


def _changed(removed: list[str], added: list[str]) -> dict[str, Any]:
    return {
        "removed": removed,
        "added": added,
        "url": ["/p", "/p"],
        "title": ["P", "P"],
        "since": "2026-11-25T02:00:00Z",
    }


def test_a_renamed_button_becomes_the_locator_to_write() -> None:
    analysis = observe(_failed_run(_changed(['- button "Add to cart"'], ['- button "Add to basket"', "- text: new"])))
    first = analysis.guidance[0]
    assert 'button "Add to cart"' in first and "Add to basket" in first
    assert "workflows/cart.reuseit.yaml:14" in first and "{role: button, name: Add to basket}" in first
    assert 'gone: button "Add to cart"; new: button "Add to basket"' in analysis.why
    assert "2026-11-25T02:00:00Z" in analysis.why


def test_no_rename_is_claimed_when_the_comparison_does_not_show_one() -> None:
    cases = [
        _changed([], []),  # the page looks the same: the cause is elsewhere
        _changed(['- button "Buy now"'], ['- button "Buy later"']),  # another button changed
        _changed(['- button "Add to cart"'], ['- button "Add to basket"', '- button "Add to wishlist"']),  # which one?
        _changed(['- button "Add to cart"'], ['- link "Add to basket"']),  # not a button any more
    ]
    for changed in cases:
        analysis = observe(_failed_run(changed))
        assert not any("renamed it on purpose" in g for g in analysis.guidance), changed
    assert "looks the same to its accessibility tree" in observe(_failed_run(cases[0])).why


def test_a_first_failure_has_no_comparison_to_quote() -> None:
    analysis = observe(_failed_run(None))
    assert "since the run last passed" not in analysis.why.lower()
    assert not any("renamed it on purpose" in g for g in analysis.guidance)


def test_the_why_gets_its_period_before_what_changed() -> None:
    """The sentence about the page follows the why's own as a new sentence, whatever it ended with."""
    cases = {
        "timed out waiting for the button": "timed out waiting for the button. Since the run last passed",
        "the button never appeared.": "the button never appeared. Since the run last passed",
        "was it renamed?": "was it renamed? Since the run last passed",
        'the page said "sold out."': 'the page said "sold out." Since the run last passed',
        "expected 3; actual: 4 (rows)  ": "expected 3; actual: 4 (rows). Since the run last passed",
    }
    for error, start in cases.items():
        result = _failed_run(_changed(['- button "Add to cart"'], []))
        result.steps[1].error = error
        why = observe(result).why
        assert why.startswith(start), why
        assert ".." not in why and ". ." not in why
    # No why of its own (an empty error): the page's sentence alone, with no stray period or space.
    result = _failed_run(_changed([], []))
    result.steps[1].error = ""
    assert observe(result).why.startswith("Since the run last passed (2026-11-25T02:00:00Z)")
    assert ended("") == "" and ended("done!") == "done!" and ended("it hung…") == "it hung…"


def _with_churn(changed: dict[str, Any], removed: int, added: int) -> dict[str, Any]:
    return changed | {"set_aside": {"removed": removed, "added": added, "since": "2026-11-24T02:00:00Z"}}


def test_lines_set_aside_as_churn_are_counted_where_the_comparison_is_shown() -> None:
    changed = _with_churn(_changed(['- button "Add to cart"'], ['- button "Add to basket"']), 1, 51)
    analysis = observe(_failed_run(changed))
    assert 'gone: button "Add to cart"; new: button "Add to basket"' in analysis.why
    assert "(52 lines that also differ between the last two passes set aside)." in analysis.why
    assert "Add to basket" in analysis.guidance[0]  # the rename is still read from what is left
    text = changes_text(changed, 2)
    assert (
        "52 line(s) set aside (1 gone, 51 new): they differ between the last two passes "
        "(2026-11-24T02:00:00Z and 2026-11-25T02:00:00Z) too" in text
    )
    assert "1 line(s) gone since then:" in text and '  + button "Add to basket"' in text
    # Everything that differed was churn: the page looks the same, and the count says what was left out.
    calm = observe(_failed_run(_with_churn(_changed([], []), 1, 51))).why
    assert "looks the same to its accessibility tree (the same elements, url and title; 52 lines" in calm
    single = observe(_failed_run(_with_churn(_changed(['- button "Add to cart"'], []), 0, 1))).why
    assert "(1 line that also differs between the last two passes set aside)." in single
    # Two passes compared and nothing set aside: said in the attachment, not in the why.
    none = _with_churn(_changed(['- button "Add to cart"'], []), 0, 0)
    assert "set aside" not in observe(_failed_run(none)).why
    assert "Nothing set aside: none of these lines differs between the last two passes" in changes_text(none)
    # One pass known (no set_aside): today's wording, no word of churn.
    assert "set aside" not in changes_text(_changed(['- button "Add to cart"'], []))
