"""A check of ``expect`` judged on a page, as the runner judges it (browser/assertions.py)."""

from __future__ import annotations

from typing import Any

from playwright.sync_api import Page

from pytest_reuseit.browser.assertions import check_expect
from pytest_reuseit.workflow.checks import Expect


def judge(page: Page, mapping: dict[str, Any], timeout_ms: float = 200) -> tuple[bool, str, str]:
    """(held, expected, actual) of ``mapping`` on ``page``: the first failing assertion's words,
    or every assertion's when all hold."""
    verdicts = check_expect(page, Expect.model_validate(mapping), lambda s: s, timeout_ms)
    failed = next((v for v in verdicts if not v.ok), None)
    if failed is None:
        return True, "; ".join(v.expected for v in verdicts), "; ".join(v.actual for v in verdicts)
    return False, failed.expected, failed.actual
