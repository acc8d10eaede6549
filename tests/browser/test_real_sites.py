"""Pop-up windows and tabs, dialogs, frames, files and history navigation, in a real Chromium.

Each test runs a small workflow through ``engine.runner.execute`` on the pages in
``tests/pages/real`` and then reads the browser itself (not only the engine's report) to see
that the op really happened. Failure paths check the verdict (*failed*, never *broken*) and the
words of the message.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from pytest_reuseit.browser.ops import _performed
from pytest_reuseit.engine.context import RunOptions
from pytest_reuseit.engine.ports import Models
from pytest_reuseit.engine.result import RunResult
from pytest_reuseit.engine.runner import execute
from pytest_reuseit.errors import WorkflowFormatError
from pytest_reuseit.report.text import failure_text
from pytest_reuseit.workflow.loader import parse
from tests.support.paths import PAGES, ROOT

pytestmark = pytest.mark.browser

REAL = PAGES / "real"
FAST = {"retries": 0, "check_timeout": 3, "action_timeout": 3}


def workflow(steps: list[dict[str, Any]], start: str, settings: dict[str, Any] | None = None, **top: Any) -> str:
    doc = {
        "name": "real",
        "task": "use a real-looking site",
        "start_url": "{base_url}/real/" + start,
        "settings": {**FAST, **(settings or {})},
        "steps": steps,
        **top,
    }
    return yaml.safe_dump(doc, sort_keys=False)


def run(page, fence, pages_url: str, text: str, tmp_path: Path | None = None, shots: str = "off") -> RunResult:  # type: ignore[no-untyped-def]
    loaded = parse(text, "real.reuseit.yaml", folder=str(REAL))
    return execute(
        page,
        loaded,
        builtins={"base_url": pages_url},
        options=RunOptions(screenshots=shots, output_dir=str(tmp_path) if tmp_path else None),  # type: ignore[arg-type]
        models=Models(),
        blocked=fence.blocked,
    )


# --------------------------------------------------------------------------- pages


@pytest.mark.slow
def test_popup_window_is_followed_and_its_opener_is_current_again_when_it_closes(page, fence, pages_url) -> None:  # type: ignore[no-untyped-def]
    steps = [
        {
            "action": "Add a publisher from the pop-up",
            "do": [
                {"click": {"role": "link", "name": "Add another publisher"}, "new_page": True},
                {"fill": {"label": "Name", "value": "Acme"}},
                {"click": {"role": "button", "name": "Save"}},  # the pop-up closes itself
            ],
            "post": [{"expect": {"value": {"label": "Publisher", "equals": "Acme"}}}],
        },
        {"action": "Still on the book form", "do": [{"fill": {"label": "Publisher", "value": "Acme Books"}}]},
    ]
    result = run(page, fence, pages_url, workflow(steps, "popup.html"))
    assert result.status == "passed", result.message
    assert page.input_value("#publisher") == "Acme Books"  # the opener, read directly
    assert [u.rsplit("/", 1)[1] for u in result.pages] == ["popup.html", "popup-form.html?from=book"]
    assert result.unvisited_pages == []
    assert (
        result.steps[0].actions[0].description == "click role='link'[name='Add another publisher'] (opens a new page)"
    )
    assert result.steps[0].page.startswith('main page "Book form"')
    assert result.steps[0].post[0].page.startswith('main page "Book form"')


@pytest.mark.slow
def test_a_pop_up_opens_while_the_context_has_a_route(page, fence, pages_url) -> None:  # type: ignore[no-untyped-def]
    """A route anywhere in the context (a suite's hook mocking an API, a mutant's fault) makes
    Playwright report a pop-up's first request before its frame exists; reading that frame raised
    in the run's network watch, and the pop-up was lost ("no new page opened within 10s")."""
    # A function decides: every request goes through Python's route handling (a glob is matched
    # in Playwright's driver, and the pop-up's request would not be held for it).
    unused = lambda url: url.endswith("/api/unused")  # noqa: E731
    page.context.route(unused, lambda route: route.fallback())
    steps = [
        {
            "action": "Open the pop-up",
            "do": [{"click": {"role": "link", "name": "Add another publisher"}, "new_page": True}],
            "post": [{"expect": {"visible": {"label": "Name"}}}],
            "retries": 0,
        }
    ]
    try:
        result = run(page, fence, pages_url, workflow(steps, "popup.html", settings={"action_timeout": 3}))
    finally:
        page.context.unroute(unused)
    assert result.status == "passed", failure_text(result)
    assert [u.rsplit("/", 1)[1] for u in result.pages] == ["popup.html", "popup-form.html?from=book"]


