"""Every deterministic op, every LOC kind and every DOM assertion, in a real Chromium.

Each test runs a tiny workflow through ``engine.runner.execute`` on ``tests/pages/ops.html`` and
then reads the page itself (not the engine's own report) to see that the op really happened.
Failing assertions are checked for the expected/actual words the report will show.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
import yaml

from pytest_reuseit.engine.context import RunOptions
from pytest_reuseit.engine.ports import Models
from pytest_reuseit.engine.result import RunResult
from pytest_reuseit.engine.runner import execute
from pytest_reuseit.workflow.loader import parse
from tests.support.paths import ROOT

pytestmark = pytest.mark.browser

# Generous timeouts for what should work (it returns at once); tests of failures set short ones.
FAST = {"retries": 0, "check_timeout": 5, "action_timeout": 5}
# What a check that fails on a page nothing changes waits: it would fail after any wait (a check
# that holds is judged once whatever its timeout: Playwright's assertions look once before they wait).
FAILS_AT_ONCE = 0.1


def workflow(
    steps: list[dict[str, Any]], *, start: str = "ops.html", settings: dict[str, Any] | None = None, **top: Any
) -> str:
    doc = {
        "name": "ops",
        "task": "exercise the ops",
        "start_url": "{base_url}/" + start,
        "settings": {**FAST, **(settings or {})},
        "steps": steps,
        **top,
    }
    return yaml.safe_dump(doc, sort_keys=False)


def run(
    page, fence, pages_url: str, text: str, options: RunOptions = RunOptions(screenshots="off"), **kw: Any
) -> RunResult:  # type: ignore[no-untyped-def]
    """Screenshots off by default: they cost time and these tests judge the page, not the pictures."""
    loaded = parse(text, "ops.reuseit.yaml")
    return execute(
        page,
        loaded,
        builtins={"base_url": pages_url},
        options=options,
        models=Models(),
        blocked=fence.blocked,
        **kw,
    )


def one_step(do: list[dict[str, Any]], **step: Any) -> list[dict[str, Any]]:
    return [{"action": "do the thing", "do": do, **step}]


def passed(result: RunResult) -> RunResult:
    assert result.status == "passed", (result.message, result.to_dict())
    assert result.label == "passed"
    return result


# --------------------------------------------------------------------------- ops


OPS = [
    pytest.param({"click": "#press"}, "window.events", ["press"], id="click"),
    pytest.param({"dblclick": "#dbl"}, "window.events", ["double"], id="dblclick"),
    pytest.param(
        {"hover": "#hov"},
        "[document.getElementById('hov').matches(':hover'), window.events.includes('hovered')]",
        [True, True],
        id="hover",
    ),
    pytest.param({"check": "#agree"}, "document.getElementById('agree').checked", True, id="check"),
    pytest.param({"uncheck": "#news"}, "document.getElementById('news').checked", False, id="uncheck"),
    pytest.param(
        {"focus": "#name"}, "[document.activeElement.id, window.events]", ["name", ["focus:name"]], id="focus"
    ),
    pytest.param(
        {"fill": {"css": "#name", "value": "Ada Lovelace"}},
        "document.getElementById('name').value",
        "Ada Lovelace",
        id="fill",
    ),
    # fill sets the value at once; type presses key by key (the page counts the keydowns).
    pytest.param(
        {"fill": {"css": "#typed", "value": "abc"}},
        "[document.getElementById('typed').value, window.typedKeydowns]",
        ["abc", 0],
        id="fill-no-keys",
    ),
    pytest.param(
        {"type": {"css": "#typed", "value": "abc"}},
        "[document.getElementById('typed').value, window.typedKeydowns]",
        ["abc", 3],
        id="type-key-by-key",
    ),
    pytest.param(
        {"select": {"css": "#color", "option": "Green"}},
        "document.getElementById('color').value",
        "g",
        id="select-by-label",
    ),
    pytest.param(
        {"select": {"css": "#color", "option": "b"}},
        "document.getElementById('color').value",
        "b",
        id="select-by-value",
    ),
    pytest.param({"press": "x"}, "window.events", ["key:x@body"], id="press-global"),
    pytest.param(
        {"press": {"css": "#keys", "key": "Enter"}},
        "window.events",
        ["focus:keys", "key:Enter@keys"],
        id="press-loc-key",
    ),
    pytest.param(
        {"eval": "document.getElementById('out').textContent = 'from eval'"},
        "document.getElementById('out').textContent",
        "from eval",
        id="eval",
    ),
]


@pytest.mark.parametrize(("op", "probe", "expected"), OPS)
@pytest.mark.slow
def test_op_changes_the_page(page, fence, pages_url, op, probe, expected) -> None:  # type: ignore[no-untyped-def]
    result = passed(run(page, fence, pages_url, workflow(one_step([op]))))
    assert page.evaluate(probe) == expected
    step = result.steps[0]
    assert step.status == "passed" and not step.attempts
    assert [(a.by, a.ok) for a in step.actions] == [("do", True)]
    assert step.actions[0].description.startswith(next(iter(op)))


def test_select_several_options(page, fence, pages_url) -> None:  # type: ignore[no-untyped-def]
    page_ops = [
        {"eval": "document.getElementById('color').multiple = true"},
        {"select": {"css": "#color", "option": ["Red", "b"]}},
    ]
    passed(run(page, fence, pages_url, workflow(one_step(page_ops))))
    assert page.evaluate("[...document.getElementById('color').selectedOptions].map(o => o.value)") == ["r", "b"]


def test_select_unknown_option_fails(page, fence, pages_url) -> None:  # type: ignore[no-untyped-def]
    result = run(
        page,
        fence,
        pages_url,
        workflow(one_step([{"select": {"css": "#color", "option": "Purple"}}]), settings={"action_timeout": 0.3}),
    )
    assert result.status == "failed" and result.failed_phase == "action"
    assert "select" in result.message
    assert page.evaluate("document.getElementById('color').value") == "r"


@pytest.mark.parametrize("press", ["Enter", {"css": "#q", "key": "Enter"}], ids=["bare-key", "on-element"])
@pytest.mark.slow
def test_op_after_a_key_that_navigates_runs_on_the_new_page(page, fence, pages_url, press) -> None:  # type: ignore[no-untyped-def]
    # Enter submits a search whose result answers 0.6 s late; the next ops must not land on the
    # page being left (a mark set there, a box checked there, would be thrown away with it).
    ops = [
        {"fill": {"css": "#q", "value": "books"}},
        {"press": press},
        {"eval": "window.mark = document.getElementById('where').textContent"},
        {"check": {"label": "Select all"}},
    ]
    passed(run(page, fence, pages_url, workflow(one_step(ops), start="real/search.html")))
    assert page.url.endswith("/real/search.html?q=books")
    assert page.evaluate("[window.mark, document.getElementById('all').checked]") == ["results for books", True]


@pytest.mark.slow
def test_op_waits_until_a_page_it_came_to_is_parsed(page, fence, pages_url) -> None:  # type: ignore[no-untyped-def]
    # The page is shown, but its select-all box is wired only once the document is parsed (0.6 s
    # later); checking it earlier would check the box alone.
    ops = [{"click": {"role": "link", "name": "to a page still parsing"}}, {"check": {"label": "Select all"}}]
    passed(run(page, fence, pages_url, workflow(one_step(ops), start="real/search.html")))
    assert page.evaluate("[...document.querySelectorAll('.row')].map(r => r.checked)") == [True, True]


def test_a_step_with_an_empty_do_only_checks_and_needs_no_model(page, fence, pages_url) -> None:  # type: ignore[no-untyped-def]
    steps = [{"action": "Look at the page", "do": [], "post": [{"expect": {"title": {"equals": "Ops page"}}}]}]
    result = passed(run(page, fence, pages_url, workflow(steps)))
    assert result.steps[0].actions == [] and result.steps[0].post[0].ok is True
    steps[0]["post"] = [{"expect": {"title": {"equals": "Another page"}}}]
    result = run(page, fence, pages_url, workflow(steps, settings={"check_timeout": FAILS_AT_ONCE}))
    assert result.status == "failed" and (result.failed_step, result.failed_phase) == (1, "post")


def test_goto_relative(page, fence, pages_url) -> None:  # type: ignore[no-untyped-def]
    result = passed(run(page, fence, pages_url, workflow(one_step([{"goto": "other.html"}]))))
    assert page.url == f"{pages_url}/other.html"
    assert page.title() == "Other page"
    assert result.final_url == f"{pages_url}/other.html"


def test_goto_absolute(page, fence, pages_url) -> None:  # type: ignore[no-untyped-def]
    # start somewhere else, so a relative resolution could not produce the same URL by accident
    text = workflow(one_step([{"goto": "{base_url}/ops.html?from=absolute"}]), start="other.html")
    result = passed(run(page, fence, pages_url, text))
    assert page.url == f"{pages_url}/ops.html?from=absolute"
    assert page.title() == "Ops page"
    assert result.steps[0].actions[0].description == f"goto '{pages_url}/ops.html?from=absolute'"


def test_goto_missing_page_fails_with_http_status(page, fence, pages_url) -> None:  # type: ignore[no-untyped-def]
    result = run(page, fence, pages_url, workflow(one_step([{"goto": "nope.html"}])))
    assert result.status == "failed" and result.failed_phase == "action"
    assert "HTTP 404" in result.message


def test_scroll_by_pixels(page, fence, pages_url) -> None:  # type: ignore[no-untyped-def]
    assert page.evaluate("window.scrollY") == 0
    steps = one_step([{"scroll": {"by": 700}}], post=[{"expect": {"js": "window.scrollY > 0"}}])
    passed(run(page, fence, pages_url, workflow(steps)))
    assert page.evaluate("window.scrollY") >= 600


def test_scroll_into_view(page, fence, pages_url) -> None:  # type: ignore[no-untyped-def]
    in_view = (
        "(() => { const r = document.getElementById('bottom').getBoundingClientRect();"
        " return r.top >= 0 && r.bottom <= window.innerHeight; })()"
    )
    passed(run(page, fence, pages_url, workflow(one_step([{"scroll": "#bottom"}]))))
    assert page.evaluate(in_view) is True
    assert page.evaluate("window.scrollY") > 2000


def test_wait_milliseconds(page, fence, pages_url) -> None:  # type: ignore[no-untyped-def]
    result = passed(run(page, fence, pages_url, workflow(one_step([{"wait": 400}]))))
    assert result.steps[0].duration >= 0.4
    assert result.steps[0].actions[0].description == "wait 400"


WAITS = [
    # trigger, wait target, state, probe after the wait (no waiting of its own)
    pytest.param("#show-late", "#late", "visible", "!!document.getElementById('late')", True, id="visible"),
    pytest.param(
        "#hide-soon-btn",
        "#soon",
        "hidden",
        "getComputedStyle(document.getElementById('soon')).display",
        "none",
        id="hidden",
    ),
    pytest.param(
        "#attach-btn",
        "#ghost",
        "attached",
        "[!!document.getElementById('ghost'), document.getElementById('ghost') && document.getElementById('ghost').hidden]",
        [True, True],
        id="attached",
    ),
    pytest.param("#detach-btn", "#doomed", "detached", "!!document.getElementById('doomed')", False, id="detached"),
]


@pytest.mark.parametrize(("trigger", "target", "state", "probe", "expected"), WAITS)
@pytest.mark.slow
def test_wait_for_state(page, fence, pages_url, trigger, target, state, probe, expected) -> None:  # type: ignore[no-untyped-def]
    # The page changes 600 ms after the click: the probe right after the wait only holds if it waited.
    do = [{"click": trigger}, {"wait": {"css": target, "state": state}}]
    result = passed(run(page, fence, pages_url, workflow(one_step(do))))
    assert page.evaluate(probe) == expected
    assert result.steps[0].duration >= 0.5


@pytest.mark.slow
def test_wait_for_state_times_out(page, fence, pages_url) -> None:  # type: ignore[no-untyped-def]
    result = run(
        page,
        fence,
        pages_url,
        workflow(one_step([{"wait": {"css": "#never", "state": "visible"}}]), settings={"action_timeout": 0.3}),
    )
    assert result.status == "failed" and result.failed_phase == "action"
    assert "timed out" in result.message and "#never" in result.message
    assert result.steps[0].actions[0].ok is False


def test_eval_script_error_fails(page, fence, pages_url) -> None:  # type: ignore[no-untyped-def]
    result = run(page, fence, pages_url, workflow(one_step([{"eval": "document.getElementById('nope').click()"}])))
    assert result.status == "failed" and result.failed_phase == "action"
    assert "script error" in result.message
    assert result.analysis is not None and result.analysis.category == "action_incomplete"


def test_mouse_down_up_and_points_from_an_elements_middle(page, fence, pages_url) -> None:  # type: ignore[no-untyped-def]
    """mouse_down and mouse_up press and let go alone; ``at`` moves the mouse that far from the
    element's middle (Selenium's offsets): a point beside the element acts on what is there."""
    do = [
        {"mouse_down": "#pad"},
        {"mouse_up": "#pad", "at": {"x": 10, "y": -20}},
        {"click": "#pad", "at": {"x": -90, "y": 40}},
        {"dblclick": "#pad", "at": {"x": 150, "y": -30}},  # 50 px right of the pad: on #beside
        {"mouse_down": "#pad", "button": "right"},
        {"mouse_up": "#pad", "button": "right"},
        {"hover": "#pad", "at": {"x": 5, "y": 6}},
    ]
    passed(run(page, fence, pages_url, workflow(one_step(do), start="mouse.html")))
    assert page.locator("#log").inner_text().split("; ") == [
        "pad mousedown 100,50 b0",
        "pad mouseup 110,30 b0",
        "pad click 110,30 b0",  # pressed and let go on the same element: a click, as for a person
        *("pad mousedown 10,90 b0", "pad mouseup 10,90 b0", "pad click 10,90 b0"),
        *("beside mousedown 30,20 b0", "beside mouseup 30,20 b0", "beside click 30,20 b0"),
        *("beside mousedown 30,20 b0", "beside mouseup 30,20 b0", "beside click 30,20 b0", "beside dblclick 30,20 b0"),
        *("pad mousedown 100,50 b2", "pad contextmenu 100,50 b2", "pad mouseup 100,50 b2;"),
    ]
    assert page.locator("#moved").inner_text() == "pad 105,56"


def test_mouse_out_moves_the_mouse_off_the_element_where_selenium_does(page, fence, pages_url) -> None:  # type: ignore[no-untyped-def]
    """Just above the element (its top in the viewport); an element that fills the viewport leaves
    the mouse nowhere to go: the op fails saying so."""
    passed(
        run(page, fence, pages_url, workflow(one_step([{"hover": "#pad"}, {"mouse_out": "#pad"}]), start="mouse.html"))
    )
    assert page.locator("#out").inner_text() == "pad left to 100,-1"
    cover = (
        "Object.assign(document.getElementById('pad').style, {left: '0', top: '0', width: '100vw', height: '100vh'})"
    )
    result = run(
        page, fence, pages_url, workflow(one_step([{"eval": cover}, {"mouse_out": "#pad"}]), start="mouse.html")
    )
    assert result.status == "failed", result.message
    assert "takes up the whole viewport" in (result.message or "")


EXTRACTS = [
    pytest.param({"into": "v", "text": {"css": "#code"}}, "XK-4471", id="text"),
    pytest.param({"into": "v", "value": "#qty"}, "3", id="value"),
    pytest.param({"into": "v", "text": "#docs", "attribute": "data-kind"}, "docs-link", id="attribute"),
    pytest.param({"into": "v", "js": "document.title"}, "Ops page", id="js-string"),
    pytest.param({"into": "v", "js": "[...document.querySelectorAll('.item')].length * 10"}, "30", id="js-number"),
    pytest.param({"into": "v", "js": "(el) => el.dataset.kind + '!'", "of": "#docs"}, "docs-link!", id="js-of"),
]


@pytest.mark.parametrize(("spec", "expected"), EXTRACTS)
def test_extract(page, fence, pages_url, spec, expected) -> None:  # type: ignore[no-untyped-def]
    # The value is used by a later step: proves it became a placeholder, not just a report entry.
    steps = one_step([{"wait": 0}], extract=spec) + [
        {"action": "echo it", "do": [{"fill": {"css": "#echo-in", "value": "got {v}"}}]},
    ]
    result = passed(run(page, fence, pages_url, workflow(steps)))
    assert result.extracted == {"v": expected}
    assert result.steps[0].extracted == {"v": expected}
    assert page.evaluate("document.getElementById('echo').textContent") == f"got {expected}"


def test_extract_as_op_feeds_the_next_op(page, fence, pages_url) -> None:  # type: ignore[no-untyped-def]
    do = [{"extract": {"into": "c", "text": "#code"}}, {"fill": {"css": "#echo-in", "value": "{c}!"}}]
    result = passed(run(page, fence, pages_url, workflow(one_step(do))))
    assert page.evaluate("document.getElementById('echo').textContent") == "XK-4471!"
    assert result.steps[0].actions[1].description == "fill css='#echo-in' value='XK-4471!'"
    assert result.extracted == {"c": "XK-4471"}  # reported like a step-level extract


@pytest.mark.parametrize(
    ("spec", "words", "timeout"),
    [
        # Generous timeouts where the answer comes at once (a loaded machine can take a while to
        # find an element that is there); a short one only where the wait itself is the failure.
        pytest.param(
            {"into": "v", "text": "#docs", "attribute": "data-nothing"},
            "has no attribute 'data-nothing'",
            5,
            id="attribute",
        ),
        pytest.param({"into": "v", "js": "null"}, "returned nothing", 5, id="js-null"),
        pytest.param({"into": "v", "js": "(el) => el.id", "of": "#missing"}, "timed out", 0.3, id="js-of-missing"),
        pytest.param({"into": "v", "text": "#missing"}, "timed out", 0.3, id="missing-element"),
    ],
)
@pytest.mark.slow
def test_extract_failures(page, fence, pages_url, spec, words, timeout) -> None:  # type: ignore[no-untyped-def]
    result = run(
        page, fence, pages_url, workflow(one_step([{"wait": 0}], extract=spec), settings={"action_timeout": timeout})
    )
    assert result.status == "failed" and result.failed_phase == "extract" and result.failed_step == 1
    assert words in result.message
    assert result.extracted == {}


# --------------------------------------------------------------------------- locators


CLICK_LOCS = [
    pytest.param({"role": "button", "name": "Press me"}, "press", id="role+name"),
    pytest.param({"text": "Plain text target"}, "text", id="text"),
    pytest.param({"alt": "Company logo"}, "alt", id="alt"),
    pytest.param({"title": "Settings gear"}, "title", id="title"),
    pytest.param({"test_id": "save-btn"}, "testid", id="test_id"),
    pytest.param({"css": ".css-target"}, "css", id="css"),
    pytest.param({"xpath": "//div[@id='xp']"}, "xpath", id="xpath"),
    pytest.param("#sel", "selector", id="selector-css"),
    pytest.param("text=Selector target", "selector", id="selector-text"),
    pytest.param("role=button[name='Go']", "role-string", id="selector-role"),
    pytest.param({"selector": "#sel"}, "selector", id="selector-key"),
    pytest.param({"text": "Item", "exact": True}, "item", id="exact"),
    pytest.param({"css": ".row", "nth": 2}, "row2", id="nth"),
    pytest.param({"css": ".row", "nth": -1}, "row2", id="nth-last"),
    pytest.param({"css": "li", "has_text": "Banana"}, "banana", id="has_text"),
    pytest.param({"role": "button", "name": "Edit", "within": {"css": "#card-b"}}, "edit-b", id="within"),
    pytest.param({"role": "button", "name": "Edit", "within": "#card-a"}, "edit-a", id="within-string"),
]


@pytest.fixture(scope="module")
def clicked(_module_page, pages_url) -> tuple[RunResult, list[str]]:  # type: ignore[no-untyped-def]
    """One run clicking with every locator of CLICK_LOCS, a step each (the targets only log their
    click), and the events the page logged: a run of their own would cost each a page load and a
    result. Each step's post check sees exactly one new event, the one its target logs."""
    steps = [
        {
            "action": f"click {p.id}",
            "do": [{"click": p.values[0]}],
            "post": [{"expect": {"js": f"window.events.length === {n + 1} && window.events[{n}] === {p.values[1]!r}"}}],
        }
        for n, p in enumerate(CLICK_LOCS)
    ]
    page = _module_page.context.new_page()
    try:
        result = run(page, _module_page.fence, pages_url, workflow(steps))
        return result, page.evaluate("window.events")
    finally:
        page.close()


