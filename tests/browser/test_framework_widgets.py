"""The baseline of Streamlit's, Gradio's, Dash's and NiceGUI's own widgets: what each framework's
catalog (tests/pages/widgets/<framework>/catalog.json) says a hand-written Playwright test does
on a widget really commits it, by the app's own server-side callback; and plain Playwright's
natural attempt (``get_by_label(label)`` then ``select_option``, ``check`` or ``fill``) commits
fewer of them, which is what the natural ops have to close.

One app process per framework for the whole module (starting one costs seconds; Gradio's
most), a fresh load of it (a new session: every widget at its first value) per entry.
"""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import Page

from tests.support.framework_widgets import (
    NAMES,
    WidgetApp,
    by_hand,
    catalog,
    dash_widgets,
    gradio_widgets,
    nicegui_widgets,
    streamlit_widgets,
)

__all__ = ["dash_widgets", "gradio_widgets", "nicegui_widgets", "streamlit_widgets"]

pytestmark = [pytest.mark.browser, pytest.mark.slow]

# Every entry of every framework's catalog, grouped by framework.
ENTRIES = [(name, entry) for name in NAMES for entry in catalog(name)["fields"]]
# How long plain Playwright's attempt may wait for its element: it fails fast where it cannot.
NATURAL_TIMEOUT = 2_000


def _app(request: pytest.FixtureRequest, name: str) -> WidgetApp:
    app: WidgetApp = request.getfixturevalue(f"{name}_widgets")
    return app


@pytest.mark.parametrize(("name", "entry"), ENTRIES, ids=[f"{n}-{e['field']}" for n, e in ENTRIES])
def test_by_hand_commits_what_the_catalog_says(
    request: pytest.FixtureRequest, page: Page, name: str, entry: Any
) -> None:
    app = _app(request, name)
    app.load(page)
    by_hand(page, entry["by_hand"])
    committed = app.commits.wait_for(entry["field"], entry["commits"])
    assert committed == entry["commits"], f"{name} {entry['field']}: committed {committed!r}; all: {app.commits.all()}"


def _natural_attempt(page: Page, op: dict[str, Any]) -> None:
    """What a Playwright user writes first for the op, by the label a person reads."""
    ((kind, args),) = op.items()
    target = page.get_by_label(args["label"])
    if kind == "select":
        target.select_option(args["option"], timeout=NATURAL_TIMEOUT)
    elif kind == "check":
        target.check(timeout=NATURAL_TIMEOUT)
    elif kind == "uncheck":
        target.uncheck(timeout=NATURAL_TIMEOUT)
    elif isinstance(args["value"], list):  # two thumbs: the first field labelled so, then the second
        for i, value in enumerate(args["value"]):
            target.nth(i).fill(value, timeout=NATURAL_TIMEOUT)
    else:
        target.fill(args["value"], timeout=NATURAL_TIMEOUT)


@pytest.mark.parametrize("name", NAMES)
def test_plain_playwright_natural_attempt_commits_fewer(
    request: pytest.FixtureRequest, page: Page, name: str, record_property: Any
) -> None:
    app = _app(request, name)
    right: list[str] = []
    said: list[str] = []  # why each miss missed: what the ops have to do instead
    for entry in app.catalog["fields"]:
        app.load(page)
        # A call that raised may still have clicked (check() clicks, then sees no state change):
        # judged by the app alone, with less time than a call that says it is done.
        settle = 1.5
        try:
            _natural_attempt(page, entry["op"])
        except PlaywrightError as e:
            settle = 0.5
            said.append(f"{entry['field']}: {e.message.splitlines()[0]}")
        committed = app.commits.wait_for(entry["field"], entry["commits"], timeout=settle)
        if committed == entry["commits"]:
            right.append(entry["field"])
        elif settle > 1:
            said.append(f"{entry['field']}: no error, committed {committed!r}")
    fields = len(app.catalog["fields"])
    record_property(f"{name}_natural_right", f"{len(right)} of {fields}: {', '.join(right)}")
    record_property(f"{name}_started_in", f"{app.started_in:.1f}s")
    print(
        f"\n{name} (up in {app.started_in:.1f}s): plain Playwright commits {len(right)} of {fields} right",
        *said,
        sep="\n  ",
    )
    assert len(right) < fields, f"plain Playwright already commits every {name} widget: {right}"