@pytest.mark.slow
def test_a_click_that_closes_its_own_pop_up_is_done_every_time(page, fence, pages_url) -> None:  # type: ignore[no-untyped-def]
    """Playwright reports "Target page ... has been closed" for about one click in ten whose page
    closes before the click returns: that click was performed (its call log says so) and must
    not be tried again on the opener, where it finds nothing and fails."""
    save = {
        "action": "Add a publisher from the pop-up",
        "do": [
            # This pop-up closes within the Save click (not a moment after it).
            {
                # void: Playwright calls an expression whose value is a function (the handler)
                "eval": "void (document.getElementById('add-publisher').onclick = () => (window.open('popup-form.html?close=now'), false))"
            },
            {"click": {"role": "link", "name": "Add another publisher"}, "new_page": True},
            {"fill": {"label": "Name", "value": "Acme"}},
            {"click": {"role": "button", "name": "Save"}},  # the pop-up closes itself
        ],
        "post": [{"expect": {"value": {"label": "Publisher", "equals": "Acme"}}}],
    }
    result = run(page, fence, pages_url, workflow([save] * 10, "popup.html"))
    assert result.status == "passed", failure_text(result)
    assert [s.status for s in result.steps] == ["passed"] * 10


@pytest.mark.parametrize("how", ["pop-up", "navigation"])
@pytest.mark.slow
def test_a_page_is_loaded_before_an_op_types_into_it(page, fence, pages_url, how) -> None:  # type: ignore[no-untyped-def]
    """A site's async script that focuses the first field on load (Django's admin) must not catch
    a value typed into a later field: "New York" went into Name ("Ace BooksNew York") about one run
    in six when ops acted on a page that was parsed but not loaded."""
    target = "focus-on-load.html"
    opening: dict[str, Any] = (
        {"click": {"role": "link", "name": "Add another publisher"}, "new_page": True}
        if how == "pop-up"
        else {"click": {"role": "link", "name": "Open the form here"}}
    )
    link = (
        f"void (document.getElementById('add-publisher').onclick = () => (window.open('{target}'), false))"
        if how == "pop-up"
        else f"document.body.insertAdjacentHTML('beforeend', '<a href=\"{target}\">Open the form here</a>')"
    )
    steps = [
        {
            "action": "Fill in the publisher",
            "do": [
                {"eval": link},
                opening,
                {"fill": {"label": "Name", "value": "Ace Books"}},
                {"fill": {"label": "City", "value": "New York"}},
            ],
            "post": [
                {
                    "expect": [
                        {"value": {"label": "Name", "equals": "Ace Books"}},
                        {"value": {"label": "City", "equals": "New York"}},
                    ]
                }
            ],
        }
    ]
    result = run(page, fence, pages_url, workflow(steps, "popup.html"))
    assert result.status == "passed", failure_text(result)
    opened = [p for p in page.context.pages if p is not page and p.url.endswith(target)]
    assert len(opened) == (1 if how == "pop-up" else 0)
    form = opened[0] if how == "pop-up" else page
    assert (form.input_value("#name"), form.input_value("#city")) == ("Ace Books", "New York")