@pytest.mark.slow  # whichever test comes first makes the shared run (about a second)
def test_each_locator_kind_clicked_once_in_order(clicked) -> None:  # type: ignore[no-untyped-def]
    result, events = clicked
    passed(result)
    assert events == [p.values[1] for p in CLICK_LOCS]


@pytest.mark.parametrize("case", [p.id for p in CLICK_LOCS])
@pytest.mark.slow
def test_locator_kinds_click_the_right_element(clicked, case) -> None:  # type: ignore[no-untyped-def]
    result, _ = clicked
    n = [p.id for p in CLICK_LOCS].index(case)
    assert len(result.steps) > n, f"step {n + 1} never ran: {result.message}"
    step = result.steps[n]
    assert step.status == "passed" and [(a.by, a.ok) for a in step.actions] == [("do", True)], step
    assert step.post[0].ok is True, step.post[0]


FILL_LOCS = [
    pytest.param({"label": "Full name"}, id="label"),
    pytest.param({"placeholder": "Your name"}, id="placeholder"),
    pytest.param({"title": "Name field"}, id="title"),
    pytest.param({"test_id": "name-input"}, id="test_id"),
    pytest.param({"label": "full NAME"}, id="label-case-insensitive"),
]


@pytest.mark.parametrize("loc", FILL_LOCS)
def test_locator_kinds_fill_the_right_input(page, fence, pages_url, loc) -> None:  # type: ignore[no-untyped-def]
    passed(run(page, fence, pages_url, workflow(one_step([{"fill": {**loc, "value": "Grace"}}]))))
    assert page.evaluate("document.getElementById('name').value") == "Grace"
    assert page.evaluate("document.getElementById('typed').value") == ""


