"""JavaScript from a workflow file (``eval``, ``extract: {js}``, ``expect: {js}``), run with a time limit.

Playwright's ``evaluate`` has no timeout: an endless loop or a promise that never settles would
hang the run, and the session with it. ``wait_for_function`` does time out, in Playwright's driver,
even while the page's renderer is stuck, so the expression runs as its predicate, once: the
predicate always returns an object (truthy), holding the expression's value. Like ``evaluate``,
an expression whose value is a function is called, a returned promise is awaited, and the page's
Content-Security-Policy does not stop it. Several statements (which do not fit in an expression)
are run by the page's eval with the same limit, or, on a page whose policy forbids eval, by
Playwright's evaluate as before, without one.

A script that navigates (``location.reload()``, ``form.submit()``, ``location.href = ...``) takes
its page's JavaScript world with it before its value comes back: like Playwright's ``evaluate`` of
such a script, its value is None and the caller then deals with the new page. That is the
harness losing its handle, never the site's doing.
"""

from __future__ import annotations

import json
from typing import Any

from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import Page
from playwright.sync_api import TimeoutError as PlaywrightTimeout

_PREDICATE = (
    "async () => {{ let v = ({expression}\n); if (typeof v === 'function') v = v(); return {{ v: await v }}; }}"
)
# Statements (``a = 1; b()``) do not fit in parentheses: the page's own eval runs them, with the
# same time limit, unless the page's Content-Security-Policy forbids eval.
_STATEMENTS = (
    "async () => {{ let v = (0, eval)({source}); if (typeof v === 'function') v = v(); return {{ v: await v }}; }}"
)


# What Playwright says when the page's JavaScript world went away under a call: a navigation.
_NAVIGATED = ("Execution context was destroyed", "because of a navigation", "Frame was detached", "frame was detached")


def navigated(exc: BaseException) -> bool:
    """Whether a Playwright error only says the page navigated while a script of ours ran."""
    return any(words in str(exc) for words in _NAVIGATED)


def run_script(page: Page, expression: str, timeout_ms: float) -> Any:
    """The value of ``expression`` in ``page`` (None for undefined, and when the script navigated
    the page away); Playwright's TimeoutError after ``timeout_ms``, its Error when the expression
    does not compile or throws."""
    text = expression.strip().rstrip(";").rstrip()
    try:
        return _value(page, _PREDICATE.format(expression=text), timeout_ms)
    except PlaywrightTimeout:
        raise
    except PlaywrightError as exc:
        if navigated(exc):
            return None
        if "SyntaxError" not in str(exc):
            raise
    try:
        return _value(page, _STATEMENTS.format(source=json.dumps(expression)), timeout_ms)
    except PlaywrightTimeout:
        raise
    except PlaywrightError as exc:
        if navigated(exc):
            return None
        if "EvalError" not in str(exc) and "unsafe-eval" not in str(exc):
            raise
    # Statements on a page that forbids eval: Playwright's evaluate runs them, without a limit.
    try:
        return page.evaluate(expression)
    except PlaywrightError as exc:
        if navigated(exc):
            return None
        raise


def _value(page: Page, predicate: str, timeout_ms: float) -> Any:
    handle = page.wait_for_function(predicate, timeout=max(timeout_ms, 1))
    try:
        value = handle.json_value()
    finally:
        handle.dispose()
    return value.get("v") if isinstance(value, dict) else None


def responsive(page: Page, timeout_ms: float = 1_000) -> bool:
    """Whether the page still runs a script of ours within ``timeout_ms``."""
    try:
        page.wait_for_function("() => true", timeout=timeout_ms)
        return True
    except PlaywrightTimeout:
        return False
    except PlaywrightError:
        return True  # closed or navigating away: not stuck


def close_if_stuck(page: Page) -> bool:
    """After a call that timed out: a page whose renderer is caught in a script that never ends
    answers nothing again, and Playwright's title, screenshot and evaluate have no timeout of
    their own, so every report of the run would wait for ever. Such a page is closed (which ends
    its script); True if it was."""
    if page.is_closed() or responsive(page):
        return False
    try:
        page.close(run_before_unload=False)
    except PlaywrightError:
        pass
    return True


STUCK = "the page stopped responding: a script on it did not finish (an endless loop?), so the page was closed"
