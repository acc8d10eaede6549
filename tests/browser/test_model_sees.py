"""What the model sees: settled pages, ``mask:`` regions painted over, checks judged again only
when the page changed, and a warm rerun of a page that never holds still making no model call.

Real Chromium, the real client over HTTP to the local fake model server; the calls counted are
the requests that reached that server.
"""

from __future__ import annotations

import functools
import io
import time
from collections.abc import Callable, Iterator
from http.server import SimpleHTTPRequestHandler
from typing import Any

import pytest
from PIL import Image
from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import Page

from pytest_reuseit.browser import observe
from pytest_reuseit.browser.masking import REGION_COLOR
from pytest_reuseit.browser.observe import NetworkWatch, acted, watch_network
from pytest_reuseit.runtime import Runtime
from pytest_reuseit.sites import LocalSites
from pytest_reuseit.workflow.loader import parse
from tests.support.llm_server import FakeLLM, Request
from tests.support.paths import PAGES, ROOT
from tests.support.serve import Served

pytestmark = pytest.mark.browser

DEALS = ROOT / "workflows" / "demo" / "deals.reuseit.yaml"


def _shows(needle: str) -> Callable[[Request], dict[str, Any]]:
    """A model that answers from the page text it was sent: met when ``needle`` is in it."""

    def answer(req: Request) -> dict[str, Any]:
        seen = needle in req.text.split("<page_text>", 1)[-1]
        return {"met": seen, "explanation": f"The page {'shows' if seen else 'does not show'} '{needle}'."}

    return answer


@pytest.fixture
def runtime_overrides() -> dict[str, Any]:
    """This module's changes to the shared ``make_runtime`` settings (tests/conftest.py)."""
    return {"llm_retries": 0, "llm_timeout": 5}


# --------------------------------------------------------------------------- mask: and the cache


def _deals_model(fake: FakeLLM) -> None:
    fake.add_rule("condition_check", None, {"met": True, "explanation": "Yes."})


@pytest.mark.slow
def test_a_warm_rerun_of_the_masked_live_page_makes_no_model_call(
    make_runtime: Callable[..., Runtime], fake_llm_env: FakeLLM
) -> None:
    """The demo page ticks a clock every second and slides a carousel every 1.5 s; with both
    masked, the second run finds every answer in the cache."""
    _deals_model(fake_llm_env)
    loaded = parse(DEALS.read_text(), str(DEALS), builtin_names=LocalSites.NAMES)
    cold = make_runtime().run(loaded, None, "cold")
    assert cold.status == "passed", cold.message
    assert fake_llm_env.calls() == cold.usage.calls == 3  # pre, post and outcome checks
    time.sleep(1.6)  # the clock and the carousel have moved on
    warm = make_runtime().run(loaded, None, "warm")
    assert warm.status == "passed", warm.message
    assert fake_llm_env.calls() == 3 and warm.usage.calls == 0 and warm.usage.cache_hits == 3
    assert "mask: test_id='store-time'" in warm.steps[0].masked
    assert "mask: test_id='carousel'" in warm.steps[0].masked


@pytest.mark.slow
def test_without_the_mask_the_live_page_misses_the_cache(
    make_runtime: Callable[..., Runtime], fake_llm_env: FakeLLM
) -> None:
    """The control: the same workflow without ``mask:`` pays again on the rerun."""
    _deals_model(fake_llm_env)
    text = DEALS.read_text()
    unmasked = text.replace("mask:\n  - {test_id: store-time}\n  - {test_id: carousel}\n", "")
    assert unmasked != text and "mask:" not in unmasked.split("steps:")[0].split("\n# ")[-1]
    loaded = parse(unmasked, str(DEALS), builtin_names=LocalSites.NAMES)
    assert make_runtime().run(loaded, None, "cold").status == "passed"
    time.sleep(1.1)  # at least the clock has moved on
    warm = make_runtime().run(loaded, None, "warm")
    assert warm.status == "passed"
    assert warm.usage.calls >= 1


