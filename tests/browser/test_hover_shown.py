"""A look compared with another session's does not depend on where the pointer rests.

Real Chromium on a page served on 127.0.0.1 whose rows show a delete button only under the pointer
(as TodoMVC's do): a plain look shows the hovered row's button and not the others', so two looks
of the same page differ by where the pointer happened to be; a look with the hover parts shown is
the same wherever the pointer rests, shows what each :hover rule shows (in a media rule too), and
leaves the page as it was (the sheet is dropped, the buttons hidden again).
"""

from __future__ import annotations

import time

import pytest
from playwright.sync_api import Page

from pytest_reuseit.browser.aria import page_snapshot
from pytest_reuseit.browser.hover import hover_parts_shown
from pytest_reuseit.mutation.touches import aria_of


def _open(page: Page, pages_url: str) -> None:
    page.goto(f"{pages_url}/hover.html")


def _look(page: Page, hover_shown: bool) -> str:
    return page_snapshot(page, lambda text: text, hover_shown=hover_shown).aria


def _looks(page: Page, pages_url: str, hover_shown: bool) -> tuple[str, str]:
    """The page looked at with the pointer on the cat's row, then with it far from every row."""
    _open(page, pages_url)
    page.hover("text=feed the cat")
    over_row = _look(page, hover_shown)
    page.hover("#far")
    return over_row, _look(page, hover_shown)


def test_a_plain_look_depends_on_where_the_pointer_rests(page: Page, pages_url: str) -> None:
    over_row, elsewhere = _looks(page, pages_url, hover_shown=False)
    assert 'button "Delete cat"' in over_row
    assert "Delete cat" not in elsewhere
    assert "Delete cheese" not in over_row


def test_a_look_with_hover_parts_shown_is_the_same_wherever_the_pointer_rests(page: Page, pages_url: str) -> None:
    over_row, elsewhere = _looks(page, pages_url, hover_shown=True)
    assert over_row == elsewhere
    for shown in ('button "Delete cheese"', 'button "Delete cat"', "(opens the guide)", "Settings"):
        assert shown in elsewhere
    assert aria_of(page) == elsewhere  # the mutation recorder's look is this one


def test_the_page_is_left_as_it_was(page: Page, pages_url: str) -> None:
    _open(page, pages_url)
    page.hover("#far")
    with hover_parts_shown(page):
        assert page.locator("text=Delete cheese").is_visible()
        assert page.evaluate("() => document.adoptedStyleSheets.length") == 1
    assert page.evaluate("() => document.adoptedStyleSheets.length") == 0
    assert not page.locator("text=Delete cheese").is_visible()


def test_a_closed_page_gives_an_empty_look(page: Page, pages_url: str) -> None:
    _open(page, pages_url)
    other = page.context.new_page()
    other.goto(f"{pages_url}/hover.html")
    other.close()
    with hover_parts_shown(other):  # never raises: a look must not change a run's verdict
        pass
    assert _look(other, hover_shown=True) == ""


@pytest.mark.slow
def test_a_stuck_page_holds_each_of_its_two_calls_one_second_at_most(page: Page, pages_url: str) -> None:
    """A page whose script never yields: showing the hover parts gives up after its timeout, as
    the look itself does, instead of waiting for ever."""
    stuck = page.context.new_page()  # a page of its own: the stuck one is closed, not reused
    _open(stuck, pages_url)
    stuck.evaluate("() => { setTimeout(() => { for (;;) {} }, 50); }")
    time.sleep(0.1)
    started = time.monotonic()
    with hover_parts_shown(stuck):
        pass
    took = time.monotonic() - started
    stuck.close()
    assert 1.9 < took < 3.0, took  # both of its calls waited their bound, and no longer
