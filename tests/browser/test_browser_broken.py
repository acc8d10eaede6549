"""Broken paths in a real Chromium: unreachable sites, the navigation fence, a browser that dies
mid-run, and remote browsers: a Playwright browser server or run-server (``--reuseit-connect``), a
Chromium with remote debugging (``--reuseit-cdp``).

A small recording HTTP server on 127.0.0.2 (loopback, but not an allowed host for the ``fence``
fixture) shows that a blocked navigation never reaches the network.
"""

from __future__ import annotations

import os
import re
import signal
import socket
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, sync_playwright

from pytest_reuseit.browser.session import BrowserConfig, BrowserSession, NavigationFence, host_allowed
from pytest_reuseit.engine.context import RunOptions
from pytest_reuseit.engine.ports import AgentOutcome, Models
from pytest_reuseit.engine.result import RunResult
from pytest_reuseit.engine.runner import execute
from pytest_reuseit.errors import BrokenRun
from tests.support.browser_server import BrowserServer, CdpChromium, RunServer
from tests.support.serve import Served
from tests.support.threaded_runtime import PRESS_A, ThreadedRuntime, load, workflow

pytestmark = pytest.mark.browser


# --------------------------------------------------------------------------- helpers


class Recorder:
    """HTTP server that records every request; ``/status/NNN`` answers NNN, anything else a small page."""

    def __init__(self, host: str = "127.0.0.2") -> None:
        self.requests: list[str] = []
        self._cond = threading.Condition()
        recorder = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 - stdlib name
                with recorder._cond:
                    recorder.requests.append(self.path)
                    recorder._cond.notify_all()
                status = int(self.path.split("/")[2]) if self.path.startswith("/status/") else 200
                body = f"<!doctype html><title>Recorder</title><p id='msg'>recorded {self.path}</p>".encode()
                self.send_response(status)
                self.send_header("Content-Type", "text/html")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, format: str, *args: object) -> None:  # noqa: A002
                pass

        self._served = Served(Handler, host)
        self.url = self._served.url

    def wait_for(self, path: str, timeout: float) -> bool:
        with self._cond:
            return self._cond.wait_for(lambda: path in self.requests, timeout)

    def close(self) -> None:
        self._served.close()


@pytest.fixture
def recorder() -> Iterator[Recorder]:
    rec = Recorder()
    yield rec
    rec.close()


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def run(page, fence, pages_url: str, text: str, models: Models | None = None) -> RunResult:  # type: ignore[no-untyped-def]
    return execute(
        page,
        load(text),
        builtins={"base_url": pages_url},
        options=RunOptions(screenshots="off"),
        models=models or Models(),
        blocked=fence.blocked,
    )


@contextmanager
def other_page_never_answers(page: Page) -> Iterator[None]:
    """``other.html`` is asked for and never answered while the block runs: its request goes on to
    a server that takes the connection and never writes a byte (a hung server). Not a route left
    unanswered: a request held by the route itself could stop the driver answering any call on a
    loaded machine (a ``wait_for_function`` waited past its timeout, 2 whole-file runs of 9 with
    three files running at once), which a real hung server does not do."""
    hung = socket.socket()
    hung.bind(("127.0.0.1", 0))
    hung.listen(16)  # the kernel completes the connections; nobody reads them
    url = f"http://127.0.0.1:{hung.getsockname()[1]}/other.html"
    page.route("**/other.html", lambda route: route.continue_(url=url))
    try:
        yield
    finally:
        if not page.is_closed():  # a run may have closed it as unresponsive
            page.unroute("**/other.html")
        hung.close()


# --------------------------------------------------------------------------- unreachable / erroring start_url


# The hung frame's page never fires its load event: each wait for it (the start's, each op's, the
# frame check's) runs out, so they are kept short; a second still lets a loaded machine press A.
_HUNG_WAITS = {"action_timeout": 1, "check_timeout": 1}