@pytest.mark.slow
def test_masked_regions_are_painted_in_the_picture_and_left_out_of_the_text(
    make_runtime: Callable[..., Runtime], fake_llm_env: FakeLLM, page, demo_url: str
) -> None:  # type: ignore[no-untyped-def]
    _deals_model(fake_llm_env)
    loaded = parse(DEALS.read_text(), str(DEALS), builtin_names=LocalSites.NAMES)
    assert make_runtime().run(loaded, None, "painted").status == "passed"
    page.set_viewport_size({"width": 1280, "height": 800})
    page.goto(f"{demo_url}/live.html?cookies=never")
    regions = {n: page.get_by_test_id(n).bounding_box() for n in ("store-time", "carousel")}
    heading = page.get_by_role("heading", name="Deals of the week").bounding_box()
    target = tuple(int(REGION_COLOR[i : i + 2], 16) for i in (1, 3, 5))
    for req in fake_llm_env.requests:
        (image,) = req.images
        img = Image.open(io.BytesIO(image)).convert("RGB")
        for name, b in regions.items():
            assert b is not None
            crop = img.crop(
                (int(b["x"]) + 3, int(b["y"]) + 3, int(b["x"] + b["width"]) - 3, int(b["y"] + b["height"]) - 3)
            )
            raw = crop.tobytes()
            worst = max(abs(raw[i + c] - target[c]) for i in range(0, len(raw), 3) for c in range(3))
            assert worst <= 40, f"{name} is not painted over in a picture sent to the model"
        assert heading is not None
        crop = img.crop(
            (
                int(heading["x"]),
                int(heading["y"]),
                int(heading["x"] + heading["width"]),
                int(heading["y"] + heading["height"]),
            )
        )
        lum = [sum(crop.getpixel((x, y))) / 3 for x in range(crop.width) for y in range(crop.height)]  # type: ignore[arg-type, misc]
        assert max(lum) - min(lum) > 120  # the heading, unmasked, is readable in the same picture
        page_text = req.text.split("<page_text>", 1)[1]
        assert "Deals of the week" in page_text and "[masked]" in page_text
        assert (
            "Store time" in page_text
            and "Trail shoes" not in page_text
            and " AM" not in page_text
            and " PM" not in page_text
        )


@pytest.fixture
def demo_url(make_runtime: Callable[..., Runtime]) -> str:
    return make_runtime(llm="off").builtins()["demo_url"]


# --------------------------------------------------------------------------- judged again only on change


LATE = """
name: Late status
task: Wait for the export
start_url: "{{base_url}}/masking/late.html?after={after}"
settings: {{retries: 0, check_timeout: {timeout}}}
steps:
  - action: Start the export
    do: [{{wait: 0}}]
    post: [The status says done]
"""


@pytest.mark.slow
def test_a_check_not_met_is_judged_again_when_the_page_changes(
    make_runtime: Callable[..., Runtime], fake_llm_env: FakeLLM
) -> None:
    """ "Working" for 800 ms, then "Done": the first answer is no, the page changes, the second is yes."""
    fake_llm_env.add_rule("condition_check", None, _shows("Status: done"))
    result = make_runtime(llm="live").run(parse(LATE.format(after=2500, timeout=8), "late.reuseit.yaml"), None, "late")
    assert result.status == "passed", result.message
    answers = [_shows("Status: done")(r)["met"] for r in fake_llm_env.requests]
    assert answers == [False, True]


@pytest.mark.slow
def test_a_steady_page_costs_one_call_then_fails_at_check_timeout(
    make_runtime: Callable[..., Runtime], fake_llm_env: FakeLLM
) -> None:
    fake_llm_env.add_rule("condition_check", None, _shows("Status: finished"))  # never shown
    fake_llm_env.add_rule(
        "challenge_analysis",
        None,
        {"where": "post", "why": "not done", "what": "-", "guidance": ["-"], "category": "product_defect"},
    )
    started = time.monotonic()
    result = make_runtime(llm="live").run(parse(LATE.format(after=0, timeout=1.5), "late.reuseit.yaml"), None, "steady")
    took = time.monotonic() - started
    assert result.status == "failed" and result.failed_phase == "post"
    assert "does not show 'Status: finished'" in result.message
    assert fake_llm_env.calls("condition_check") == 1
    assert took >= 1.5  # it did look again for a change, up to check_timeout


# --------------------------------------------------------------------------- settled pages


