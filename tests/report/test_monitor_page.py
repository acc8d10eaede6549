"""monitor.html in a real Chromium, opened from its file as a reader opens it: what needs attention
first, one cell per suite run for every workflow run, the charts drawn by the inlined library, no
console error and no request leaving the file."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page

from pytest_reuseit.browser.session import BrowserSession
from pytest_reuseit.report import monitor

NIGHTS = 30
CART = "shop/cart.reuseit.yaml"
EVIL = "shop/<img src=x onerror=alert(1)>.reuseit.yaml"


def _night(i: int) -> str:
    return f"2024-05-{i + 1:02d}T02:23:00Z"


def status_of(test: str, night: int) -> str | None:
    """A month of a shop's nights: the cart button renamed on the last night (two variations, one
    cause), login broken for the last five, checkout needing its overlay fallback since last night,
    search failing once mid-month and fixed, a workflow added ten nights ago."""
    last = NIGHTS - 1
    if test.startswith(CART):
        return "failed" if night == last else "passed"
    if test.startswith("shop/login"):
        return "broken" if night >= last - 4 else "passed"
    if test.startswith("shop/checkout"):
        return "recovered" if night == last else "passed"
    if test.startswith("shop/search"):
        return "failed" if night in (14, 15) else "passed"
    if test.startswith("shop/wishlist"):
        return None if night < NIGHTS - 10 else "passed"
    return "skipped" if test.startswith("shop/legacy") and night % 7 == 0 else "passed"


TESTS = [
    (f"{CART}::cart[guest]", CART, "guest"),
    (f"{CART}::cart[member]", CART, "member"),
    ("shop/login.reuseit.yaml::login", "shop/login.reuseit.yaml", ""),
    ("shop/checkout.reuseit.yaml::checkout", "shop/checkout.reuseit.yaml", ""),
    ("shop/search.reuseit.yaml::search", "shop/search.reuseit.yaml", ""),
    ("shop/wishlist.reuseit.yaml::wishlist", "shop/wishlist.reuseit.yaml", ""),
    ("shop/legacy.reuseit.yaml::legacy", "shop/legacy.reuseit.yaml", ""),
    (f"{EVIL}::x", EVIL, "<b>v</b>"),
] + [(f"shop/page{i}.reuseit.yaml::page{i}", f"shop/page{i}.reuseit.yaml", "") for i in range(6)]


def recent() -> list[dict[str, Any]]:
    out = []
    for night in range(NIGHTS):
        runs = []
        for test, workflow, variation in TESTS:
            status = status_of(test, night)
            if status is None:
                continue
            slow = 3.0 if test.startswith("shop/checkout") and night == NIGHTS - 1 else 1.0
            runs.append(
                {
                    "test": test,
                    "workflow": workflow,
                    "variation": variation,
                    "status": status,
                    "duration": round((8 + (night * 7 + len(test)) % 5) * slow, 1),
                    "cost": 0.004 if status in ("recovered", "failed") else 0.0,
                    "calls": 2 if status in ("recovered", "failed") else 0,
                }
            )
        out.append({"id": f"run-{night}", "reported_at": _night(night), "runs": runs})
    return out


CAUSE = {
    "id": "c1",
    "summary": 'step 3 "add to cart": no button "Add to cart" on the product page',
    "tests": [f"{CART}::cart[guest]", f"{CART}::cart[member]"],
    "step": 3,
    "locator": 'get_by_role("button", name="Add to cart")',
    "first_seen": _night(NIGHTS - 1),
    "changed": {
        "removed": ['button "Add to cart"'],
        "added": ['button "Add to basket"', 'link "see http://127.0.0.2/tracker.png"'],
        "url": ["http://shop.test/p/1", "http://shop.test/p/1"],
        "title": ["Trail shoe – Shop", "Trail shoe | Shop"],
    },
}
LOGIN_CAUSE = {
    "id": "c2",
    "summary": "the login page did not answer in 30 s",
    "tests": ["shop/login.reuseit.yaml::login"],
}


def since_last() -> dict[str, Any]:
    def run(test: str, workflow: str, variation: str, status: str, **more: Any) -> dict[str, Any]:
        return {"test": test, "workflow": workflow, "variation": variation, "status": status} | more

    return {
        "new_failures": [
            run(f"{CART}::cart[guest]", CART, "guest", "failed", step=3, action="add to cart"),
            run(f"{CART}::cart[member]", CART, "member", "failed", step=3, action="add to cart"),
        ],
        "still_failing": [
            run(
                "shop/login.reuseit.yaml::login",
                "shop/login.reuseit.yaml",
                "",
                "broken",
                step=1,
                action="open the login page",
                since=_night(NIGHTS - 5),
                runs_failing=5,
            )
        ],
        "fixed": [],
        "newly_recovered": [
            run(
                "shop/checkout.reuseit.yaml::checkout",
                "shop/checkout.reuseit.yaml",
                "",
                "recovered",
                step=None,
                recovered=[{"step": 2, "action": "pay", "fallback": "close the cookie overlay"}],
            )
        ],
        "slower": [
            run(
                "shop/checkout.reuseit.yaml::checkout",
                "shop/checkout.reuseit.yaml",
                "",
                "recovered",
                duration=33.0,
                usual=11.0,
            )
        ],
        "flaky": [],
        "causes": [CAUSE, LOGIN_CAUSE],
    }


@pytest.fixture
def browser_page(browser_session: BrowserSession) -> Iterator[tuple[Page, list[str], list[str]]]:
    """A page of its own context, recording every request that is not the file itself (and
    refusing it) and every console error or page error."""
    context = browser_session.new_context({"viewport": {"width": 1280, "height": 900}}, None)
    fetched: list[str] = []
    errors: list[str] = []

    def refuse(route: Any) -> None:
        fetched.append(route.request.url)
        route.abort()

    context.route(lambda url: not url.startswith("file:"), refuse)
    page = context.new_page()
    page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.on("request", lambda req: None if req.url.startswith(("file:", "data:")) else fetched.append(req.url))
    yield page, fetched, errors
    context.close()


@pytest.mark.browser
@pytest.mark.slow
def test_monitor_page_in_chromium(tmp_path: Path, browser_page: tuple[Page, list[str], list[str]]) -> None:
    page, fetched, errors = browser_page
    path = monitor.write(tmp_path / "report", since_last(), recent())
    assert path == tmp_path / "report" / "monitor.html"
    page.goto(path.as_uri())
    page.wait_for_selector("#chart-rates canvas")

    # What needs attention comes first, the new failure under its one cause with what changed.
    sections = page.locator("section").evaluate_all("els => els.map(e => e.id)")
    assert sections == ["attention", "workflows", "trends"]
    assert page.locator("p.line").inner_text() == (
        "since the last run: 2 new failures (1 cause), 1 still failing, 0 fixed, 1 newly recovered, 1 slower"
    )
    attention = page.locator("#attention")
    headings = attention.locator("h3").all_inner_texts()
    assert [h.split()[0] for h in headings] == ["New", "Still", "Newly", "Slower"]
    cause = attention.locator("article.cause")
    assert cause.count() == 1
    assert 'no button "Add to cart" on the product page' in cause.locator("h4").inner_text()
    assert cause.locator(".diff .del").all_inner_texts() == ['− button "Add to cart"']
    assert cause.locator(".diff .add").first.inner_text() == '+ button "Add to basket"'
    assert "Trail shoe – Shop → Trail shoe | Shop" in cause.locator(".diff").inner_text()
    assert cause.locator("li").count() == 2
    still = attention.locator("table.list").first.inner_text()
    assert "shop/login.reuseit.yaml" in still and "2024-05-26 02:23 UTC" in still and "did not answer" in still
    assert "step 2 pay: close the cookie overlay" in attention.inner_text()

    # One cell per suite run in every row, the worst rows first, a row's missing nights shown.
    rows = page.locator("#workflows table.grid tr")
    assert rows.count() == 1 + len(TESTS)
    for i in range(1, rows.count()):
        assert rows.nth(i).locator("td.cell").count() == NIGHTS
    assert rows.nth(1).locator("td.wf").inner_text().startswith("shop/")
    first_rows = [rows.nth(i).locator("td.wf").inner_text() for i in (1, 2, 3)]
    assert {r.split()[0] for r in first_rows} == {CART, "shop/login.reuseit.yaml"}
    wishlist = page.locator("#workflows tr", has_text="wishlist")
    assert wishlist.locator("td.s-none").count() == NIGHTS - 10
    last_cell = rows.nth(1).locator("td.cell").last
    assert "failed" in (last_cell.get_attribute("class") or "")
    assert "2024-05-30 02:23 UTC: failed" in (last_cell.get_attribute("title") or "")

    # The charts drew: canvases with a size and with ink on them.
    for chart in ("#chart-rates", "#chart-cost"):
        box = page.locator(f"{chart} canvas").bounding_box()
        assert box is not None and box["width"] > 300 and box["height"] > 100
        inked = page.locator(f"{chart} canvas").evaluate(
            "c => { const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;"
            " let n = 0; for (let i = 3; i < d.length; i += 4) if (d[i]) n++; return n; }"
        )
        assert inked > 1000
    assert page.locator("#chart-rates .u-legend").inner_text().count("%") >= 3

    # Names from the suite are text, never markup.
    assert page.locator("img").count() == 0 and page.locator("#workflows b").count() == 0
    assert "<img src=x onerror=alert(1)>" in page.locator("#workflows").inner_text()
    assert errors == []
    assert fetched == []  # the library and its styles are inlined; nothing leaves the file


@pytest.mark.browser
def test_monitor_page_of_a_first_night(tmp_path: Path, browser_page: tuple[Page, list[str], list[str]]) -> None:
    page, fetched, errors = browser_page
    first = recent()[:1]
    path = monitor.write(tmp_path, {}, first)
    page.goto(path.as_uri())
    assert "Nothing: no new failure" in page.locator("#attention").inner_text()
    assert page.locator("p.line").inner_text() == (
        "since the last run: 0 new failures (0 causes), 0 still failing, 0 fixed, 0 newly recovered, 0 slower"
    )
    assert page.locator("#workflows td.cell").count() == len(first[0]["runs"])
    page.wait_for_selector("#chart-rates canvas")
    assert errors == [] and fetched == []


@pytest.mark.browser
def test_monitor_page_without_any_run(tmp_path: Path, browser_page: tuple[Page, list[str], list[str]]) -> None:
    page, fetched, errors = browser_page
    path = monitor.write(tmp_path, {"new_failures": "not a list", "causes": [None]}, [])
    page.goto(path.as_uri())
    assert "No run recorded yet." in page.locator("#workflows").inner_text()
    assert page.locator("canvas").count() == 0
    assert errors == [] and fetched == []


def test_monitor_page_is_one_file_with_the_library_inlined(tmp_path: Path) -> None:
    text = monitor.write(tmp_path, since_last(), recent()).read_text(encoding="utf-8")
    assert (monitor.VENDOR / "uPlot.iife.min.js").read_text(encoding="utf-8") in text
    assert "<script src" not in text and "<link" not in text
    assert 'button "Add to cart"' not in text  # escaped, as every value from the suite
    assert "button &quot;Add to cart&quot;" in text
    assert len(text.encode()) < 200_000


def test_no_value_from_the_environment_reaches_page_message_or_figures(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pytest_reuseit.report import alerts, metrics

    secret = "sk-env-secret-4b1d"
    for name in ("OPENAI_API_KEY", "DEMO_PASSWORD", "REUSEIT_ALERT_WEBHOOK", "REUSEIT_PUSHGATEWAY"):
        monkeypatch.setenv(name, secret)
    page = monitor.write(tmp_path, since_last(), recent()).read_text(encoding="utf-8")
    events = [
        {"kind": "failing", "test": t, "workflow": w, "variation": v, "cause": "c1", "since": ""} for t, w, v in TESTS
    ]
    text = str(alerts.message(events, [CAUSE]))
    figures = metrics.write_textfile(tmp_path / "m.prom", [r | {"usage": {}} for r in recent()[-1]["runs"]])
    for out in (page, text, figures.read_text(encoding="utf-8")):
        assert secret not in out


def test_lines_set_aside_as_the_page_s_own_churn_are_counted_on_the_page() -> None:
    changed = {"removed": [], "added": ['- button "Add to basket"'], "set_aside": {"removed": 0, "added": 1}}
    shown = monitor._changed(changed)  # noqa: SLF001 - one cause's page comparison, as the page writes it
    assert "+ button &quot;Add to basket&quot;" in shown
    assert "1 line that also differs between the last two passes set aside" in shown
    quiet = monitor._changed({"removed": [], "added": [], "set_aside": {"removed": 2, "added": 3}})  # noqa: SLF001
    assert "reads the same as when it last passed" in quiet and "5 lines" in quiet
    assert "set aside" not in monitor._changed({"removed": ["- x"], "added": []})  # noqa: SLF001
