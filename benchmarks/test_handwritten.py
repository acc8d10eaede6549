"""The benchmark workflow (benchmarks/workflows/bench.reuseit.yaml) written by hand with Playwright.

Same steps, same locators, same ``expect`` calls (with the workflow's check_timeout of 5 s), same
browser context options and timeouts as pytest-reuseit gives the run. It is a normal pytest test:

    pytest benchmarks/test_handwritten.py -p no:cacheprovider

and ``benchmarks/bench_engine.py`` imports :func:`handwritten_run` to time it against the
workflow run by pytest-reuseit.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, expect, sync_playwright

from pytest_reuseit.browser.session import DEFAULT_ARGS, default_executable
from pytest_reuseit.sites import SiteServer

PRODUCT = "trail shoes"
ITEM = "Trail Hiking Shoes"
PRICE = "$119.00"
CHECK_TIMEOUT = 5_000  # settings.check_timeout of the workflow, in ms
ACTION_TIMEOUT = 10_000  # settings.action_timeout (default 10 s)
STEP_TIMEOUT = 30_000  # settings.step_timeout: the navigation timeout
CONTEXT = {"viewport": {"width": 1280, "height": 800}, "locale": "en-US"}


def handwritten_run(browser: Browser, demo_url: str) -> None:
    """One run: a fresh context and page, the four steps with their checks, then close."""
    context = browser.new_context(**CONTEXT)
    try:
        page = context.new_page()
        page.set_default_timeout(ACTION_TIMEOUT)
        page.set_default_navigation_timeout(STEP_TIMEOUT)
        page.goto(f"{demo_url}/index.html?cookies=never&delay=0", wait_until="load")

        # 1. Search for the product.
        page.get_by_role("searchbox", name="Search products").fill(PRODUCT)
        page.get_by_role("button", name="Search", exact=True).click()
        expect(page).to_have_url(re.compile(re.escape("/search.html?q=")), timeout=CHECK_TIMEOUT)
        expect(page.get_by_role("heading", name=f"Results for {PRODUCT}")).to_be_visible(timeout=CHECK_TIMEOUT)

        # 2. Only the in-stock ones: two results.
        page.get_by_label("In stock only").check()
        expect(page.get_by_label("In stock only")).to_be_checked(timeout=CHECK_TIMEOUT)
        expect(page.locator("css=.result")).to_have_count(2, timeout=CHECK_TIMEOUT)
        expect(page.locator("css=#result-count")).to_have_text("2 results", timeout=CHECK_TIMEOUT)

        # 3. Open the product page and check its price.
        page.get_by_role("link", name=ITEM).click()
        expect(page.get_by_role("heading", name=ITEM, exact=True)).to_be_visible(timeout=CHECK_TIMEOUT)
        expect(page.get_by_test_id("price")).to_have_text(PRICE, timeout=CHECK_TIMEOUT)

        # 4. Set the quantity.
        page.get_by_label("Quantity").fill("2")
        expect(page.get_by_label("Quantity")).to_have_value("2", timeout=CHECK_TIMEOUT)
        expect(page.get_by_role("button", name="Add to cart")).to_be_enabled(timeout=CHECK_TIMEOUT)
    finally:
        context.close()


def launch(playwright) -> Browser:  # type: ignore[no-untyped-def]
    """Chromium with the launch settings pytest-reuseit uses (Debian's Chromium, same flags)."""
    kwargs = {"headless": True, "args": list(DEFAULT_ARGS)}
    exe = default_executable()
    if exe:
        kwargs["executable_path"] = exe
    return playwright.chromium.launch(**kwargs)


@pytest.fixture(scope="module")
def demo_url() -> Iterator[str]:
    with SiteServer() as sites:
        yield sites.demo_url


@pytest.fixture(scope="module")
def bench_browser() -> Iterator[Browser]:
    with sync_playwright() as pw:
        browser = launch(pw)
        yield browser
        browser.close()


def test_search_filter_open_product(bench_browser: Browser, demo_url: str) -> None:
    handwritten_run(bench_browser, demo_url)