@pytest.mark.parametrize(
    ("loc", "n"),
    [
        pytest.param({"text": "Item"}, 2, id="text-without-exact"),
        pytest.param({"role": "button", "name": "Edit"}, 2, id="role-without-within"),
        pytest.param({"css": ".row"}, 3, id="css-without-nth"),
    ],
)
def test_ambiguous_locator_fails_and_clicks_nothing(page, fence, pages_url, loc, n) -> None:  # type: ignore[no-untyped-def]
    result = run(page, fence, pages_url, workflow(one_step([{"click": loc}])))
    assert result.status == "failed" and result.failed_phase == "action"
    assert f"matches {n} elements" in result.message
    assert page.evaluate("window.events") == []


@pytest.mark.parametrize(
    ("loc", "why", "timeout"),
    [
        # 2 s, not less: on a loaded machine Playwright must get past "waiting for locator" to say why.
        pytest.param("#off", "element is not enabled", 2, id="disabled"),
        pytest.param("#not-shown", "element is not visible", 2, id="hidden"),
        # "waiting for locator" is the first thing Playwright says, and the last when nothing matches.
        pytest.param("#nowhere", 'waiting for locator("#nowhere")', 0.5, id="absent"),
    ],
)
@pytest.mark.slow
def test_click_that_cannot_happen_says_why(page, fence, pages_url, loc, why, timeout) -> None:  # type: ignore[no-untyped-def]
    result = run(page, fence, pages_url, workflow(one_step([{"click": loc}]), settings={"action_timeout": timeout}))
    assert result.status == "failed" and result.failed_phase == "action"
    assert f"click selector='{loc}': timed out:" in result.message
    assert result.message.endswith(f"(last: {why})")
    assert page.evaluate("window.events") == []