class _SlowHandler(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:  # noqa: A002
        pass

    def do_GET(self) -> None:
        if self.path == "/slow-orders":
            time.sleep(1.0)
            body = b"3"
            self.send_response(200)
            self.send_header("Content-Type", "text/plain")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            return
        super().do_GET()


@pytest.fixture
def slow_site() -> Iterator[str]:
    handler = functools.partial(_SlowHandler, directory=str(PAGES / "masking"))
    with Served(handler) as site:
        yield site.url


SLOW = """
name: Slow orders
task: Load the orders
start_url: "{base_url}/slow.html"
settings: {retries: 0, check_timeout: 5}
steps:
  - action: Load the orders
    do: [{click: "#load"}]
    post: [Three orders are listed]
"""


@pytest.mark.slow
@pytest.mark.parametrize("defer", ["", "frame"])
def test_the_screenshot_waits_for_the_request_in_flight(
    make_runtime: Callable[..., Runtime], fake_llm_env: FakeLLM, slow_site: str, defer: str
) -> None:
    """The click starts a 1 s request (at once, or after the next frame: nothing is in flight when
    the click returns, the picture is being taken when it starts); the check's picture is taken
    once it has answered: one call, met."""
    fake_llm_env.add_rule("condition_check", None, _shows("Orders: 3"))
    rt = make_runtime(llm="live", base_url=slow_site, screenshots="off")
    flow = SLOW.replace("slow.html", f"slow.html?defer={defer}") if defer else SLOW
    result = rt.run(parse(flow, "slow.reuseit.yaml"), None, "slow")
    assert result.status == "passed", result.message
    assert fake_llm_env.calls("condition_check") == 1


@pytest.mark.slow
def test_the_quiet_period_counts_from_the_last_request(page: Page) -> None:
    """A page that made no request since the run last acted is quiet at once (a request the action
    started and that was not reported yet shows up while the picture is taken, which is then taken
    again); one that made a request is quiet the quiet period after it."""

    class Fetch:  # what the watch reads of a request Playwright reports
        def is_navigation_request(self) -> bool:
            return False

    watch_network(page.context)
    watch = observe._WATCHES[page.context]  # noqa: SLF001 - the watch the captures read
    acted(page)
    assert watch.quiet_in() == 0
    watch.started(Fetch())
    assert watch.quiet_in() == NetworkWatch.POLL_S  # a request in flight: look again soon
    request = Fetch()
    watch.started(request)
    watch.inflight.clear()  # it answered
    assert 0 < watch.quiet_in() <= NetworkWatch.QUIET_S
    acted(page)  # the next action: nothing since
    assert watch.quiet_in() == 0


def test_a_look_with_no_time_left_on_a_page_that_never_loads_returns(page: Page, pages_url: str) -> None:
    """A look whose time is up (a check judged again at its deadline) settles with 1 ms, never
    with Playwright's timeout of 0, which waits for ever: on a page whose load event never
    comes (an image that never answers), it would hang the run."""
    page.route("**/never.png", lambda route: None)  # never answered: the load event never fires
    page.set_content(f'<p>loading</p><img src="{pages_url}/never.png">', wait_until="commit")
    started = time.monotonic()
    observe.settle(page, 0)
    view = observe.capture_view(page, settle_ms=0, text_chars=100)
    assert time.monotonic() - started < 5
    assert view.image and "loading" in view.text
    page.unroute("**/never.png")


@pytest.mark.slow
def test_a_look_at_a_page_whose_frame_never_loads_returns(page: Page, pages_url: str) -> None:
    """A frame whose document never comes (a hung payment provider) has nothing to freeze or paint:
    Playwright's evaluate in it would wait for ever, and every check in words on the page with it."""
    page.route("**/other.html", lambda route: None)  # the frame's document: never answered
    page.goto(f"{pages_url}/hung.html", wait_until="domcontentloaded")
    started = time.monotonic()
    view = observe.capture_view(page, settle_ms=1000, text_chars=100, steady=True)
    assert time.monotonic() - started < 10
    assert view.image and "Checkout" in view.text
    page.unroute("**/other.html")


# --------------------------------------------------------------------------- the picture itself


def test_a_look_pictures_the_page_as_playwright_does_byte_for_byte(page: Page, pages_url: str) -> None:
    """A look takes its picture with the DevTools call Playwright's screenshot makes, one frame
    sooner: the bytes are the same, so a cache filled by an older version still answers."""
    page.set_viewport_size({"width": 800, "height": 600})
    page.goto(f"{pages_url}/masking/slow.html")
    view = observe.capture_view(page, settle_ms=1000)
    theirs = page.screenshot(type="jpeg", quality=70, animations="disabled", caret="hide")
    assert view.image == theirs
    assert page in observe._SHOOTERS  # noqa: SLF001 - taken by the DevTools call, not the fallback
    assert observe.capture_view(page, settle_ms=1000).image == theirs  # the kept session, again


def test_a_look_whose_devtools_session_was_closed_takes_a_new_one(page: Page, pages_url: str) -> None:
    page.goto(f"{pages_url}/masking/slow.html")
    first = observe.capture_view(page, settle_ms=1000).image
    gone = observe._SHOOTERS[page]  # noqa: SLF001 - the session the looks keep
    gone.detach()  # as a crashed renderer or a closed tab leaves it
    assert observe.capture_view(page, settle_ms=1000).image == first  # Playwright's own call
    assert observe.capture_view(page, settle_ms=1000).image == first
    assert observe._SHOOTERS[page] is not gone  # noqa: SLF001 - a new session kept


def test_a_look_at_a_closed_page_raises_playwrights_error(page: Page, pages_url: str) -> None:
    page.goto(f"{pages_url}/masking/slow.html")
    observe.capture_view(page, settle_ms=1000)
    other = page.context.new_page()
    page.close()
    with pytest.raises(PlaywrightError, match="closed"):
        observe.capture_view(page, settle_ms=1000)
    other.close()
