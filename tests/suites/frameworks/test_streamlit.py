"""A Streamlit tool's flows, as its team tests them with pytest-playwright (``--tracing on``)."""

from __future__ import annotations

from pathlib import Path

from playwright.sync_api import Page, expect


def test_greet_a_customer(page: Page, app_url: str) -> None:
    page.goto(app_url)
    page.get_by_label("Customer name").fill("Ada Lovelace")
    page.get_by_label("Customer name").press("Enter")
    page.get_by_test_id("stBaseButton-primary").click()
    expect(page.get_by_text("Hello, Ada Lovelace!")).to_be_visible()


def test_read_an_orders_file(page: Page, app_url: str, orders_csv: Path) -> None:
    page.goto(app_url)
    page.get_by_test_id("stFileUploaderDropzoneInput").set_input_files(orders_csv)
    expect(page.get_by_text("3 orders")).to_be_visible()


def test_edit_a_quantity_in_the_grid(page: Page, app_url: str) -> None:
    page.goto(app_url)
    expect(page.get_by_text("Total quantity: 3")).to_be_visible()
    # The grid is drawn on a canvas: the cell of the second row's quantity, by where it is.
    page.get_by_test_id("stDataFrame").dblclick(position={"x": 240, "y": 88})
    expect(page.get_by_test_id("portal").get_by_role("textbox")).to_be_visible()  # the cell's editor
    page.keyboard.type("5")
    page.keyboard.press("Enter")
    expect(page.get_by_text("Total quantity: 6")).to_be_visible()