@pytest.mark.slow
def test_exact_text_does_not_match_a_substring(page, fence, pages_url) -> None:  # type: ignore[no-untyped-def]
    result = run(
        page,
        fence,
        pages_url,
        workflow(one_step([{"click": {"text": "Plain text", "exact": True}}]), settings={"action_timeout": 0.3}),
    )
    assert result.status == "failed" and "timed out" in result.message
    assert page.evaluate("window.events") == []


def test_locator_placeholders_are_filled(page, fence, pages_url) -> None:  # type: ignore[no-untyped-def]
    text = workflow(
        one_step([{"click": {"role": "button", "name": "{label}", "within": "#card-{card}"}}]),
        params={"label": "Edit", "card": "b"},
    )
    passed(run(page, fence, pages_url, text))
    assert page.evaluate("window.events") == ["edit-b"]


# --------------------------------------------------------------------------- DOM assertions


PASSING = [
    pytest.param({"visible": "#shown"}, id="visible"),
    pytest.param({"hidden": "#not-shown"}, id="hidden"),
    pytest.param({"hidden": "#does-not-exist"}, id="hidden-absent"),
    pytest.param({"enabled": "#on"}, id="enabled"),
    pytest.param({"disabled": "#off"}, id="disabled"),
    pytest.param({"checked": "#ticked"}, id="checked"),
    pytest.param({"unchecked": "#unticked"}, id="unchecked"),
    pytest.param({"text": {"css": "#price", "equals": "Price: $42.00"}}, id="text-equals"),
    pytest.param({"text": {"css": "#price", "contains": "$42"}}, id="text-contains"),
    pytest.param({"text": {"css": "#price", "matches": r"\$\d+\.\d\d"}}, id="text-matches"),
    pytest.param({"value": {"css": "#qty", "equals": "3"}}, id="value-equals"),
    pytest.param({"value": {"css": "#qty", "contains": "3"}}, id="value-contains"),
    pytest.param({"value": {"css": "#qty", "matches": r"^\d$"}}, id="value-matches"),
    pytest.param({"count": {"css": ".item", "equals": 3}}, id="count-equals"),
    pytest.param({"count": {"css": ".item", "min": 2}}, id="count-min"),
    pytest.param({"count": {"css": ".item", "max": 3}}, id="count-max"),
    pytest.param({"count": {"css": ".item", "min": 1, "max": 5}}, id="count-range"),
    pytest.param({"count": {"css": ".nothing", "equals": 0}}, id="count-zero"),
    pytest.param({"url": {"equals": "{base_url}/ops.html"}}, id="url-equals"),
    pytest.param({"url": {"contains": "/ops.html"}}, id="url-contains"),
    pytest.param({"url": {"matches": r"^http://127\.0\.0\.1:\d+/ops\.html$"}}, id="url-matches"),
    pytest.param({"title": {"equals": "Ops page"}}, id="title-equals"),
    pytest.param({"title": {"contains": "Ops"}}, id="title-contains"),
    pytest.param({"title": {"matches": "^Ops p"}}, id="title-matches"),
    pytest.param({"js": "window.ready === true"}, id="js"),
    pytest.param({"js": "document.querySelectorAll('.item').length"}, id="js-truthy-number"),
    pytest.param({"visible": "#shown", "enabled": "#on", "count": {"css": ".item", "equals": 3}}, id="several-keys"),
    pytest.param([{"visible": "#shown"}, {"title": {"contains": "Ops"}}], id="list-of-mappings"),
]


