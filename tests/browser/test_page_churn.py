"""A page that changes part of itself from run to run is not a changed site.

Real Chromium on a shop page served on 127.0.0.1 whose navigation sidebar a script opens or
closes once the page has loaded (as Django's admin does, from what the browser remembers): the
two passing nights differ by the sidebar, the third night fails because the add button was
renamed. What the failure reports as changed since the last pass is the renamed button, the
sidebar's lines are set aside and counted; with one pass only in the history, every line is
listed as before. And a look at the page waits, briefly, for the load event that runs such
scripts.
"""

from __future__ import annotations

import html
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler
from pathlib import Path

import pytest
from playwright.sync_api import Page

from pytest_reuseit.browser.aria import SETTLE_TIMEOUT_MS, page_snapshot
from pytest_reuseit.engine.result import RunResult
from pytest_reuseit.report import history, records
from pytest_reuseit.report.allure_adapter import changed_text
from pytest_reuseit.runtime import Runtime
from pytest_reuseit.workflow.loader import parse
from tests.support.serve import Served

TEST = "shop/add.reuseit.yaml::Add the shoes[default]"
SIDEBAR_LINES = ['- navigation "Sidebar":', '- link "Shoes":', '- link "Jackets":', '- link "Hats":']


@dataclass
class Site:
    label: str = "Add to cart"
    sidebar: bool = True  # what the page's script does once loaded: open the sidebar or leave it closed
    image_delay: float = 0.0  # seconds the page's picture takes: the load event waits for it


def _product(site: Site) -> str:
    links = "".join(f'<li><a href="/{n.lower()}">{n}</a></li>' for n in ("Shoes", "Jackets", "Hats"))
    return f"""<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Trail shoes - Shop</title></head>
<body><button id="toggle" type="button" aria-label="Toggle navigation">&raquo;</button>
<nav id="side" aria-label="Sidebar" hidden><ul>{links}</ul></nav>
<main><h1>Trail shoes</h1><img src="/picture" alt="">
<button id="add" type="button">{html.escape(site.label)}</button>
<p role="status" id="cart">Cart is empty</p></main>
<script>
// Once the page has loaded, the sidebar opens or stays closed: the app's own choice, not the site changing.
window.addEventListener('load', () => {{
  const open = {"true" if site.sidebar else "false"};
  document.getElementById('side').hidden = !open;
  document.getElementById('toggle').textContent = open ? '\\u00ab' : '\\u00bb';
}});
document.getElementById('add').addEventListener('click', () => {{
  document.getElementById('cart').textContent = '1 item in cart';
}});
</script></body></html>"""


def _handler(site: Site) -> type[BaseHTTPRequestHandler]:
    class Shop(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: object) -> None:  # noqa: A002
            pass

        def do_GET(self) -> None:
            if self.path == "/picture":
                time.sleep(site.image_delay)
                body, kind = b"<svg xmlns='http://www.w3.org/2000/svg' width='1' height='1'/>", "image/svg+xml"
            else:
                body, kind = _product(site).encode(), "text/html; charset=utf-8"
            try:
                self.send_response(200)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
            except OSError:
                pass  # the page went away while its picture was held back

    return Shop


@pytest.fixture(scope="module")
def shop() -> Iterator[tuple[Site, str]]:
    site = Site()
    with Served(_handler(site)) as served:
        yield site, served.url


ADD = """name: Add the shoes
task: Put the shoes in the cart
start_url: "{base_url}/product"
settings: {retries: 0, action_timeout: 1, check_timeout: 2}
steps:
  - action: Click "Add to cart"
    do:
      - click: {role: button, name: Add to cart}
    post:
      - check: The cart holds one item
        expect: {text: {role: status, equals: 1 item in cart}}
"""


def _night(rt: Runtime, root: Path) -> RunResult:
    """One night: the run, then what ``reuseit report`` does with its record (append it to the history)."""
    result = rt.run(parse(ADD, "shop/add.reuseit.yaml"), None, TEST)
    with history.writing(root / history.DEFAULT_PATH) as kept:
        kept.append([records.record_of(result, TEST)])
    return result


def _stripped(lines: list[str]) -> list[str]:
    return [line.strip() for line in lines]


