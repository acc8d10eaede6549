"""The challenge analysis reads what changed on the page since the last pass: a renamed element
becomes the edit that makes the file match, and only when the comparison says so."""

from __future__ import annotations

from typing import Any

from pytest_reuseit.engine.analysis import observe
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