def _assertion_run(page, fence, pages_url, expect, check_timeout: float) -> RunResult:  # type: ignore[no-untyped-def]
    steps = one_step([{"wait": 0}], post=[{"expect": expect}])
    return run(page, fence, pages_url, workflow(steps, settings={"check_timeout": check_timeout}))


@pytest.fixture(scope="module")
def holding(_module_page, pages_url) -> RunResult:  # type: ignore[no-untyped-def]
    """One run judging every assertion of PASSING, a post check each (judged one by one, on a page
    nothing changes): a run of their own would cost each a page load and a result, and no wait."""
    page = _module_page.context.new_page()
    try:
        steps = one_step([{"wait": 0}], post=[{"expect": p.values[0]} for p in PASSING])
        return run(page, _module_page.fence, pages_url, workflow(steps))
    finally:
        page.close()


def test_the_holding_assertions_pass_their_run(holding) -> None:  # type: ignore[no-untyped-def]
    assert len(holding.steps[0].post) == len(PASSING)
    passed(holding)


@pytest.mark.parametrize("case", [p.id for p in PASSING])
def test_assertion_holds(holding, case) -> None:  # type: ignore[no-untyped-def]
    verdict = holding.steps[0].post[[p.id for p in PASSING].index(case)]
    assert verdict.ok is True and verdict.source == "dom" and verdict.phase == "post", verdict


