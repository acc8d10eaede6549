"""What framework apps' pages do that the import meets, on small local pages: requests a page
makes by itself to other origins (aborted and counted, the run goes on; a navigation there still
fails it), a double-click at a point of a canvas (kept as its position), and generic test ids
(what a person reads comes first when it finds the same element)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from playwright.sync_api import Page

from pytest_reuseit.browser.session import BrowserSession, NavigationFence
from pytest_reuseit.importing.compose import compose
from pytest_reuseit.importing.demo import Demonstration, DemoStep, Target
from pytest_reuseit.importing.locate import person_selectors, read_element
from pytest_reuseit.importing.playwright import trace
from tests.support.paths import ROOT
from tests.support.serve import Pages, Served

pytestmark = pytest.mark.browser

# A page that asks other origins for things by itself, as Streamlit (usage statistics), Gradio
# (fonts) and a CDN's script do; and a link that goes there.
_CHATTY = """<!doctype html><title>Chatty</title><h1>Chatty</h1>
<img src="{other}/pixel.gif"><link rel=stylesheet href="{other}/font.css">
<script>fetch('{other}/metrics.json').catch(() => {{}}); fetch('http://unreachable.invalid/x').catch(() => {{}});</script>
<a href="{other}/away">away</a>"""


@pytest.mark.slow
def test_the_fence_aborts_a_pages_own_requests_elsewhere_and_remembers_a_navigation_there(
    browser_session: BrowserSession,
) -> None:
    other = Pages({"/pixel.gif": "", "/font.css": "", "/metrics.json": "{}", "/away": "away"})
    with Served(other.handler(), host="127.0.0.2") as elsewhere:
        site = Pages({"/": _CHATTY.format(other=elsewhere.url)})
        with Served(site.handler()) as served:
            fence = NavigationFence(("127.0.0.1",), origins=(served.url,))
            context = browser_session.new_context({}, fence)
            try:
                page = context.new_page()
                page.goto(served.url + "/")
                page.wait_for_function("() => performance.getEntriesByType('resource').length >= 3")
                page.wait_for_timeout(200)
                assert fence.blocked == [], fence.blocked  # nothing that fails a run
                aborted = set(fence.aborted)
                assert {f"{elsewhere.url}/pixel.gif", f"{elsewhere.url}/metrics.json"} <= aborted, aborted
                assert "http://unreachable.invalid/x" in aborted
                page.click("text=away")  # the page itself going elsewhere: remembered, it fails a run
                assert fence.blocked == [f"{elsewhere.url}/away"]
                assert page.url == served.url + "/"
            finally:
                context.close()
    assert other.requests == []  # never sent


_BUTTONS = """<!doctype html><title>Desk</title>
<label for=n>Customer name</label><input id=n data-testid=stTextInputRootElement>
<button data-testid=stBaseButton-primary>Greet</button>
<button data-testid=stBaseButton-secondary>Clear</button>
<div data-testid=stDataFrame style="width:50px;height:20px"></div>
<button data-testid=save-1>Save</button><button data-testid=save-2>Save</button>"""


def test_what_a_person_reads_comes_before_a_generic_test_id_when_it_finds_the_same_element(page: Page) -> None:
    page.set_content(_BUTTONS)
    found, facts = read_element(page, 'internal:testid=[data-testid="stBaseButton-primary"s]')
    assert found == 'internal:role=button[name="Greet"s]' and facts["tag"] == "button"
    found, _ = read_element(page, 'internal:testid=[data-testid="stTextInputRootElement"s]')
    assert found == 'internal:role=textbox[name="Customer name"s]'
    # Nothing a person reads: the test id stays.
    found, _ = read_element(page, 'internal:testid=[data-testid="stDataFrame"s]')
    assert found == 'internal:testid=[data-testid="stDataFrame"s]'
    # Two buttons of one name: the name does not find the same element, the test id stays.
    found, _ = read_element(page, 'internal:testid=[data-testid="save-2"s]')
    assert found == 'internal:testid=[data-testid="save-2"s]'


def test_a_traced_double_click_at_a_point_keeps_its_position_and_a_key_held_is_said() -> None:
    params = {"selector": "#grid", "position": {"x": 240, "y": 88}, "strict": True}
    step = trace._action_step("Frame", "dblclick", params, "")  # noqa: SLF001 - the reader of one call
    assert step is not None and step.kind == "dblclick" and step.position == (240.0, 88.0)
    clicked = trace._action_step("Frame", "click", {**params, "clickCount": 2}, "")  # noqa: SLF001
    assert clicked is not None and clicked.kind == "dblclick" and clicked.position == (240.0, 88.0)
    assert trace._action_step("Frame", "dblclick", {**params, "modifiers": ["Shift"]}, "") is None  # noqa: SLF001
    demo = Demonstration("grid", "t.zip", [DemoStep("goto", value="http://127.0.0.1:1/"), step])
    text = compose(demo, [[], ["#grid"]], [{}, {}], "").text()
    assert "{dblclick: '#grid', position: {x: 240, y: 88}}" in text, text
    assert "action: 'Double-click the element #grid at (240, 88) in it'" in text, text


# A canvas grid of two cells side by side: a double-click edits the one under the pointer.
_GRID = """<!doctype html><title>Grid</title>
<canvas id=grid width=200 height=60 style="border:1px solid #999"></canvas><p id=cell>none</p>
<script>
grid.addEventListener('dblclick', (e) => {
  cell.textContent = e.offsetX < 100 ? 'left cell' : 'right cell';
});
</script>"""


@pytest.mark.slow
def test_a_double_click_at_a_canvas_cell_imports_with_its_position_and_passes(
    browser_session: BrowserSession, tmp_path: Path
) -> None:
    site = Pages({"/": _GRID})
    with Served(site.handler()) as served:
        context = browser_session.new_context({}, NavigationFence(("127.0.0.1",)))
        context.tracing.start(screenshots=True, snapshots=True, sources=True)
        page = context.new_page()
        page.goto(served.url + "/")
        page.locator("#grid").dblclick(
            position={"x": 150, "y": 30}
        )  # the right cell; the middle is the left one's edge
        page.locator("#cell").get_by_text("right cell").wait_for()
        folder = tmp_path / "edit-the-right-cell"
        context.tracing.stop(path=str(folder / "trace.zip"))
        context.close()
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "pytest_reuseit.cli",
                "import",
                str(folder / "trace.zip"),
                "-o",
                str(tmp_path / "out"),
            ]
            + ["--runs", "2"],
            capture_output=True,
            text=True,
            cwd=ROOT,
            timeout=300,
        )
    assert done.returncode == 0, done.stdout + done.stderr
    (written,) = (tmp_path / "out").glob("*.reuseit.yaml")
    text = written.read_text()
    assert "position: {x: 150, y: 30}" in text, text
    assert "right cell" in text  # derived from what the double-click changed: it held in 2 of 2 runs


def test_a_demo_step_target_keeps_the_source_selector_as_fallback_after_the_readable_one(page: Page) -> None:
    page.set_content(_BUTTONS)
    found, _ = read_element(page, 'internal:testid=[data-testid="stBaseButton-primary"s]')
    target = Target(['internal:testid=[data-testid="stBaseButton-primary"s]'])
    step = DemoStep("click", target)
    demo = Demonstration("greet", "t.zip", [DemoStep("goto", value="http://127.0.0.1:1/"), step])
    text = compose(demo, [[], person_selectors(found, target.selectors)], [{}, {}], "").text()
    assert "- {click: {role: button, name: Greet, exact: true}}" in text, text
    assert "- {click: {test_id: stBaseButton-primary}}" in text  # the test's own, as the fallback


def test_position_is_a_point_from_the_top_left_corner_of_click_dblclick_and_hover_only() -> None:
    from pydantic import ValidationError

    from pytest_reuseit.workflow.ops import Op, describe_op

    op = Op.model_validate({"dblclick": {"test_id": "stDataFrame"}, "position": {"x": 240, "y": 88}})
    assert op.position is not None and (op.position.x, op.position.y) == (240, 88)
    assert describe_op(op).endswith("at (240, 88) from its top-left corner")
    for wrong, says in (
        ({"fill": {"label": "Name", "value": "x"}, "position": {"x": 1, "y": 1}}, "'position' goes with click"),
        ({"click": "#g", "position": {"x": 1, "y": 1}, "at": {"x": 0, "y": 0}}, "say the same: write one"),
        ({"click": "#g", "position": {"x": -1, "y": 1}}, "greater than or equal to 0"),
    ):
        with pytest.raises(ValidationError, match=says):
            Op.model_validate(wrong)