def test_a_call_log_tells_a_performed_action_from_one_never_tried() -> None:
    performed = (
        "Locator.click: Target page, context or browser has been closed\nCall log:\n"
        '  - waiting for get_by_role("button", name="Save")\n'
        "    - locator resolved to <button>Save</button>\n  - attempting click action\n"
        "    - done scrolling\n    - performing click action\n"
    )
    never = (
        "Locator.click: Target page, context or browser has been closed\nCall log:\n"
        '  - waiting for get_by_role("button", name="Save")\n'
    )
    assert _performed(Exception(performed)) and not _performed(Exception(never))


@pytest.mark.slow
def test_tab_switch_page_forms_and_close_page(page, fence, pages_url) -> None:  # type: ignore[no-untyped-def]
    steps = [
        {
            "action": "Open the help in a tab",
            "do": [{"click": {"role": "link", "name": "Open the help in a tab"}, "new_page": True}],
            "post": [{"expect": {"visible": "#help", "title": {"equals": "Help"}}}],
        },
        {
            "action": "Back to the form, then to the help by its URL, then the last page",
            "do": [
                {"switch_page": "main"},
                {"fill": {"label": "Publisher", "value": "main again"}},
                {"switch_page": {"url": "popup-info"}},
                {"switch_page": 0},
                {"switch_page": "last"},
            ],
            "post": [{"expect": {"title": {"equals": "Help"}}}],
        },
        {
            "action": "Close the help",
            "do": ["close_page"],
            "post": [{"expect": {"title": {"equals": "Book form"}}}],
        },
    ]
    result = run(page, fence, pages_url, workflow(steps, "popup.html"), shots="steps")
    assert result.status == "passed", result.message
    assert page.input_value("#publisher") == "main again"
    # Screenshots say which page they show once the run has several.
    assert result.steps[1].after is not None and 'after action [page 1 "Help" (' in result.steps[1].after.label
    assert result.steps[2].after is not None and 'after action [main page "Book form" (' in result.steps[2].after.label
    assert len(page.context.pages) == 1  # the tab really closed
    assert result.steps[1].page.startswith('page 1 "Help"')
    assert [a.description for a in result.steps[1].actions][2] == "switch_page url='popup-info'"


@pytest.mark.slow
def test_new_page_that_opens_nothing_fails_with_that_message(page, fence, pages_url) -> None:  # type: ignore[no-untyped-def]
    steps = [{"action": "Open the pop-up", "do": [{"click": "#nothing", "new_page": True}]}]
    result = run(page, fence, pages_url, workflow(steps, "popup.html", settings={"retries": 1, "action_timeout": 0.5}))
    assert result.status == "failed"  # a verdict on the site, not broken
    assert result.failed_phase == "action"
    assert "no new page opened within 0.5s (new_page: true)" in result.message
    assert result.steps[0].attempts == []  # no fallback: the click is not repeated
    assert result.analysis is not None and result.analysis.category == "action_incomplete"
    assert "no pop-up window or tab opened" in " ".join(result.analysis.guidance)


def test_switch_to_a_page_that_is_not_open_fails_and_lists_the_open_ones(page, fence, pages_url) -> None:  # type: ignore[no-untyped-def]
    # A page named by its URL is waited for (it may still be opening) up to the action timeout: 0.5 s.
    steps = [{"action": "Go to the help", "do": [{"switch_page": {"url": "popup-info"}}], "action_timeout": 0.5}]
    result = run(page, fence, pages_url, workflow(steps, "popup.html"))
    assert result.status == "failed"
    assert "no open page matches url containing 'popup-info' (open pages: 0: " in result.message