FAILING = [
    # expect, words in verdict.expected, words in verdict.actual
    pytest.param({"visible": "#not-shown"}, "selector='#not-shown' to be visible", "not visible", id="visible"),
    pytest.param(
        {"visible": "#missing"}, "selector='#missing' to be visible", "no element matches", id="visible-absent"
    ),
    pytest.param({"hidden": "#shown"}, "selector='#shown' to be hidden", "not hidden", id="hidden"),
    pytest.param({"enabled": "#off"}, "selector='#off' to be enabled", "not enabled", id="enabled"),
    pytest.param({"disabled": "#on"}, "selector='#on' to be disabled", "not disabled", id="disabled"),
    pytest.param({"checked": "#unticked"}, "selector='#unticked' to be checked", "not checked", id="checked"),
    pytest.param({"unchecked": "#ticked"}, "selector='#ticked' to be unchecked", "not unchecked", id="unchecked"),
    pytest.param(
        {"text": {"css": "#price", "equals": "Price: $1.00"}},
        "text of css='#price' to equal 'Price: $1.00'",
        "'Price: $42.00'",
        id="text-equals",
    ),
    pytest.param(
        {"text": {"css": "#price", "contains": "€"}},
        "text of css='#price' to contain '€'",
        "'Price: $42.00'",
        id="text-contains",
    ),
    pytest.param(
        {"text": {"css": "#price", "matches": r"^\d+$"}},
        r"text of css='#price' to match /^\d+$/",
        "'Price: $42.00'",
        id="text-matches",
    ),
    pytest.param(
        {"text": {"css": "#missing", "equals": "x"}},
        "text of css='#missing' to equal 'x'",
        "(no such element)",
        id="text-absent",
    ),
    pytest.param(
        {"value": {"css": "#qty", "equals": "4"}}, "value of css='#qty' to equal '4'", "'3'", id="value-equals"
    ),
    pytest.param(
        {"value": {"css": "#qty", "contains": "9"}}, "value of css='#qty' to contain '9'", "'3'", id="value-contains"
    ),
    pytest.param(
        {"value": {"css": "#qty", "matches": "^[a-z]+$"}},
        "value of css='#qty' to match /^[a-z]+$/",
        "'3'",
        id="value-matches",
    ),
    pytest.param({"count": {"css": ".item", "equals": 5}}, "count of css='.item' == 5", "3", id="count-equals"),
    pytest.param({"count": {"css": ".item", "min": 4}}, "count of css='.item' >= 4", "3", id="count-min"),
    pytest.param({"count": {"css": ".item", "max": 2}}, "count of css='.item' <= 2", "3", id="count-max"),
    pytest.param({"url": {"equals": "{base_url}/other.html"}}, "url to equal '", "/ops.html", id="url-equals"),
    pytest.param({"url": {"contains": "/nope"}}, "url to contain '/nope'", "/ops.html", id="url-contains"),
    pytest.param({"url": {"matches": "other"}}, "url to match /other/", "/ops.html", id="url-matches"),
    pytest.param({"title": {"equals": "Nope"}}, "title to equal 'Nope'", "'Ops page'", id="title-equals"),
    pytest.param({"title": {"contains": "Shop"}}, "title to contain 'Shop'", "'Ops page'", id="title-contains"),
    pytest.param({"title": {"matches": "^page"}}, "title to match /^page/", "'Ops page'", id="title-matches"),
    pytest.param({"js": "window.ready === false"}, "js window.ready === false to be truthy", "False", id="js"),
    pytest.param({"visible": ".item"}, "selector='.item' to be visible", "3 elements match", id="visible-ambiguous"),
    # The first match holds "one": reporting its text would read "expected 'one', actual 'one'".
    pytest.param(
        {"text": {"css": ".item", "contains": "one"}},
        "text of css='.item' to contain 'one'",
        "3 elements match (the locator must be unique: add nth, exact, has_text or within)",
        id="text-ambiguous",
    ),
    pytest.param({"visible": "#shown", "hidden": "#on"}, "selector='#on' to be hidden", "not hidden", id="second-key"),
    pytest.param(
        [{"visible": "#shown"}, {"count": {"css": ".item", "equals": 1}}],
        "count of css='.item' == 1",
        "3",
        id="second-mapping",
    ),
]


