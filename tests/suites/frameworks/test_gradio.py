"""A Gradio tool's flows, as its team tests them with pytest-playwright (``--tracing on``)."""

from __future__ import annotations

from pathlib import Path

from playwright.sync_api import Page, expect


def test_greet_a_customer(page: Page, app_url: str) -> None:
    page.goto(app_url)
    page.get_by_label("Customer name").fill("Ada Lovelace")
    page.get_by_role("button", name="Greet").click()
    expect(page.get_by_label("Greeting")).to_have_value("Hello, Ada Lovelace!")


def test_count_an_orders_file(page: Page, app_url: str, orders_csv: Path) -> None:
    page.goto(app_url)
    page.locator("input[type=file]").set_input_files(orders_csv)
    expect(page.get_by_label("Summary")).to_have_value("3 orders")