@pytest.mark.slow
def test_window_nobody_switched_to_is_named_in_the_analysis(page, fence, pages_url) -> None:  # type: ignore[no-untyped-def]
    # A click that opens a window can take seconds on a loaded machine: room for it; the fill that
    # cannot happen on this page waits 0.5 s.
    steps = [
        {
            "action": "Add a publisher (forgetting new_page)",
            "do": [{"click": {"role": "link", "name": "Add another publisher"}}],
        },
        {"action": "Name the publisher", "do": [{"fill": {"label": "Name", "value": "A"}}], "action_timeout": 0.5},
    ]
    result = run(page, fence, pages_url, workflow(steps, "popup.html", settings={"action_timeout": 8}))
    assert result.status == "failed" and result.failed_step == 2
    assert "fill label='Name' value='A': timed out" in result.message
    assert result.unvisited_pages and result.unvisited_pages[0].endswith("popup-form.html?from=book")
    assert result.analysis is not None
    assert result.analysis.category == "popup_or_overlay"
    assert "popup-form.html?from=book" in result.analysis.why
    assert any("new_page: true" in g for g in result.analysis.guidance)
    assert "opened but never switched to: " in failure_text(result)


# --------------------------------------------------------------------------- dialogs


def test_dialog_is_dismissed_by_default_and_recorded(page, fence, pages_url) -> None:  # type: ignore[no-untyped-def]
    steps = [
        {
            "action": "Delete the rows",
            "do": [{"click": {"role": "button", "name": "Delete"}}],
            "post": [
                {"expect": {"dialog": {"contains": "Are you sure"}, "text": {"css": "#status", "equals": "Kept"}}}
            ],
        }
    ]
    result = run(page, fence, pages_url, workflow(steps, "dialogs.html"))
    assert result.status == "passed", result.message
    assert page.inner_text("#status") == "Kept"
    (dialog,) = result.steps[0].dialogs
    assert (dialog.type, dialog.message, dialog.answer) == (
        "confirm",
        "Are you sure you want to delete 3 rows?",
        "dismissed",
    )


@pytest.mark.parametrize(
    ("button", "op_dialog", "settings_dialog", "status"),
    [
        pytest.param("Delete", "accept", None, "Deleted", id="op-accept"),
        pytest.param("Delete", None, "accept", "Deleted", id="settings-accept"),
        pytest.param("Delete", "dismiss", "accept", "Kept", id="op-overrides-settings"),
        pytest.param("Name", {"accept": True, "text": "Ada"}, None, "Hello Ada", id="prompt-text"),
        pytest.param("Name", "dismiss", None, "No name", id="prompt-dismissed"),
        pytest.param("Save", None, None, "After alert", id="alert"),
    ],
)
def test_dialog_answers(page, fence, pages_url, button, op_dialog, settings_dialog, status) -> None:  # type: ignore[no-untyped-def]
    op: dict[str, Any] = {"click": {"role": "button", "name": button}}
    if op_dialog is not None:
        op["dialog"] = op_dialog
    settings = {"dialog": settings_dialog} if settings_dialog else {}
    steps = [{"action": "answer", "do": [op]}, {"action": "the next op has the default again", "do": [op]}]
    result = run(page, fence, pages_url, workflow(steps[:1], "dialogs.html", settings=settings))
    assert result.status == "passed", result.message
    assert page.inner_text("#status") == status
    assert len(result.steps[0].dialogs) == 1


@pytest.mark.slow
def test_dialog_answered_the_wrong_way_fails_the_check_that_saw_it(page, fence, pages_url) -> None:  # type: ignore[no-untyped-def]
    steps = [
        {
            "action": "Delete the rows",
            "do": [{"click": {"role": "button", "name": "Delete"}}],  # dismissed: nothing is deleted
            "post": [{"expect": {"text": {"css": "#status", "equals": "Deleted"}}}],
        }
    ]
    result = run(page, fence, pages_url, workflow(steps, "dialogs.html", settings={"check_timeout": 0.5}))
    assert result.status == "failed"
    assert result.message.endswith("actual: 'Kept'")
    assert result.steps[0].dialogs[0].answer == "dismissed"  # the report says how it was answered
    assert "  dialog (confirm) 'Are you sure you want to delete 3 rows?': dismissed" in failure_text(result)