@pytest.mark.parametrize(("expect", "expected", "actual"), FAILING)
@pytest.mark.slow
def test_assertion_fails_with_expected_and_actual(page, fence, pages_url, expect, expected, actual) -> None:  # type: ignore[no-untyped-def]
    result = _assertion_run(page, fence, pages_url, expect, check_timeout=FAILS_AT_ONCE)
    assert result.status == "failed", result.to_dict()
    assert (result.failed_step, result.failed_phase) == (1, "post")
    (verdict,) = result.steps[0].post
    assert verdict.ok is False and verdict.source == "dom"
    assert expected in verdict.expected, verdict
    assert actual in verdict.actual, verdict
    # the failure message carries both, so the pytest report shows them
    assert expected in result.message and actual in result.message
    assert result.analysis is not None and result.analysis.guidance


@pytest.mark.parametrize(
    ("params", "status", "words"),
    [
        pytest.param({"n": "3", "low": "2"}, "passed", "", id="filled-and-holds"),
        pytest.param({"n": "4", "low": "2"}, "failed", "count of css='.item' == 4 and >= 2", id="filled-and-fails"),
        pytest.param(
            {"n": "three", "low": "2"}, "broken", "count equals: {n} is 'three', not a whole number", id="nan"
        ),
    ],
)
def test_count_bounds_take_placeholders(page, fence, pages_url, params, status, words) -> None:  # type: ignore[no-untyped-def]
    steps = one_step([{"wait": 0}], post=[{"expect": {"count": {"css": ".item", "equals": "{n}", "min": "{low}"}}}])
    result = run(page, fence, pages_url, workflow(steps, settings={"check_timeout": FAILS_AT_ONCE}, params=params))
    assert result.status == status, result.to_dict()
    if status == "failed":
        (verdict,) = result.steps[0].post
        assert verdict.expected == words and verdict.actual == "3"
    elif status == "broken":
        assert words in result.message


@pytest.mark.slow
def test_assertion_waits_for_a_late_change(page, fence, pages_url) -> None:  # type: ignore[no-untyped-def]
    # #late appears 600 ms after the click: within check_timeout 3 the assertion must wait for it.
    steps = one_step([{"click": "#show-late"}], post=[{"expect": {"text": {"css": "#late", "equals": "Late arrival"}}}])
    result = passed(run(page, fence, pages_url, workflow(steps, settings={"check_timeout": 3})))
    assert result.steps[0].post[0].ok is True


@pytest.mark.slow
def test_assertion_gives_up_after_check_timeout(page, fence, pages_url) -> None:  # type: ignore[no-untyped-def]
    steps = one_step([{"wait": 0}], post=[{"expect": {"count": {"css": ".item", "equals": 9}}}])
    result = run(page, fence, pages_url, workflow(steps, settings={"check_timeout": 0.4}))
    assert result.status == "failed"
    assert 0.35 <= result.steps[0].duration < 3


def test_words_and_dom_check_without_model_uses_the_dom_verdict(page, fence, pages_url) -> None:  # type: ignore[no-untyped-def]
    steps = one_step([{"wait": 0}], post=[{"check": "the price is shown", "expect": {"visible": "#price"}}])
    result = passed(run(page, fence, pages_url, workflow(steps)))
    (v,) = result.steps[0].post
    assert v.ok is True and v.source == "dom" and "words not judged" in v.explanation
    assert result.not_judged == []