@pytest.mark.slow
@pytest.mark.parametrize("how", ["start_url", "goto"])
def test_a_page_whose_frame_never_answers_is_judged_not_broken(page, fence, pages_url, how) -> None:  # type: ignore[no-untyped-def]
    """A hung frame (a payment provider that never answers) keeps the page's load event from ever
    firing. The page is there all the same: the run goes on and its checks judge it, so a check of
    the page passes and a check of the frame fails (failed at that step, not broken at the start).
    Its load never comes, so every wait for it is waited out: the waits are 1 s, the step's 10 s."""
    frame_check = {"expect": {"visible": {"frame": "#payment", "css": "h1"}}}
    steps = [{**PRESS_A[0]}, {"action": "Look at the payment form", "do": [], "post": [frame_check]}]
    start = "{base_url}/hung.html"
    if how == "goto":
        steps.insert(0, {"action": "Open the checkout", "do": [{"goto": start}]})
        start = "{base_url}/recovery.html"
    started = time.monotonic()
    with other_page_never_answers(page):
        result = run(page, fence, pages_url, workflow(steps, start=start, settings=_HUNG_WAITS))
    assert time.monotonic() - started < 10  # the 10 s step_timeout is not waited out at the start
    assert result.status == "failed", result.message
    assert result.failed_step == len(steps) and result.failed_phase == "post", result.message
    assert [s.status for s in result.steps[:-1]] == ["passed"] * (len(steps) - 1)
    # Playwright's expect waits for ever inside a frame that never loads: the check names the frame.
    assert "the frame selector='#payment' did not show its page within 1s" in result.message, result.message


@pytest.mark.slow
@pytest.mark.parametrize("do", [{"click": {"role": "link", "name": "Docs"}}, {"goto": "{base_url}/other.html"}])
def test_a_page_whose_server_never_answers_is_named_not_taken_for_a_stuck_script(page, fence, pages_url, do) -> None:  # type: ignore[no-untyped-def]
    """Playwright waits for a navigation in flight before anything else it does on the page, so a
    document the server never answers left the page as silent as an endless loop; the report
    blamed a script on the page. It names the address that did not answer within the navigation
    budget (its own setting: the op's element wait is not the page's load)."""
    steps = [
        {
            "action": "Open the docs",
            "do": [do],
            "post": [{"expect": {"visible": {"css": "#heading"}}}],
            "fallback": [{"do": [{"click": "#fa"}], "redo": True}],
            "retries": 1,
        }
    ]
    with other_page_never_answers(page):
        result = run(
            page,
            fence,
            pages_url,
            workflow(steps, start="{base_url}/ops.html", settings={"action_timeout": 1, "navigation_timeout": 1}),
        )
    assert result.status == "failed" and result.failed_step == 1 and result.failed_phase == "action"
    words = f"{pages_url}/other.html did not answer within 1s (navigation_timeout), so the page was closed"
    assert words in result.message
    assert "endless loop" not in result.message
    # The fallback meets the closed page: it is told so, not taken for a browser that went away.
    attempt = result.steps[0].attempts[0]
    assert "not tried: the page was closed earlier in this run, when it stopped responding" in attempt.note
    assert not result.infrastructure and "went away" not in result.message
    assert result.analysis is not None and result.analysis.category == "page_not_ready"
    assert "never answered" in " ".join(result.analysis.guidance)