@pytest.mark.slow
def test_expect_dialog_mismatch_and_no_dialog_at_all(page, fence, pages_url) -> None:  # type: ignore[no-untyped-def]
    wrong = [
        {
            "action": "Delete",
            "do": [{"click": {"role": "button", "name": "Delete"}}],
            "post": [{"expect": {"dialog": {"matches": "^Delete everything"}}}],
        }
    ]
    result = run(page, fence, pages_url, workflow(wrong, "dialogs.html", settings={"check_timeout": 0.5}))
    assert result.status == "failed"
    assert "expected the last dialog's message to match /^Delete everything/" in result.message
    assert "actual: confirm 'Are you sure you want to delete 3 rows?' (dismissed)" in result.message
    none = [{"action": "Nothing", "do": [{"wait": 0}], "post": [{"expect": {"dialog": {"contains": "x"}}}]}]
    result = run(page, fence, pages_url, workflow(none, "dialogs.html", settings={"check_timeout": 0.5}))
    assert result.status == "failed" and result.message.endswith("actual: no dialog was shown")


# --------------------------------------------------------------------------- frames


@pytest.mark.slow
def test_nested_frames_for_ops_assertions_and_extraction(page, fence, pages_url, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("REUSEIT_TEST_CARD", "4111222233334444")
    card = {"css": "#card", "frame": "#payment"}  # the inner iframe, inside the outer one
    steps = [
        {
            "action": "Pay inside the embedded form",
            "do": [
                {"fill": {"frame": card, "label": "Card number", "value": "{secret.REUSEIT_TEST_CARD}"}},
                {"click": {"frame": card, "role": "button", "name": "Pay"}},
            ],
            "post": [
                {"expect": {"text": {"frame": card, "css": "#paid", "equals": "Paid"}}},
                {"expect": {"visible": {"frame": "#payment", "text": "Payment provider"}}},
            ],
            "extract": {"into": "echo", "text": {"frame": card, "css": "#echo"}},
        }
    ]
    result = run(page, fence, pages_url, workflow(steps, "frames.html"))
    assert result.status == "passed", result.message
    inner = page.frame_locator("#payment").frame_locator("#card")
    assert inner.locator("#number").input_value() == "4111222233334444"
    assert result.extracted == {"echo": "Card ending 4444"}
    # The secret typed in a frame appears nowhere in the result.
    assert "4111222233334444" not in json.dumps(result.to_dict())
    assert result.steps[0].actions[0].description == (
        "fill frame frame selector='#payment' >> css='#card' >> label='Card number' value='{secret.REUSEIT_TEST_CARD}'"
    )


@pytest.mark.slow
def test_element_missing_in_a_frame_fails_with_the_frame_in_the_message(page, fence, pages_url) -> None:  # type: ignore[no-untyped-def]
    steps = [{"action": "Pay", "do": [{"click": {"frame": "#payment", "role": "button", "name": "Pay"}}]}]
    result = run(page, fence, pages_url, workflow(steps, "frames.html", settings={"action_timeout": 0.5}))
    assert result.status == "failed"  # Pay is one frame deeper
    assert "click frame selector='#payment' >> role='button'[name='Pay']: timed out" in result.message


# --------------------------------------------------------------------------- files


def test_upload_relative_to_the_workflow_file(page, fence, pages_url) -> None:  # type: ignore[no-untyped-def]
    steps = [
        {
            "action": "Attach the invoice",
            "do": [{"upload": {"label": "Invoice", "files": ["files/invoice.txt", "export.csv"]}}],
            "post": [{"expect": {"text": {"css": "#chosen", "contains": "invoice.txt (11 bytes)"}}}],
        }
    ]
    result = run(page, fence, pages_url, workflow(steps, "files.html"))
    assert result.status == "passed", result.message
    assert page.inner_text("#chosen") == "invoice.txt (11 bytes), export.csv (48 bytes)"


def test_missing_upload_file_is_a_load_error_naming_it(tmp_path: Path) -> None:
    text = workflow(
        [{"action": "Attach", "do": [{"upload": {"label": "Invoice", "files": "files/missing.pdf"}}]}], "files.html"
    )
    with pytest.raises(WorkflowFormatError) as err:
        parse(text, "shop/real.reuseit.yaml", folder=str(REAL))
    assert err.value.problems == [
        "shop/real.reuseit.yaml:13: steps[0].do[0].upload.files[0]: upload file 'files/missing.pdf' does not exist "
        "(paths are relative to the workflow file's folder)"
    ]
    # load() looks next to the file itself.
    wf = tmp_path / "real.reuseit.yaml"
    wf.write_text(text.replace("files/missing.pdf", "here.txt"), encoding="utf-8")
    (tmp_path / "here.txt").write_text("x", encoding="utf-8")
    from pytest_reuseit.workflow.loader import load

    assert load(wf).folder == str(tmp_path)


def test_upload_path_from_a_secret_is_never_reported(page, fence, pages_url, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("REUSEIT_TEST_UPLOAD", "files/invoice.txt")
    steps = [{"action": "Attach", "do": [{"upload": {"label": "Invoice", "files": "{secret.REUSEIT_TEST_UPLOAD}"}}]}]
    result = run(page, fence, pages_url, workflow(steps, "files.html"))
    assert result.status == "passed", result.message
    assert page.inner_text("#chosen") == "invoice.txt (11 bytes)"
    assert "files/invoice.txt" not in json.dumps(result.to_dict())


def test_download_saved_in_the_output_folder_checked_and_stored(page, fence, pages_url, tmp_path) -> None:  # type: ignore[no-untyped-def]
    steps = [
        {
            "action": "Export the list",
            "do": [{"download": {"role": "link", "name": "Export CSV"}, "into": "export"}],
            "post": [{"expect": {"download": {"name": {"matches": "\\.csv$"}, "contains": "Acme"}}}],
        },
        {
            "action": "Use the saved path",
            "do": [{"extract": {"into": "same", "js": "'{export}'"}}],
        },
    ]
    result = run(page, fence, pages_url, workflow(steps, "files.html"), tmp_path)
    assert result.status == "passed", result.message
    (download,) = result.downloads
    saved = Path(download.path)
    assert download.name == "publishers.csv" and saved.parent == tmp_path / "downloads"
    assert saved.read_text(encoding="utf-8").startswith("name,city\nAcme")
    assert result.extracted["export"] == str(saved) == result.extracted["same"]


@pytest.mark.slow
def test_download_failures(page, fence, pages_url, tmp_path) -> None:  # type: ignore[no-untyped-def]
    nothing = [{"action": "Export", "do": [{"download": "#no-download"}]}]
    result = run(page, fence, pages_url, workflow(nothing, "files.html", settings={"action_timeout": 0.5}), tmp_path)
    assert result.status == "failed" and "#no-download'" in result.message
    assert result.message.endswith("no download started within 0.5s")
    # A file the site sends as text is shown as a page: the report says so, not "element not found".
    inline = [{"action": "Export", "do": [{"download": "#shown-inline"}], "retries": 0}]
    result = run(page, fence, pages_url, workflow(inline, "files.html", settings={"action_timeout": 1}), tmp_path)
    assert result.status == "failed"
    assert f"no download started within 1s: the click opened {pages_url}/real/files/invoice.txt as a page" in (
        result.message
    )
    assert result.analysis is not None and result.analysis.category == "action_incomplete"
    assert "went through but the browser received no file" in " ".join(result.analysis.guidance)
    wrong = [
        {
            "action": "Export",
            "do": [{"download": {"role": "link", "name": "Export CSV"}}],
            "post": [{"expect": {"download": {"contains": "Initech"}}}],
        }
    ]
    result = run(page, fence, pages_url, workflow(wrong, "files.html"), tmp_path)
    assert result.status == "failed"
    assert "expected the last download's contents to contain 'Initech'; actual: publishers.csv starts with" in (
        result.message
    )


@pytest.mark.parametrize(
    "step",
    [
        pytest.param({"do": [{"click": "#freeze"}]}, id="the-site-s-click-handler"),
        pytest.param({"do": [{"eval": "(() => { while (true) {} })()"}]}, id="eval"),
        pytest.param({"do": [{"eval": "let n = 0; while (true) { n++; }"}]}, id="eval-statements"),
        pytest.param({"do": [{"extract": {"into": "x", "js": "(() => { while (true) {} })()"}}]}, id="extract-js"),
        pytest.param({"do": [], "post": [{"expect": {"js": "(() => { while (true) {} })()"}}]}, id="expect-js"),
    ],
)
@pytest.mark.slow
def test_a_script_that_never_ends_fails_the_run_instead_of_hanging_it(page, fence, pages_url, step) -> None:  # type: ignore[no-untyped-def]
    # Playwright's title, screenshot and evaluate have no timeout: a page stuck in a script would
    # have kept the run (and the session) waiting for ever. The page is closed and the run fails.
    steps = [{"action": "Press the button", **step, "retries": 0}]
    # Short waits: the script never ends, so each is waited out; the element is there at once.
    settings = {"action_timeout": 0.5, "check_timeout": 0.5}
    result = run(page, fence, pages_url, workflow(steps, "freeze.html", settings=settings))
    assert result.status == "failed", result.message
    assert "the page stopped responding: a script on it did not finish (an endless loop?)" in result.message
    assert page.is_closed()
    if "post" not in step:
        assert result.analysis is not None and result.analysis.category == "action_incomplete"
        assert "never finished, so the page was closed" in " ".join(result.analysis.guidance)


def test_scripts_of_several_statements_still_run_and_give_their_value(page, fence, pages_url) -> None:  # type: ignore[no-untyped-def]
    steps = [
        {
            "action": "Count in the page",
            "do": [
                {"eval": "window.count = 1; window.count += 1;"},
                {"extract": {"into": "total", "js": "let doubled = window.count * 2; doubled"}},
            ],
            "post": [{"expect": {"js": "const c = window.count; c === 2"}}],
        }
    ]
    result = run(page, fence, pages_url, workflow(steps, "freeze.html"))
    assert result.status == "passed", result.message
    assert result.extracted["total"] == "4"


@pytest.mark.slow
def test_a_promise_that_never_settles_times_out_and_the_page_stays(page, fence, pages_url) -> None:  # type: ignore[no-untyped-def]
    steps = [{"action": "Wait for nothing", "do": [{"eval": "new Promise(() => {})"}], "retries": 0}]
    result = run(page, fence, pages_url, workflow(steps, "freeze.html", settings={"action_timeout": 0.5}))
    assert result.status == "failed" and "timed out: Page.wait_for_function: Timeout 500ms exceeded" in result.message
    assert not page.is_closed()  # the page still answers: nothing to close


# --------------------------------------------------------------------------- navigation


@pytest.mark.slow
def test_back_forward_reload(page, fence, pages_url) -> None:  # type: ignore[no-untyped-def]
    steps = [
        {"action": "Go to the form", "do": [{"click": {"role": "link", "name": "Start page"}}]},
        {"action": "Back", "do": ["back"], "post": [{"expect": {"title": {"equals": "Help"}}}]},
        {"action": "Forward", "do": ["forward"], "post": [{"expect": {"title": {"equals": "Book form"}}}]},
        {
            "action": "Reload loses the typed value",
            "do": [{"eval": "document.title = 'changed'"}, "reload"],
            "post": [{"expect": {"title": {"equals": "Book form"}}}],
        },
    ]
    result = run(page, fence, pages_url, workflow(steps, "popup-info.html"))
    assert result.status == "passed", result.message
    assert page.url.endswith("/real/popup.html")
    assert [a.description for a in result.steps[3].actions] == ["eval \"document.title = 'changed'\"", "reload"]


def test_back_without_history_fails(page, fence, pages_url) -> None:  # type: ignore[no-untyped-def]
    steps = [
        {
            "action": "Open the help in a tab (a new tab has no history) and go back",
            "do": [{"click": {"role": "link", "name": "Open the help in a tab"}, "new_page": True}, "back"],
        }
    ]
    result = run(page, fence, pages_url, workflow(steps, "popup.html", settings={"action_timeout": 8}))
    assert result.status == "failed"
    assert result.message == "action failed: back: there is no previous page in this page's history"


# --------------------------------------------------------------------------- the demo site's examples

DEMO = ROOT / "workflows" / "demo"


@pytest.mark.parametrize("name", ["popup", "dialogs", "frames", "files", "navigation"])
@pytest.mark.slow
def test_demo_workflow_for_each_feature_passes(page, name: str) -> None:  # type: ignore[no-untyped-def]
    """The examples in workflows/demo run on the demo site (no model: their DOM assertions decide)."""
    from pytest_reuseit.api import run_workflow

    result = run_workflow(DEMO / f"{name}.reuseit.yaml", page=page)
    assert result.status == "passed", failure_text(result)
    if name == "popup":
        assert page.locator("#supplier option:checked").inner_text() == "Summit Supply Co."
        assert len(page.context.pages) == 1  # the pop-up closed itself, the help tab was closed
    if name == "dialogs":
        assert [d.answer for s in result.steps for d in s.dialogs] == ["dismissed", "accepted", "accepted"]
        assert page.locator("#orders tbody tr").count() == 1
    if name == "frames":
        assert result.extracted["card_status"] == "Gift card ending 9010 redeemed"
    if name == "files":
        (download,) = result.downloads
        assert Path(download.path).read_text(encoding="utf-8").startswith("order,customer,total\n1001")
        assert result.extracted["export"] == download.path


@pytest.mark.slow
def test_two_runs_on_one_page_share_one_page_holder(page, fence, pages_url) -> None:  # type: ignore[no-untyped-def]
    """A second run on the same page must not leave a stale holder answering its dialogs."""
    dismissed = [{"action": "Delete", "do": [{"click": {"role": "button", "name": "Delete"}}]}]
    first = run(page, fence, pages_url, workflow(dismissed, "dialogs.html"))
    accepted = [{"action": "Delete", "do": [{"click": {"role": "button", "name": "Delete"}, "dialog": "accept"}]}]
    second = run(page, fence, pages_url, workflow(accepted, "dialogs.html"))
    assert first.status == second.status == "passed"
    assert page.inner_text("#status") == "Deleted"
    assert [d.answer for d in second.steps[0].dialogs] == ["accepted"]
    assert len(second.pages) == 1


def test_a_page_left_open_by_an_earlier_run_is_not_one_this_run_opened(page, fence, pages_url) -> None:  # type: ignore[no-untyped-def]
    tab = [{"action": "Open the help", "do": [{"click": {"role": "link", "name": "Open the help in a tab"}}]}]
    with page.context.expect_page() as opened:
        assert run(page, fence, pages_url, workflow(tab, "popup.html")).status == "passed"
    opened.value.wait_for_load_state()
    stay = [{"action": "Type a publisher", "do": [{"fill": {"label": "Publisher", "value": "Acme"}}]}]
    second = run(page, fence, pages_url, workflow(stay, "popup.html"))
    assert second.status == "passed", failure_text(second)
    assert second.unvisited_pages == []
