"""What a run saw of each step's page (its ARIA snapshot), and what changed since the run last passed.

Real Chromium on pages served on 127.0.0.1: the snapshot never shows a password field's value, a
secret's, or what is left of a secret in a field that kept part of it; a workflow that passed once
(its run recorded in the history) and then fails because a button was renamed says so in its
result, its analysis, its run record and its Allure result; a first failure says nothing of
changes; a history that cannot be read is a warning, never a failed run.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from playwright.sync_api import Page

from pytest_reuseit.browser.aria import PageSnapshot, compare, hide, page_snapshot
from pytest_reuseit.report import history, records
from pytest_reuseit.runtime import Runtime
from pytest_reuseit.workflow.loader import parse
from tests.support.nightly_site import WORKFLOWS, Night, handler
from tests.support.serve import Served

PLAIN = "plain-pass-4417"  # a password typed from an ordinary parameter, not a secret
TOKEN = 'tok: "Zq81"-9'  # a secret the snapshot writes escaped ("tok: \"Zq81\"-9")
CODE = "98765432"  # a secret typed into a field that keeps six characters of it

SIGN_IN = {
    "name": "Sign in",
    "task": "Sign in as {user}",
    "start_url": "{base_url}/changes/login.html",
    "params": {"user": "ada", "password": PLAIN},
    "settings": {"retries": 0, "action_timeout": 2, "check_timeout": 2},
    "steps": [
        {
            "action": "Fill in the form",
            "do": [
                {"fill": {"css": "#user", "value": "{user}"}},
                {"fill": {"css": "#password", "value": "{password}"}},
                {"fill": {"css": "#token", "value": "{secret.REUSEIT_CHANGES_TOKEN}"}},
                {"fill": {"css": "#code", "value": "{secret.REUSEIT_CHANGES_CODE}"}},
                {"fill": {"css": "#backup", "value": "{password}"}},  # in an open shadow root
                {"fill": {"selector": "#frame >> internal:control=enter-frame >> #pin", "value": "{password}"}},
            ],
        },
        {
            "action": "Sign in",
            "do": [{"click": {"role": "button", "name": "Sign in"}}],
            "post": [{"expect": {"text": {"role": "status", "equals": "Signed in as ada"}}}],
        },
    ],
}


def _leaks(text: str) -> list[str]:
    """The secret or password values (or what is left of them) that ``text`` shows."""
    shown = [PLAIN, TOKEN, "Zq81", CODE, CODE[:6]]
    return [value for value in shown if value in text]


@pytest.mark.slow
def test_the_snapshot_never_shows_a_password_or_a_secret(
    make_runtime: Callable[..., Runtime], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("REUSEIT_CHANGES_TOKEN", TOKEN)
    monkeypatch.setenv("REUSEIT_CHANGES_CODE", CODE)
    rt = make_runtime(llm="off")
    rt.step_pages = True  # as the plugin has it when the run records are kept (--alluredir)
    result = rt.run(parse(yaml.safe_dump(SIGN_IN, sort_keys=False), "sign-in.reuseit.yaml"), None, "sign-in")
    assert result.status == "passed", result.message
    filled, signed_in = result.steps
    assert 'textbox "Password": ***' in filled.page_aria
    assert 'textbox "Backup password": ***' in filled.page_aria
    assert 'textbox "API token": ***' in filled.page_aria
    assert 'textbox "Code": ***' in filled.page_aria
    # What is not a secret stays readable: the snapshot is for comparing pages.
    assert 'textbox "User": ada' in filled.page_aria
    assert "status: Signed in as ada" in signed_in.page_aria
    assert (signed_in.page_title, signed_in.page_url.endswith("/changes/login.html")) == ("Sign in", True)
    assert 'heading "Sign in" [level=1]' in result.start_page_aria
    for text in (result.start_page_aria, filled.page_aria, signed_in.page_aria):
        assert _leaks(text) == [], text


@pytest.mark.slow
def test_without_records_only_the_failing_step_s_page_is_taken(
    make_runtime: Callable[..., Runtime], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("REUSEIT_CHANGES_TOKEN", TOKEN)
    monkeypatch.setenv("REUSEIT_CHANGES_CODE", CODE)
    wrong = yaml.safe_load(yaml.safe_dump(SIGN_IN))
    wrong["steps"][1]["post"] = [{"expect": {"text": {"role": "status", "equals": "Signed in as bob"}}}]
    # The status says "Signed in as ada" at once and never changes: how long the check looks again
    # before it fails changes nothing of what the failing step's page shows.
    wrong["settings"]["check_timeout"] = 0.5
    rt = make_runtime(llm="off")
    result = rt.run(parse(yaml.safe_dump(wrong, sort_keys=False), "sign-in.reuseit.yaml"), None, "sign-in")
    assert (result.status, result.failed_step) == ("failed", 2)
    assert (result.start_page_aria, result.steps[0].page_aria) == ("", "")
    assert "status: Signed in as ada" in result.steps[1].page_aria
    assert 'textbox "Password": ***' in result.steps[1].page_aria
    assert _leaks(result.steps[1].page_aria) == []
    assert result.changed is None  # no history: nothing to compare with


@pytest.mark.slow
def test_a_closed_page_gives_an_empty_snapshot(page: Page, pages_url: str) -> None:
    other = page.context.new_page()
    other.goto(f"{pages_url}/changes/login.html")
    assert "Sign in" in page_snapshot(other, str).aria
    other.close()
    assert page_snapshot(other, str) == PageSnapshot()


def test_a_password_field_s_value_is_hidden_as_the_snapshot_writes_it() -> None:
    aria = "\n".join(
        [
            '- textbox "Password": "a\\"b: c"',  # escaped: the value is a"b: c
            '- textbox "PIN": pw',  # short: hidden where it is a field's value only
            "- paragraph: a pw here",
            '- textbox "Spaces": my pass',  # the snapshot folds white space
            '- button "Open tok: \\"Zq81\\"-9 now"',  # a secret in a name, escaped
            "- paragraph: the-long-password echoed",
        ]
    )
    shown = hide(aria, ['a"b: c', "pw", "my \t pass", "the-long-password"], lambda t: t.replace(TOKEN, "***"))
    assert shown.splitlines() == [
        '- textbox "Password": ***',
        '- textbox "PIN": ***',
        "- paragraph: a pw here",
        '- textbox "Spaces": ***',
        '- button "Open *** now"',
        "- paragraph: *** echoed",
    ]


# --------------------------------------------------------------------------- the last pass


@pytest.fixture(scope="module")
def shop() -> Iterator[tuple[Night, str]]:
    """The nightly shop; the test changes ``Night`` between pytest runs, as a deploy would."""
    night = Night()
    with Served(handler(night)) as site:
        yield night, site.url


@pytest.fixture
def night_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """No model and no reuseit setting of this process's environment reach the nights' sessions."""
    for name in list(os.environ):
        if name.startswith(("OPENAI_", "REUSEIT_")):
            monkeypatch.delenv(name)


def _pytest(pytester: pytest.Pytester, results: str, base_url: str, *args: str) -> pytest.RunResult:
    """A night's pytest session in this process (a session of its own, with its own browser), from
    and on ``pytester.path``; a Python start and the imports less than a subprocess."""
    return pytester.runpytest(
        "-p", "no:cacheprovider", "-q", "-rA", "--alluredir", results, "--base-url", base_url, *args, str(pytester.path)
    )


def _report(root: Path, results: str) -> None:
    """What ``reuseit report`` does with the night's records: append them to the history."""
    with history.writing(root / history.DEFAULT_PATH) as kept:
        kept.append(records.read_all(root / results))