@pytest.mark.slow
def test_the_sidebar_a_script_opens_or_not_is_set_aside_and_the_renamed_button_is_the_change(
    shop: tuple[Site, str], make_runtime: Callable[..., Runtime], tmp_path: Path
) -> None:
    site, url = shop
    rt = make_runtime(llm="off", base_url=url)
    rt.step_pages = True  # as the plugin has it when the run records are kept (--alluredir)
    site.label, site.sidebar = "Add to cart", True
    first = _night(rt, tmp_path)
    site.sidebar = False  # the second night the script leaves the sidebar closed: the site did not change
    second = _night(rt, tmp_path)
    assert (first.status, second.status) == ("passed", "passed"), (first.message, second.message)
    assert 'link "Shoes"' in first.start_page_aria and 'link "Shoes"' not in second.start_page_aria

    site.label, site.sidebar = "Add to basket", True  # the third: the button renamed, the sidebar open again
    failed = _night(rt, tmp_path)
    assert (failed.status, failed.failed_step, failed.failed_phase) == ("failed", 1, "action")
    changed = failed.changed
    assert changed is not None
    assert changed["removed"] == ['- button "Add to cart"'], changed
    assert changed["added"] == ['- button "Add to basket"'], changed
    # The sidebar's lines and the toggle's two states are set aside; the count, and when the pass
    # before the last ran, travel with the comparison.
    kept = history.last_pass(tmp_path / history.DEFAULT_PATH, TEST)
    assert kept is not None and kept.earlier is not None
    # navigation, list, 3 list items, 3 links and their 3 addresses, the open toggle; the closed one
    assert changed["set_aside"] == {"removed": 1, "added": 12, "since": kept.earlier.when}
    assert changed["since"] == kept.when
    # The why names the rename only, and says how much it left out.
    why = failed.analysis.why if failed.analysis else ""
    assert 'gone: button "Add to cart"; new: button "Add to basket"' in why
    assert "(13 lines that also differ between the last two passes set aside)." in why
    assert 'link "Shoes"' not in why
    assert failed.analysis is not None and "Add to basket" in failed.analysis.guidance[0]
    # The Allure attachment (its text) lists the change and counts what it set aside.
    text = changed_text(failed)
    assert "13 line(s) set aside (1 gone, 12 new): they differ between the last two passes" in text
    assert '  - button "Add to cart"' in text and '  + button "Add to basket"' in text
    assert "Shoes" not in text


@pytest.mark.slow
def test_with_one_pass_known_every_line_that_differs_is_listed_as_before(
    shop: tuple[Site, str], make_runtime: Callable[..., Runtime], tmp_path: Path
) -> None:
    site, url = shop
    rt = make_runtime(llm="off", base_url=url)
    rt.step_pages = True
    site.label, site.sidebar = "Add to cart", False
    assert _night(rt, tmp_path).status == "passed"
    site.label, site.sidebar = "Add to basket", True
    failed = _night(rt, tmp_path)
    assert failed.status == "failed" and failed.changed is not None
    changed = failed.changed
    # Nothing tells the sidebar from a change with one pass: it is listed, and nothing is set aside.
    assert "set_aside" not in changed
    assert _stripped(changed["removed"]) == ['- button "Toggle navigation": »', '- button "Add to cart"']
    assert [line for line in SIDEBAR_LINES if line not in _stripped(changed["added"])] == []
    assert '- button "Add to basket"' in changed["added"] and len(changed["added"]) == 13
    assert failed.analysis is not None and "set aside" not in failed.analysis.why
    assert "set aside" not in changed_text(failed)


@pytest.mark.slow
def test_a_look_at_the_page_waits_for_its_load_event_but_not_for_ever(shop: tuple[Site, str], page: Page) -> None:
    """The sidebar is opened by a load listener, and the load event waits for the page's picture:
    a look taken as soon as the document arrives still sees the page as its scripts leave it, and
    a picture that never comes holds the look back SETTLE_TIMEOUT_MS at most."""
    site, url = shop
    site.sidebar, site.image_delay = True, 0.3
    try:
        page.goto(f"{url}/product", wait_until="commit")
        seen = page_snapshot(page, str)
        assert 'link "Shoes"' in seen.aria and 'button "Toggle navigation": «' in seen.aria
        site.image_delay = 5.0  # the picture never comes in time: the look goes ahead without it
        page.goto(f"{url}/product", wait_until="domcontentloaded")
        started = time.monotonic()
        late = page_snapshot(page, str)
        waited = time.monotonic() - started
        assert 'button "Add to' in late.aria and 'link "Shoes"' not in late.aria  # not loaded yet: taken as it is
        assert SETTLE_TIMEOUT_MS / 1000 <= waited < SETTLE_TIMEOUT_MS / 1000 + 1.0, waited
    finally:
        site.image_delay = 0.0
        page.goto("about:blank")