# --------------------------------------------------------------------------- secrets


SECRET = "s3cr3t-Vz9-7781"


def test_secret_is_typed_but_never_reported(page, fence, pages_url, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("REUSEIT_TEST_PW", SECRET)
    steps = [
        {
            "action": "Type the password {pw}",
            "do": [
                {"fill": {"css": "#echo-in", "value": "{secret.REUSEIT_TEST_PW}"}},
                {"type": {"css": "#typed", "value": "{pw}"}},
            ],
            # secrets are never substituted into checks (only typed), so check the echo by its length
            "post": [{"expect": {"js": f"document.getElementById('echo').textContent.length === {len(SECRET)}"}}],
        }
    ]
    text = workflow(steps, params={"pw": "{secret.REUSEIT_TEST_PW}"})
    result = passed(run(page, fence, pages_url, text))
    # the real value reached the page ...
    assert page.evaluate("document.getElementById('echo-in').value") == SECRET
    assert page.evaluate("document.getElementById('typed').value") == SECRET
    assert page.evaluate("document.getElementById('echo').textContent") == SECRET
    # ... and nothing the reporters read holds it
    assert result.typed_secret is True
    dumped = json.dumps(result.to_dict())
    assert SECRET not in dumped
    assert [a.description for a in result.steps[0].actions] == [
        "fill css='#echo-in' value='{secret.REUSEIT_TEST_PW}'",
        "type css='#typed' value='{secret.REUSEIT_TEST_PW}'",
    ]
    assert result.params == {"pw": "{secret.REUSEIT_TEST_PW}"}
    assert result.steps[0].action == "Type the password {secret.REUSEIT_TEST_PW}"


@pytest.mark.parametrize("phase", ["post", "outcome"])
@pytest.mark.slow
def test_secret_shown_by_the_page_is_masked_in_a_failure(page, fence, pages_url, monkeypatch, phase) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("REUSEIT_TEST_PW", SECRET)
    # The check fails and the actual text the page shows IS the secret (the page echoes the input).
    failing = {"expect": {"text": {"css": "#echo", "equals": "something else"}}}
    step: dict[str, Any] = {
        "action": "Type the password",
        "do": [{"fill": {"css": "#echo-in", "value": "{secret.REUSEIT_TEST_PW}"}}],
    }
    top: dict[str, Any] = {}
    if phase == "post":
        step.update(post=[failing], retries=1)
    else:
        top["outcome"] = [failing]
    result = run(page, fence, pages_url, workflow([step], settings={"check_timeout": FAILS_AT_ONCE}, **top))
    assert result.status == "failed" and result.failed_phase == phase
    assert page.evaluate("document.getElementById('echo').textContent") == SECRET
    dumped = json.dumps(result.to_dict())
    assert SECRET not in dumped, dumped[max(0, dumped.find(SECRET) - 300) : dumped.find(SECRET) + 50]
    assert "actual: '***'" in result.message
    verdict = result.steps[0].post[0] if phase == "post" else result.outcome[0]
    assert verdict.actual == "'***'"
    assert result.analysis is not None and "'***'" in result.analysis.why


def test_unset_secret_is_broken_and_names_it(page, fence, pages_url, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.delenv("REUSEIT_TEST_PW", raising=False)
    steps = one_step([{"fill": {"css": "#echo-in", "value": "{secret.REUSEIT_TEST_PW}"}}])
    result = run(page, fence, pages_url, workflow(steps))
    assert result.status == "broken"
    assert "secret 'REUSEIT_TEST_PW' is not set" in result.message
    # Found before anything ran: the start page was never opened, no step started.
    assert result.steps == [] and "ops.html" not in page.url


@pytest.mark.slow
def test_python_api_runs_a_workflow_file_on_the_callers_page(page) -> None:  # type: ignore[no-untyped-def]
    """`run_workflow(path, page=...)`: built-ins ({demo_url}) and parameters come from the same runtime as pytest's."""
    from pytest_reuseit.api import run_workflow

    result = run_workflow(ROOT / "workflows" / "demo" / "frames.reuseit.yaml", page=page)
    assert result.status == "passed", result.message
    assert result.start_url.startswith("http://127.0.0.1:") and "/demo/" in result.start_url
    assert page.url.startswith("http://127.0.0.1:")  # it ran on this page, not a browser of its own


def test_back_and_forward_follow_hash_routes_of_a_single_page_app(page, fence, pages_url) -> None:  # type: ignore[no-untyped-def]
    # Same-document history entries (what TodoMVC's #/active filter makes) give Playwright no
    # response to return: back and forward must still work, and say so only when nothing moved.
    steps = one_step(
        [{"eval": "location.hash = '#/active'"}, {"eval": "location.hash = '#/completed'"}, "back"],
        post=[{"expect": {"url": {"matches": "#/active$"}}}],
    ) + [
        {"action": "forward", "do": ["forward"], "post": [{"expect": {"url": {"matches": "#/completed$"}}}]},
        {"action": "forward at the end of history", "do": ["forward"]},
    ]
    result = run(page, fence, pages_url, workflow(steps, settings={"retries": 0}))
    assert result.status == "failed", result.to_dict()
    assert result.failed_step == 3, result.message
    assert "there is no next page in this page's history" in result.message