def _record(root: Path, results: str, name: str) -> dict[str, Any]:
    found = [r for r in records.read_all(root / results) if name in r["test"]]
    assert len(found) == 1, found
    return found[0]


def _allure(root: Path, results: str, title: str) -> dict[str, Any]:
    found = [json.loads(p.read_text()) for p in (root / results).glob("*-result.json")]
    return next(r for r in found if r["name"] == title)


def _attachments(result: dict[str, Any]) -> list[dict[str, Any]]:
    """Every attachment of an Allure result, the test's own and its steps' (nested)."""
    out = list(result.get("attachments", []))
    todo = list(result.get("steps", []))
    while todo:
        step = todo.pop()
        out.extend(step.get("attachments", []))
        todo.extend(step.get("steps", []))
    return out


@pytest.mark.slow
def test_a_renamed_button_shows_as_one_line_gone_and_one_new_since_the_last_pass(
    shop: tuple[Night, str], pytester: pytest.Pytester, night_env: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("REUSEIT_LLM", "off")
    night, url = shop
    tmp_path = pytester.path
    night.add_label = "Add to cart"
    (tmp_path / "add-shoes.reuseit.yaml").write_text(WORKFLOWS["add-shoes.reuseit.yaml"])
    # Every step's screenshot kept: the last pass's is shown beside the failure's.
    keep = ("--reuseit-artifacts", "always", "--reuseit-screenshots", "steps")
    first = _pytest(pytester, "night1", url, *keep)
    assert first.ret == 0, first.stdout.str() + first.stderr.str()
    passed = _record(tmp_path, "night1", "add-shoes")
    assert passed["changed"] is None
    # The page of every step is in the record (and the start page as step 0), for the history.
    assert [s["index"] for s in passed["steps"]] == [0, 1]
    assert 'button "Add to cart"' in passed["steps"][0]["aria"]
    assert "status: 1 item in cart" in passed["steps"][1]["aria"]
    _report(tmp_path, "night1")

    # The next night the button is renamed; a workflow added since has never passed.
    night.add_label = "Add to basket"
    (tmp_path / "add-hat.reuseit.yaml").write_text(WORKFLOWS["add-hat.reuseit.yaml"])
    second = _pytest(pytester, "night2", url, *keep)
    assert second.ret == 1, second.stdout.str() + second.stderr.str()
    since = history.last_pass(tmp_path / history.DEFAULT_PATH, passed["test"])
    assert since is not None
    failed = _record(tmp_path, "night2", "add-shoes")
    assert failed["status"] == "failed" and failed["step"] == 1
    changed = failed["changed"]
    assert changed["removed"] == ['- button "Add to cart"'], changed
    assert changed["added"] == ['- button "Add to basket"'], changed
    assert changed["since"] == since.when
    assert changed["url"][0] == changed["url"][1] and changed["title"] == ["Trail shoes - Shop"] * 2

    # The why says it without a model, as the first line every summary shows.
    allure = _allure(tmp_path, "night2", "Add the shoes to the cart [default]")
    message = allure["statusDetails"]["message"]
    assert f"Since the run last passed ({since.when}), the page of step 1 changed" in message
    assert 'gone: button "Add to cart"; new: button "Add to basket"' in message
    assert 'gone: button "Add to cart"' in second.stdout.str()
    # The attachment beside the failure reads as a person wants it.
    named = [a for a in _attachments(allure) if a["name"] == "changed since the last pass"]
    assert len(named) == 2  # in the failing step and beside the challenge analysis
    text = (tmp_path / "night2" / named[0]["source"]).read_text()
    assert f"Changed since the last pass ({since.when}), on the page of step 1" in text
    assert '  - button "Add to cart"' in text and '  + button "Add to basket"' in text
    assert "1 line(s) gone since then:" in text and "1 line(s) new since then:" in text
    pictures = [a for a in _attachments(allure) if a["name"].startswith("the last pass")]
    assert [a["name"] for a in pictures] == [f"the last pass ({since.when}): step 1 before action"]
    assert (tmp_path / "night2" / pictures[0]["source"]).read_bytes()[:2] == b"\xff\xd8"  # a JPEG

    # A first failure (no pass in the history) says nothing of changes, and does not crash.
    first_failure = _record(tmp_path, "night2", "add-hat")
    assert first_failure["status"] == "failed" and first_failure["changed"] is None
    hat = _allure(tmp_path, "night2", "Add the hat to the cart [default]")
    assert "since the run last passed" not in hat["statusDetails"]["message"].lower()
    assert not [a for a in _attachments(hat) if a["name"] == "changed since the last pass"]


@pytest.mark.slow
def test_a_history_that_cannot_be_read_is_a_warning_and_the_runs_go_on(
    shop: tuple[Night, str], pytester: pytest.Pytester, night_env: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("REUSEIT_LLM", "off")
    night, url = shop
    tmp_path = pytester.path
    night.add_label = "Add to basket"
    (tmp_path / "add-shoes.reuseit.yaml").write_text(WORKFLOWS["add-shoes.reuseit.yaml"])
    broken = tmp_path / "nightly.sqlite"
    broken.write_bytes(b"not a database at all\n" * 10)
    before = broken.read_bytes()
    run = _pytest(pytester, "results", url, "--reuseit-history", "nightly.sqlite")
    out = run.stdout.str()
    # Failed for its own reason (the renamed button), not an error of the plugin.
    assert run.ret == 1, out + run.stderr.str()
    assert "1 failed" in out and "error" not in out.splitlines()[-1]
    assert f"history {broken}: not a reuseit history" in out
    assert "runs were not compared with their last pass" in out
    assert _record(tmp_path, "results", "add-shoes")["changed"] is None
    assert broken.read_bytes() == before


@pytest.mark.slow
def test_the_agent_s_view_of_a_page_never_shows_a_password(page: Page, pages_url: str) -> None:
    """The agent reads the page through the same kind of snapshot: a password field's value, typed
    from a plain parameter, must not reach the model either (the AI-mode snapshot prints it)."""
    from pytest_reuseit.browser.observe import observe

    page.goto(f"{pages_url}/changes/login.html")
    page.locator("#user").fill("ada")
    page.locator("#password").fill(PLAIN)
    raw = page.aria_snapshot(mode="ai")
    assert PLAIN in raw  # what Playwright gives: the trap this guards against
    seen = observe(page)
    assert PLAIN not in seen.text and "***" in seen.text
    assert "ada" in seen.text  # what is not a password stays readable


@pytest.mark.slow
def test_a_known_defect_s_xfail_and_an_unjudged_skip_are_no_news_for_the_night(
    shop: tuple[Night, str], pytester: pytest.Pytester, night_env: None
) -> None:
    """pytest's verdict, not only the run's, decides what a record counts as: an expected failure
    (xfail, a known defect) and a run skipped because its checks could not be judged are recorded
    as skipped, so the night's report neither calls them new failures nor alerts on them."""
    night, url = shop
    tmp_path = pytester.path
    night.add_label = "Add to basket"  # the add workflows fail tonight
    known = WORKFLOWS["add-hat.reuseit.yaml"].replace(
        "steps:", 'marks:\n  - xfail: {reason: "SHOP-7: the add button was renamed", strict: true}\nsteps:', 1
    )
    (tmp_path / "add-hat.reuseit.yaml").write_text(known)
    (tmp_path / "add-shoes.reuseit.yaml").write_text(WORKFLOWS["add-shoes.reuseit.yaml"])
    words_only = WORKFLOWS["deals.reuseit.yaml"].replace("        expect: {visible: {text: Trail shoes -20%}}\n", "")
    (tmp_path / "deals.reuseit.yaml").write_text(words_only)
    # The model as the environment has it: none (night_env), so the check in words is not judged.
    run = _pytest(pytester, "results", url)
    assert "1 failed, 1 skipped, 1 xfailed" in run.stdout.str(), run.stdout.str()
    assert _record(tmp_path, "results", "add-hat")["status"] == "skipped"  # xfailed
    assert _record(tmp_path, "results", "deals")["status"] == "skipped"  # its check in words not judged
    assert _record(tmp_path, "results", "add-shoes")["status"] == "failed"


# --------------------------------------------------------------------------- the page's own churn

SIDEBAR = ['- navigation "Sidebar":', '  - link "Books"', '  - link "Publishers"']


def _page(*lines: str) -> PageSnapshot:
    return PageSnapshot("http://127.0.0.1/p", "P", "\n".join(lines))


def test_lines_that_differ_between_the_last_two_passes_are_set_aside_and_counted() -> None:
    base = ['- heading "Trail shoes" [level=1]', '- button "Add to cart"']
    earlier = _page(*base, '- button "Toggle navigation": «', *SIDEBAR)  # the sidebar open
    then = _page(*base, '- button "Toggle navigation": »')  # closed: no change of the site
    now = _page(
        '- heading "Trail shoes" [level=1]', '- button "Add to basket"', '- button "Toggle navigation": «', *SIDEBAR
    )
    changed = compare(then, now, earlier=earlier)
    assert changed["removed"] == ['- button "Add to cart"'] and changed["added"] == ['- button "Add to basket"']
    assert changed["set_aside"] == {"removed": 1, "added": 4}
    # One pass known: today's comparison, every line, and no set_aside.
    alone = compare(then, now)
    assert "set_aside" not in alone and len(alone["added"]) == 5 and len(alone["removed"]) == 2
    assert compare(then, now, earlier=_page()) == alone  # an earlier pass with no page of that point


def test_a_line_both_passes_had_is_a_change_when_it_goes_whatever_churns_around_it() -> None:
    earlier = _page('- heading "Books"', '- link "Log out"', *SIDEBAR)
    then = _page('- heading "Books"', '- link "Log out"')
    # The sidebar churns, and the link both passes showed is gone: that is the change.
    now = _page('- heading "Books"', *SIDEBAR)
    changed = compare(then, now, earlier=earlier)
    assert changed["removed"] == ['- link "Log out"'] and changed["added"] == []
    assert changed["set_aside"] == {"removed": 0, "added": 3}
    # Counts too: a row both passes showed twice, once now, is a row gone.
    twice = ['- row "Dune"', '- row "Dune"']
    one_gone = compare(_page(*twice), _page('- row "Dune"'), earlier=_page(*twice, '- row "Emma"'))
    assert one_gone["removed"] == ['- row "Dune"'] and one_gone["set_aside"] == {"removed": 0, "added": 0}
    # A line seen once in one pass and twice in the other is churn anywhere between, a change beyond.
    assert compare(_page(*twice), _page('- row "Dune"'), earlier=_page('- row "Dune"'))["removed"] == []
    beyond = compare(_page(*twice), _page(*twice, '- row "Dune"'), earlier=_page('- row "Dune"'))
    assert beyond["added"] == ['- row "Dune"'] and beyond["set_aside"] == {"removed": 0, "added": 0}


def test_a_real_change_on_a_line_that_churns_shows_as_its_new_line_only() -> None:
    """The documented limit: a line one pass had and the other not cannot be told gone; the line
    that replaced it is new to both passes, so the change is still listed, from that side."""
    earlier = _page('- heading "Books"', *SIDEBAR)
    then = _page('- heading "Books"')
    now = _page('- heading "Books"', '- navigation "Sidebar":', '  - link "Titles"', '  - link "Publishers"')
    changed = compare(then, now, earlier=earlier)
    assert changed["removed"] == [] and changed["added"] == ['- link "Titles"']
    assert changed["set_aside"] == {"removed": 0, "added": 2}


def test_a_local_site_on_another_port_is_the_same_address() -> None:
    """A test server or an app a fixture starts listens on a new port each session: that alone is
    no change of the page. Another path, another host, or a remote site's port still is."""
    from pytest_reuseit.engine.analysis import changes_text

    aria = '- heading "Books"'
    then = PageSnapshot("http://127.0.0.1:34255/admin/books/?q=1", "Books", aria)
    same = compare(then, PageSnapshot("http://127.0.0.1:35631/admin/books/?q=1", "Books", aria))
    assert same["url"][0] == same["url"][1] == "http://127.0.0.1:35631/admin/books/?q=1"
    assert "->" not in changes_text(same)
    for elsewhere in (
        "http://127.0.0.1:35631/admin/authors/?q=1",
        "http://127.0.0.1:35631/admin/books/?q=2",
        "http://10.0.0.7:34255/admin/books/?q=1",
    ):
        moved = compare(then, PageSnapshot(elsewhere, "Books", aria))
        assert moved["url"] == [then.url, elsewhere], moved
    remote = PageSnapshot("https://shop.example:8443/cart", "Cart", aria)
    assert compare(remote, PageSnapshot("https://shop.example:9443/cart", "Cart", aria))["url"][0] == remote.url


def test_a_value_new_on_every_visit_is_churn_when_the_passes_showed_it_ticking() -> None:
    """A last-login time: 10:01 in the pass before, 10:02 in the last, 10:03 now. Neither pass
    showed 10:03, but both showed that line with other numbers: the page's own churn. A count the
    two passes showed the same and that differs now is a change."""
    earlier = _page('- heading "Account"', "- text: Last login 10:01", "- status: Basket 1")
    then = _page('- heading "Account"', "- text: Last login 10:02", "- status: Basket 1")
    now = _page('- heading "Your account"', "- text: Last login 10:03", "- status: Basket 2")
    changed = compare(then, now, earlier=earlier)
    assert changed["removed"] == ['- heading "Account"', "- status: Basket 1"], changed
    assert changed["added"] == ['- heading "Your account"', "- status: Basket 2"], changed
    assert changed["set_aside"] == {"removed": 1, "added": 1}
    # With one pass known, the clock's line is listed like any other.
    alone = compare(then, now)
    assert "- text: Last login 10:03" in alone["added"] and "set_aside" not in alone
