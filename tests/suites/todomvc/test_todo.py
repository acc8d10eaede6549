"""TodoMVC's plain JavaScript example tested with pytest-playwright, as teams write such suites:
locators by placeholder and role beside the page's ids; run with ``--tracing on``."""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect


def test_add_a_todo(page: Page, todo_url: str) -> None:
    page.goto(todo_url)
    page.get_by_placeholder("What needs to be done?").fill("water the plants")
    page.get_by_placeholder("What needs to be done?").press("Enter")
    expect(page.locator("#todo-list li")).to_have_count(1)
    expect(page.locator("#todo-count")).to_have_text("1 item left")


def test_complete_a_todo(page: Page, todo_url: str) -> None:
    page.goto(todo_url)
    page.locator("#new-todo").fill("walk the dog")
    page.locator("#new-todo").press("Enter")
    page.locator("#todo-list li .toggle").check()
    expect(page.locator("#todo-list li .toggle")).to_be_checked()
    expect(page.locator("#clear-completed")).to_be_visible()


def test_show_completed(page: Page, todo_url: str) -> None:
    page.goto(todo_url)
    page.locator("#new-todo").fill("pay the rent")
    page.locator("#new-todo").press("Enter")
    page.get_by_role("link", name="Completed").click()
    expect(page).to_have_url(re.compile(r"#/completed$"))
    expect(page.locator("#todo-list li")).to_have_count(0)
