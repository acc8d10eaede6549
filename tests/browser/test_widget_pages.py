"""The widget pages (tests/pages/widgets) are real, and so is their baseline: every catalog entry's
``by_hand`` steps (what a hand-written Playwright test does on that widget) commit the entry's
value through the library's own change callback, and a disabled field is one a person cannot use.
Beside it, the floor the ops must rise above: how many entries the natural plain-Playwright call
(``get_by_label(...).select_option/check/uncheck/fill``) commits right.

The ops themselves (``select``, ``check``, ``fill`` on these widgets) are tested elsewhere."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import Page, expect

from tests.support.widget_site import (
    WidgetSite,
    catalog,
    plain_playwright_attempt,
    run_by_hand,
    served,
    widget_libs,
    widget_params,
    widget_site,
)

__all__ = ["widget_site"]

pytestmark = pytest.mark.browser

# The pages this server serves (a framework's tool with a catalog here runs in a process of its own).
PARAMS = [p for p in widget_params() if served(p.values[0])]
LIBS = [lib for lib in widget_libs() if served(lib)]


def _open(page: Page, site: WidgetSite, lib: str) -> None:
    """The library's page, freshly loaded (a field's test starts from the form as first shown)."""
    page.goto(site.url(lib))
    page.wait_for_function("() => document.readyState === 'complete' && window.__commits")
    site.clear()


@pytest.mark.parametrize(("lib", "entry"), PARAMS)
def test_by_hand_commits_the_catalog_value(
    page: Page, widget_site: WidgetSite, lib: str, entry: dict[str, Any]
) -> None:
    _open(page, widget_site, lib)
    if entry.get("disabled"):
        # What a person would try first (where the catalog names it) cannot be done: the control
        # says it is disabled.
        if entry["by_hand"]:
            expect(page.locator(entry["by_hand"][0][1])).to_be_disabled(timeout=3000)
        assert widget_site.last(lib, entry["field"]) is None
        return
    run_by_hand(page, entry["by_hand"])
    widget_site.settle(page)
    assert widget_site.last(lib, entry["field"]) == entry["commits"], widget_site.commits(lib, entry["field"])


# Slow: every attempt that fails waits out its short timeout, a few seconds a library.
@pytest.mark.slow
@pytest.mark.parametrize("lib", LIBS)
def test_plain_playwright_commits_only_some(
    page: Page, widget_site: WidgetSite, lib: str, record_property: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    """The floor, recorded (``plain_playwright`` in the JUnit properties, and printed): plain
    Playwright commits every native control its call is made for (not a ``select`` on an
    ``<input list>``: ``select_option`` takes only a ``<select>``) and not every custom widget."""
    fields = [e for e in catalog(lib)["fields"] if not e.get("disabled")]
    right = []
    for entry in fields:
        _open(page, widget_site, lib)
        if plain_playwright_attempt(page, entry):
            right.append(entry["field"])
    record_property("plain_playwright", f"{len(right)}/{len(fields)}")
    with capsys.disabled():
        print(f"\nplain Playwright on {lib}: {len(right)}/{len(fields)} committed right ({', '.join(right)})")
    if lib == "native":
        assert right == [e["field"] for e in fields if e["kind"] != "combobox"]
    else:
        assert len(right) < len(fields)