@pytest.mark.slow
def test_a_script_check_on_a_page_waiting_for_a_document_that_never_comes_names_it(page, fence, pages_url) -> None:  # type: ignore[no-untyped-def]
    """The same for a check: the page leaves on its own after the action (a redirect in a timer)
    to a server that never answers, and the `js` check that waits on the page names the address.
    The redirect goes to the hung server itself, not through a route: with a route rewriting the
    request, the driver stopped answering after the page was closed, 2 whole-suite runs of 4."""
    hung = socket.socket()
    hung.bind(("127.0.0.1", 0))
    hung.listen(16)  # the kernel completes the connections; nobody reads them
    other = f"http://127.0.0.1:{hung.getsockname()[1]}/other.html"
    steps = [
        {
            "action": "Wait for the redirect",
            "do": [{"eval": f"void setTimeout(() => {{ location.href = '{other}'; }}, 50)"}],
            "post": [{"expect": {"js": "document.title === 'The other page'"}}],
            "retries": 0,
        }
    ]
    try:
        result = run(
            page,
            fence,
            pages_url,
            workflow(steps, start="{base_url}/ops.html", settings={"check_timeout": 1, "navigation_timeout": 1}),
        )
    finally:
        hung.close()
    assert result.status == "failed" and result.failed_step == 1 and result.failed_phase == "post", result.message
    assert f"{other} did not answer within 1s (navigation_timeout), so the page was closed" in result.message
    assert result.analysis is not None and result.analysis.category == "page_not_ready"
    assert "endless loop" not in result.message


@pytest.mark.slow
def test_start_url_on_a_closed_port_is_broken_quickly(page, fence, pages_url) -> None:  # type: ignore[no-untyped-def]
    url = f"http://127.0.0.1:{closed_port()}/"
    started = time.monotonic()
    result = run(page, fence, pages_url, workflow(PRESS_A, start=url))
    assert time.monotonic() - started < 5
    assert result.status == "broken" and result.label == "broken"
    assert result.failed_phase == "start" and result.steps == []
    assert "unreachable" in result.message and "ERR_CONNECTION_REFUSED" in result.message
    assert result.analysis is not None and result.analysis.category == "infrastructure"
    assert result.start_url == url


@pytest.mark.slow
def test_start_url_404_fails_not_broken(page, fence, pages_url) -> None:  # type: ignore[no-untyped-def]
    result = run(page, fence, pages_url, workflow(PRESS_A, start="{base_url}/missing-page.html"))
    assert result.status == "failed"
    assert result.failed_phase == "start" and result.steps == []
    assert result.message == f"start_url {pages_url}/missing-page.html answered HTTP 404"
    assert result.analysis is not None and result.analysis.category == "site_changed"


def test_start_url_500_is_broken(page, fence, pages_url) -> None:  # type: ignore[no-untyped-def]
    local = Recorder("127.0.0.1")
    try:
        result = run(page, fence, pages_url, workflow(PRESS_A, start=f"{local.url}/status/500"))
    finally:
        local.close()
    assert result.status == "broken"
    assert result.message == f"start_url {local.url}/status/500 answered HTTP 500: the site is down"
    assert local.requests == ["/status/500"]


# --------------------------------------------------------------------------- the navigation fence


class _NoAgent:
    """An agent that must not be asked (blocked ops are not healed)."""

    calls = 0

    def perform(self, *args: Any, **kwargs: Any) -> AgentOutcome:
        self.calls += 1
        return AgentOutcome(False, [], "should not be called")


@pytest.mark.parametrize("target", ["recorder", "example.invalid"])
@pytest.mark.slow
def test_goto_outside_allowed_domains_is_blocked(page, fence, pages_url, recorder, target) -> None:  # type: ignore[no-untyped-def]
    url = f"{recorder.url}/secret-page" if target == "recorder" else "http://example.invalid/"
    agent = _NoAgent()
    steps = [{"action": "Leave the site", "do": [{"goto": url}]}]
    result = run(page, fence, pages_url, workflow(steps, start="{base_url}/recovery.html"), Models(agent=agent))
    assert result.status == "failed" and result.failed_phase == "action"
    assert "navigation blocked" in result.message and "outside allowed_domains" in result.message
    assert fence.blocked == [url] and result.blocked_navigation == [url]
    assert recorder.requests == []  # nothing left for the other host
    assert page.url == f"{pages_url}/recovery.html"
    assert agent.calls == 0
    assert result.analysis is not None and result.analysis.category == "site_changed"
    assert any("allowed_domains" in g for g in result.analysis.guidance)


@pytest.mark.parametrize("target", ["recorder", "example.invalid"])
@pytest.mark.slow
def test_link_to_another_host_is_blocked(page, fence, pages_url, recorder, target) -> None:  # type: ignore[no-untyped-def]
    url = f"{recorder.url}/linked" if target == "recorder" else "http://example.invalid/"
    steps = [
        {
            "action": "Follow the external link",
            "do": [{"eval": f"document.getElementById('away').href = {url!r}"}, {"click": "#away"}],
            "post": [{"expect": {"url": {"contains": "/linked" if target == "recorder" else "example.invalid"}}}],
        }
    ]
    result = run(
        page, fence, pages_url, workflow(steps, start="{base_url}/recovery.html", settings={"check_timeout": 0.5})
    )
    assert result.status == "failed" and result.failed_phase == "post"
    assert result.blocked_navigation == [url] and fence.blocked == [url]
    assert recorder.requests == []
    # Chromium shows its error page for the aborted navigation; the other host's page never loads
    assert page.url in (f"{pages_url}/recovery.html", "chrome-error://chromewebdata/")
    assert result.final_url == page.url


@pytest.mark.parametrize("url", ["file:///etc/passwd", "chrome://version", "javascript:alert(1)", "127.0.0.1:9/x"])
def test_a_start_url_that_is_not_a_web_address_is_broken_before_the_browser_goes_there(
    page, fence, pages_url, url
) -> None:  # type: ignore[no-untyped-def]
    # A file:// page would show the machine's files to the model and in the reports; a missing
    # scheme read as "outside allowed_domains"; javascript: waited out the step timeout.
    page.goto(f"{pages_url}/recovery.html")
    result = run(page, fence, pages_url, workflow(PRESS_A, start=url))
    assert result.status == "broken"
    assert result.message == f"start_url {url} is not a web address: write it with http:// or https://"
    assert page.url == f"{pages_url}/recovery.html"
    assert result.analysis is not None and "Write it with http:// or https://" in " ".join(result.analysis.guidance)


@pytest.mark.slow
def test_a_goto_to_a_local_file_is_broken_and_the_file_never_shown(page, fence, pages_url) -> None:  # type: ignore[no-untyped-def]
    steps = [{"action": "Open the password file", "do": [{"goto": "file:///etc/passwd"}]}]
    result = run(page, fence, pages_url, workflow(steps, start="{base_url}/recovery.html"))
    assert result.status == "broken"
    assert "goto file:///etc/passwd: not a web address; write it with http:// or https://" in result.message
    assert page.url == f"{pages_url}/recovery.html"


def test_start_url_outside_allowed_domains_is_broken(page, fence, pages_url, recorder) -> None:  # type: ignore[no-untyped-def]
    url = f"{recorder.url}/start"
    result = run(page, fence, pages_url, workflow(PRESS_A, start=url))
    assert result.status == "broken"
    assert result.message == f"start_url {url} is outside allowed_domains"
    assert result.analysis is not None and result.analysis.category == "infrastructure"
    assert recorder.requests == []


# --------------------------------------------------------------------------- Runtime: allowed_domains from the file


@pytest.fixture(scope="module")
def runtime(tmp_path_factory, pages_url) -> Iterator[ThreadedRuntime]:  # type: ignore[no-untyped-def]
    rt = ThreadedRuntime(tmp_path_factory.mktemp("runtime"), base_url=pages_url, screenshots="off")
    yield rt
    rt.close()


@pytest.mark.slow
def test_runtime_fences_to_allowed_domains_from_the_file(runtime, recorder) -> None:  # type: ignore[no-untyped-def]
    # the file allows only localhost: its own start_url on 127.0.0.1 is outside
    text = workflow(PRESS_A, start="{base_url}/recovery.html", allowed_domains=["localhost"])
    result = runtime.run(text, "allowed-localhost")
    assert result.status == "broken" and "outside allowed_domains" in result.message


@pytest.mark.slow
def test_runtime_default_fence_is_the_start_url_host(runtime, pages_url) -> None:  # type: ignore[no-untyped-def]
    port = pages_url.rsplit(":", 1)[1]
    steps = [{"action": "Go to the same pages via localhost", "do": [{"goto": f"http://localhost:{port}/other.html"}]}]
    result = runtime.run(workflow(steps, start="{base_url}/recovery.html"), "default-fence")
    assert result.status == "failed" and "navigation blocked" in result.message
    assert result.blocked_navigation == [f"http://localhost:{port}/other.html"]
    ok = runtime.run(workflow(PRESS_A, start="{base_url}/recovery.html"), "default-fence-ok")
    assert ok.status == "passed", ok.message


# --------------------------------------------------------------------------- browser crash mid-run


def _children() -> dict[int, list[int]]:
    out: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        out.setdefault(ppid, []).append(int(entry))
    return out


def browser_processes() -> dict[int, str]:
    """Chromium main processes started (via Playwright's driver) by this test process: pid -> user-data-dir."""
    tree = _children()
    mine, todo = set(), [os.getpid()]
    while todo:
        for child in tree.get(todo.pop(), []):
            if child not in mine:
                mine.add(child)
                todo.append(child)
    found: dict[int, str] = {}
    for pid in mine:
        try:
            args = [a.decode(errors="replace") for a in Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0") if a]
        except OSError:
            continue
        if not args or "chrom" not in os.path.basename(args[0]) or any(a.startswith("--type=") for a in args):
            continue
        data_dir = next((a.split("=", 1)[1] for a in args if a.startswith("--user-data-dir=")), None)
        if data_dir:
            found[pid] = data_dir
    # A process the browser has just forked shows the browser's own command line until it execs
    # its helper: the same browser, not a second one (seen once on a fresh clone's run).
    parent = {child: ppid for ppid, children in tree.items() for child in children}
    return {pid: d for pid, d in found.items() if parent.get(pid) not in found}


@pytest.mark.slow  # kills a Chromium and launches another
def test_browser_crash_mid_run_is_broken_and_the_next_run_starts_a_fresh_browser(tmp_path, pages_url, recorder) -> None:  # type: ignore[no-untyped-def]
    rt = ThreadedRuntime(tmp_path, base_url=pages_url, screenshots="steps")
    try:
        before = browser_processes()
        first = rt.call(rt.runtime.session.browser)
        ours = {pid: d for pid, d in browser_processes().items() if pid not in before}
        assert len(ours) == 1, ours
        ((pid, data_dir),) = ours.items()

        # The page asks for /started right before the step's long wait: once the recorder has seen
        # that request the run is inside step 1, however slow the machine is.
        steps = [
            {"action": "Wait a while", "do": [{"eval": "fetch('/started').then(() => 1)"}, {"wait": 60000}]},
            {"action": "Never reached", "do": [{"wait": 0}]},
        ]
        started = time.monotonic()
        text = workflow(steps, start=f"{recorder.url}/crash.html", settings={"step_timeout": 90})
        running = rt.submit(rt.runtime.run, load(text), None, "crash")
        assert recorder.wait_for("/started", timeout=60), "the run never reached its first step"
        killed_at = time.monotonic()
        os.kill(pid, signal.SIGKILL)
        result = running.result(timeout=60)
        ended = time.monotonic()
        assert result.status == "broken", result.message
        assert ended - killed_at < 3  # the run noticed the crash; it did not sit out the wait
        assert ended - started < 60
        assert "the browser went away" in result.message
        assert [s.status for s in result.steps] == ["broken"]
        assert result.failed_step == 1
        assert result.analysis is not None and result.analysis.category == "infrastructure"
        assert not rt.call(first.is_connected)

        # the same Runtime goes on with a fresh browser
        again = rt.run(workflow(PRESS_A, start="{base_url}/recovery.html"), "after-crash")
        assert again.status == "passed", again.message
        second = rt.call(rt.runtime.session.browser)
        assert second is not first and rt.call(second.is_connected)
        fresh = {p: d for p, d in browser_processes().items() if p not in before}
        assert pid not in fresh and len(fresh) == 1 and data_dir not in fresh.values()
    finally:
        rt.close()


# --------------------------------------------------------------------------- --reuseit-connect


@pytest.fixture
def browser_server(tmp_path) -> Iterator[BrowserServer]:  # type: ignore[no-untyped-def]
    server = BrowserServer()
    yield server
    server.stop()


@pytest.mark.slow  # the browser server is a subprocess
def test_connect_runs_on_a_remote_browser_server(browser_server, tmp_path, pages_url) -> None:  # type: ignore[no-untyped-def]
    rt = ThreadedRuntime(tmp_path, base_url=pages_url, connect=browser_server.endpoint, screenshots="off")
    try:
        local_before = set(browser_processes())
        result = rt.run(workflow(PRESS_A, start="{base_url}/recovery.html"), "connect")
        assert result.status == "passed", result.message
        assert rt.runtime.session.config.connect == browser_server.endpoint
        # no Chromium was launched by this process itself (the server's was already running); one
        # of an earlier test still closing may be gone by now, which says nothing of this run
        assert not set(browser_processes()) - local_before
        # and the run depends on that server: without it the next run cannot start
        browser_server.stop()
        started = time.monotonic()
        with pytest.raises(BrokenRun) as err:
            rt.run(workflow(PRESS_A, start="{base_url}/recovery.html"), "connect-gone")
        assert time.monotonic() - started < 10
        assert browser_server.endpoint in str(err.value) and "is the browser server running and reachable?" in str(
            err.value
        )
    finally:
        rt.close()


@pytest.mark.slow
def test_connect_to_an_unreachable_server_is_broken_not_a_hang(tmp_path, pages_url) -> None:  # type: ignore[no-untyped-def]
    endpoint = f"ws://127.0.0.1:{closed_port()}/nobody"
    rt = ThreadedRuntime(tmp_path, base_url=pages_url, connect=endpoint)
    started = time.monotonic()
    try:
        with pytest.raises(BrokenRun) as err:
            rt.run(workflow(PRESS_A, start="{base_url}/recovery.html"), "unreachable")
    finally:
        rt.close()
    assert time.monotonic() - started < 10
    message = str(err.value)
    assert message.startswith(f"cannot start the browser ({endpoint}):")
    assert "ECONNREFUSED" in message and "is the browser server running and reachable?" in message


SCALE_WORKFLOW = (
    'name: scale\ntask: open the demo shop\nstart_url: "{demo_url}/index.html?cookies=never"\n'
    "variations: [{id: a}, {id: b}, {id: c}, {id: d}]\n"
    "steps:\n  - action: look\n    do: [{wait: 1}]\n    post: [{expect: {title: {contains: Trailhead}}}]\n"
)


def run_two_workers(pytester: pytest.Pytester, *remote: str) -> pytest.RunResult:
    """Four variations over `-n 2` workers on a remote browser; a Chromium path that cannot be
    launched proves nothing was launched locally."""
    pytester.path.joinpath("scale.reuseit.yaml").write_text(SCALE_WORKFLOW)
    return pytester.runpytest_subprocess(
        "-p", "no:cacheprovider", "-n", "2", "--reuseit-llm", "off", *remote,
        "--reuseit-browser-path", "/nonexistent/chromium",
    )  # fmt: skip


@pytest.mark.slow
def test_connect_with_xdist_workers_runs_on_a_playwright_run_server(pytester: pytest.Pytester) -> None:
    """`playwright run-server` (what a pool of Playwright browser nodes runs) launches a browser per client."""
    with RunServer() as server:
        result = run_two_workers(pytester, "--reuseit-connect", server.endpoint)
    result.assert_outcomes(passed=4)
    assert "4 passed, 0 recovered, 0 healed, 0 failed, 0 broken" in result.stdout.str()


# --------------------------------------------------------------------------- --reuseit-cdp


@pytest.fixture
def cdp_chromium() -> Iterator[CdpChromium]:
    chromium = CdpChromium()
    yield chromium
    chromium.stop()


@pytest.mark.slow
def test_cdp_runs_in_a_context_of_its_own_and_leaves_the_browser_running(cdp_chromium, tmp_path, pages_url) -> None:  # type: ignore[no-untyped-def]
    rt = ThreadedRuntime(tmp_path, base_url=pages_url, cdp=cdp_chromium.endpoint, screenshots="off", trace="on")
    try:
        local_before = set(browser_processes())
        result = rt.run(workflow(PRESS_A, start="{base_url}/recovery.html"), "cdp")
        assert result.status == "passed", result.message
        # Nothing launched here (a browser of an earlier test in this worker may have exited meanwhile).
        assert not set(browser_processes()) - local_before
        browser = rt.call(rt.runtime.session.browser)
        # The browser's own default context (other clients may be using it) was not touched: the run
        # opened its page in a context it created and closed.
        default_pages = rt.call(lambda: [p.url for c in browser.contexts for p in c.pages])
        assert default_pages == ["about:blank"]
        again = rt.run(workflow(PRESS_A, start="{base_url}/recovery.html"), "cdp-again")
        assert again.status == "passed", again.message
        assert rt.call(rt.runtime.session.browser) is browser  # one connection reused across runs
    finally:
        rt.close()
    # closing disconnects; the shared browser belongs to whoever started it and keeps running
    assert cdp_chromium.alive()
    rt2 = ThreadedRuntime(tmp_path, base_url=pages_url, cdp=cdp_chromium.endpoint, screenshots="off")
    try:
        assert rt2.run(workflow(PRESS_A, start="{base_url}/recovery.html"), "cdp-next").status == "passed"
        cdp_chromium.stop()
        started = time.monotonic()
        with pytest.raises(BrokenRun) as err:
            rt2.run(workflow(PRESS_A, start="{base_url}/recovery.html"), "cdp-gone")
        assert time.monotonic() - started < 10
        assert cdp_chromium.endpoint in str(err.value)
        assert "is the browser's DevTools endpoint (remote debugging) running and reachable?" in str(err.value)
    finally:
        rt2.close()


@pytest.mark.slow
def test_cdp_unreachable_is_broken_not_a_hang(tmp_path, pages_url) -> None:  # type: ignore[no-untyped-def]
    endpoint = f"http://127.0.0.1:{closed_port()}"
    rt = ThreadedRuntime(tmp_path, base_url=pages_url, cdp=endpoint)
    started = time.monotonic()
    try:
        with pytest.raises(BrokenRun) as err:
            rt.run(workflow(PRESS_A, start="{base_url}/recovery.html"), "cdp-unreachable")
    finally:
        rt.close()
    assert time.monotonic() - started < 10
    assert str(err.value).startswith(f"cannot start the browser ({endpoint}):")
    assert "ECONNREFUSED" in str(err.value)


@pytest.mark.slow
def test_cdp_with_xdist_workers_shares_one_running_chromium(pytester: pytest.Pytester, cdp_chromium) -> None:  # type: ignore[no-untyped-def]
    result = run_two_workers(pytester, "--reuseit-cdp", cdp_chromium.endpoint)
    result.assert_outcomes(passed=4)
    assert "4 passed, 0 recovered, 0 healed, 0 failed, 0 broken" in result.stdout.str()
    assert cdp_chromium.alive()  # both workers disconnected without closing the shared browser


def test_connect_and_cdp_together_is_a_usage_error(pytester: pytest.Pytester) -> None:
    # In this process: the session stops at its configuration, before any browser or worker starts.
    pytester.path.joinpath("scale.reuseit.yaml").write_text(SCALE_WORKFLOW)
    result = pytester.runpytest_inprocess(
        "-p", "no:cacheprovider", "--reuseit-connect", "ws://127.0.0.1:1/x", "--reuseit-cdp", "http://127.0.0.1:1"
    )  # fmt: skip
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "--reuseit-connect and --reuseit-cdp both name a remote browser: give one of them" in result.stderr.str()


ALLOWED = ("127.0.0.1", "localhost", "Example.com", "my-shop.test")
ON_HOST = [
    "http://127.0.0.1:8000/x",
    "http://localhost/",
    "https://sub.example.com/a?b=1",
    "ws://example.com:9/socket",
    "HTTPS://EXAMPLE.COM/",
    "http://u:p@example.com/",
    "http://example.com?x",
    "http://example.com#top",
    "https://api.my-shop.test/v1",
]
OFF_HOST = [
    "http://127.0.0.2/",
    "http://x127.0.0.1/",
    "http://127.0.0.1.evil.test/",
    "http://example.com.evil.test/",
    "http://evil.test/example.com",
    "http://127.0.0.1@evil.test/",
    "http://notexample.com/",
    "https://evil.test:443/?host=example.com",
    "wss://evil.test/#example.com",
    "http://[::1]/",
    "http://my_shop.test/",
]
NOT_NETWORK = ["data:text/html,hi", "about:blank", "blob:http://127.0.0.1/0a1b", "file:///tmp/x.html"]


def test_the_fence_is_consulted_for_every_url_it_could_block_and_none_of_the_allowed_hosts(page: Page) -> None:
    """The fence's pattern is matched by Playwright's driver (JavaScript) and again in Python: both
    must route every URL the fence could block to it, and leave the allowed hosts' requests alone."""
    pattern = NavigationFence(ALLOWED).pattern()
    assert isinstance(pattern, re.Pattern)
    urls = ON_HOST + OFF_HOST + NOT_NETWORK
    in_js = page.evaluate("([src, urls]) => urls.map(u => new RegExp(src, 'i').test(u))", [pattern.pattern, urls])
    in_python = [bool(pattern.search(u)) for u in urls]
    assert in_js == in_python
    routed = dict(zip(urls, in_python, strict=True))
    assert [u for u in OFF_HOST if not host_allowed(u, ALLOWED)] == OFF_HOST
    assert all(routed[u] for u in OFF_HOST)
    assert [u for u in ON_HOST if routed[u]] == []
    assert [u for u in NOT_NETWORK if routed[u] or not host_allowed(u, ALLOWED)] == []
    assert NavigationFence(()).pattern() == "**/*"  # nothing allowed: every navigation is looked at


@pytest.mark.slow
def test_sessions_in_one_thread_share_its_driver_and_the_last_to_close_stops_it() -> None:
    """Starting Playwright's driver costs about half a second: sessions open together in one thread
    (pytester sessions beside the suite's own, repeated API calls) share it, each with its own
    browser, and the thread is left as it was found, so a sync Playwright of its own starts there."""

    def body() -> None:
        first, second = BrowserSession(BrowserConfig()), BrowserSession(BrowserConfig())
        assert first.playwright is second.playwright
        assert first.browser() is not second.browser()
        first.close()
        assert second.browser().is_connected()  # the driver outlived the first session
        second.new_context({}, None).close()
        second.close()
        with sync_playwright() as own:
            assert own.chromium.name == "chromium"

    with ThreadPoolExecutor(max_workers=1) as thread:  # a thread with no driver of the suite's
        thread.submit(body).result(timeout=60)
