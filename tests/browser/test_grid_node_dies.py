"""A Selenium Grid node that dies at each point of a run, in a real Grid 4 on 127.0.0.1 (a hub and
two nodes of one slot each, tests/support/selenium_grid.py): before the run's session is created,
while the node starts its browser, during a step, during the screenshot after a step, while the
worker ends, a node that freezes (a machine gone from the network: nothing resets the
connections), and a dead node's slot that leaves a new session waiting out the Grid's queue. The hub checks its nodes every 120 s, its default, so the dead node is still
offered for new sessions, as on a real Grid.

Each case: the run on the dead node is broken within the action timeout (10 s, the default),
naming the node and what the Grid answered; the run on the other node passes; the worker's next
run gets a new session; closing never waits on the dead node; the Grid holds no session but the
dead node's (which it drops at its health check). docs/scaling.md gives the times measured here.
"""

from __future__ import annotations

import os
import re
import signal
import stat
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler
from pathlib import Path

import pytest

from pytest_reuseit.browser.grid import DEAD_NODE_RETRY_S, PROBE_S, PROBE_TIMEOUT_S
from pytest_reuseit.errors import BrokenRun
from tests.support.paths import ROOT
from tests.support.selenium_grid import CHROMEDRIVER, QUEUE_S, SeleniumGrid, missing
from tests.support.serve import Served
from tests.support.threaded_runtime import PRESS_A, ThreadedRuntime, load, workflow

pytestmark = [pytest.mark.browser, pytest.mark.slow]

# The default action timeout: what "within the action timeout" is measured against.
ACTION_TIMEOUT = 10
# What a loaded machine adds to a bound: the run's own end (its context closed, its result made).
SLACK = 4

PAGE = b"""<!doctype html><title>Node</title><h1>Node</h1>
<button id="fa" onclick="document.getElementById('out').textContent='A'">A</button><p id="out"></p>
<button id="busy" onclick="fetch('/busy'); setTimeout(() => { const t = Date.now(); while (Date.now() - t < 15000) {} }, 150)">Busy</button>"""


class Site:
    """The page the runs use, and the moments the test waits for: a request to ``/block`` (held
    until ``release``: a step waiting on the site) and to ``/busy`` (the page is about to keep its
    renderer busy, so the screenshot after the step waits for it)."""

    def __init__(self) -> None:
        self.block, self.busy, self.release = threading.Event(), threading.Event(), threading.Event()
        site = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: object) -> None:  # noqa: A002
                pass

            def do_GET(self) -> None:
                if self.path.startswith("/block"):
                    site.block.set()
                    site.release.wait(30)
                elif self.path.startswith("/busy"):
                    site.busy.set()
                try:
                    self.send_response(200)
                    self.send_header("Content-Type", "text/html")
                    self.send_header("Content-Length", str(len(PAGE)))
                    self.end_headers()
                    self.wfile.write(PAGE)
                except OSError:  # the browser that asked went with its node
                    pass

        self.served = Served(Handler)
        self.url = self.served.url


@pytest.fixture
def site() -> Iterator[Site]:
    s = Site()
    yield s
    s.release.set()
    s.served.close()


def grid_of(tmp_path: Path, *, slow_start: bool = False) -> SeleniumGrid:
    """Two nodes of one slot, the hub's health check at its default; ``slow_start``: each node's
    chromedriver says it starts (a file appears) and takes 3 s to, so a test can kill the node
    while it is starting the browser."""
    why = missing()
    if why:
        pytest.skip(f"no Selenium Grid here: {why}")
    driver = CHROMEDRIVER
    if slow_start:
        wrapper = tmp_path / "chromedriver"
        wrapper.write_text(f'#!/bin/sh\ntouch "{tmp_path}/starting"\nsleep 3\nexec {CHROMEDRIVER} "$@"\n')
        wrapper.chmod(wrapper.stat().st_mode | stat.S_IXUSR)
        driver = str(wrapper)
    return SeleniumGrid(healthcheck_s=120, slots=1, driver=driver)


def freeze(grid: SeleniumGrid, node: str) -> None:
    """The node's machine leaves the network: its processes stop, no connection is reset."""
    os.killpg(grid.nodes[node].pid, signal.SIGSTOP)


def left_on(grid: SeleniumGrid) -> set[str]:
    """The nodes the Grid still holds sessions on."""
    return set(grid.sessions().values())


class TwoWorkers:
    """Two workers' runtimes on the Grid, ``a`` (its screenshots ``a_screenshots``) and ``b``, and
    ``press``: the workflow that presses A on the site."""

    def __init__(self, grid: SeleniumGrid, root: Path, site: Site, a_screenshots: str) -> None:
        self.grid = grid
        self.a = ThreadedRuntime(root / "a", grid=grid.url, base_url=site.url, screenshots=a_screenshots)
        self.b = ThreadedRuntime(root / "b", grid=grid.url, base_url=site.url, screenshots="off")
        self.press = workflow(PRESS_A, start="{base_url}/")

    def close(self) -> None:
        """Closes both runtimes (each once: a test may have closed one already)."""
        try:
            self.a.close()
        finally:
            self.b.close()


@pytest.fixture
def two_workers(site: Site, tmp_path: Path) -> Iterator[Callable[..., TwoWorkers]]:
    """Makes the Grid (``grid_of``, ``slow_start`` as there) and two workers' runtimes on it. After
    the test, whatever it did: the site lets its held requests go, both runtimes close, the Grid
    stops. A test that checks what the Grid still holds closes the runtimes first."""
    grids: list[SeleniumGrid] = []
    made: list[TwoWorkers] = []

    def make(*, slow_start: bool = False, a_screenshots: str = "off") -> TwoWorkers:
        grids.append(grid_of(tmp_path, slow_start=slow_start))
        made.append(TwoWorkers(grids[-1], tmp_path, site, a_screenshots))
        return made[-1]

    yield make
    site.release.set()
    try:
        for workers in made:
            workers.close()
    finally:
        for grid in grids:
            grid.stop()


@pytest.mark.parametrize("when", ["before", "starting"])
def test_a_node_dead_before_the_session_exists_breaks_one_run_then_the_next_gets_a_new_session(
    when: str, two_workers: Callable[..., TwoWorkers], tmp_path: Path
) -> None:
    """The Grid offers the dead node for the run's new session (it answers "Connection error" or,
    when the node died while starting the browser, "Failed to execute request") until its health
    check: the session is asked for again while another node might free a slot, then the run is
    broken, naming the node. Asked for again once the other node is free, it is made there."""
    workers = two_workers(slow_start=when == "starting")
    grid, a, b, press = workers.grid, workers.a, workers.b, workers.press
    assert b.run(press, "b").status == "passed"  # b holds the one slot of its node
    live = b.runtime.session.host
    (dead,) = [n for n in grid.nodes if n != live]
    if when == "before":
        grid.kill_node(dead)
        killed = time.monotonic()
        with pytest.raises(BrokenRun) as err:
            a.run(press, "a")
    else:
        (tmp_path / "starting").unlink()
        pending = a.submit(a.runtime.run, load(press), None, "a")
        deadline = time.monotonic() + 30
        while not (tmp_path / "starting").exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert (tmp_path / "starting").exists(), "the node never started a browser"
        time.sleep(0.5)  # the node is starting the browser
        grid.kill_node(dead)
        killed = time.monotonic()
        with pytest.raises(BrokenRun) as err:
            pending.result(timeout=120)
    reported = time.monotonic() - killed
    message = str(err.value)
    assert message.startswith(
        f"the Selenium Grid node {dead} does not answer (Selenium Grid {grid.url} said: HTTP 500: Could not start a new session."
    )
    assert "the worker's next run asks the Grid again" in message
    # A loaded hub can put the request whose node died back in its queue (seen at a load of 15
    # on 2 cores): the run is then broken at the Grid's queue time, naming the node all the same.
    bound = QUEUE_S if "within the Grid's queue time" in message else DEAD_NODE_RETRY_S + PROBE_S
    assert reported < bound + SLACK, reported
    b.close()  # b's node is free now: a's next run gets its session there
    again = a.run(press, "a-again")
    assert again.status == "passed", again.message
    assert a.runtime.session.host == live
    workers.close()
    assert left_on(grid) == set()


STEP = [{"action": "Open the order page", "do": [{"goto": "{base_url}/block"}]}]
BUSY = [{"action": "Start the report", "do": [{"click": "#busy"}]}, *PRESS_A]
WAIT_THEN_PRESS = [{"action": "Press A when the page is ready", "do": [{"wait": 1500}, {"click": "#fa"}]}]


@pytest.mark.parametrize("point", ["step", "screenshot", "frozen", "end"])
def test_a_node_that_dies_under_a_run_breaks_it_within_the_action_timeout(
    point: str, site: Site, two_workers: Callable[..., TwoWorkers]
) -> None:
    """``step``: the node is killed while a step waits on the site; ``screenshot``: while the
    screenshot after a step waits for a busy page; ``frozen``: the node stops during a step (no
    connection is reset: each call waits out its timeout, and the click's own timeout, 2 s, would
    make it a failure); ``end``: the node is killed after the run, as the worker ends."""
    workers = two_workers(a_screenshots="steps" if point == "screenshot" else "off")
    grid, a, b, press = workers.grid, workers.a, workers.b, workers.press
    # Frozen: a click that waits 2 s fails before the watchdog's first question has gone
    # unanswered; the run asks the Grid itself before its verdict.
    settings = {
        "action_timeout": 2 if point == "frozen" else ACTION_TIMEOUT,
        "navigation_timeout": 30,
        "step_timeout": 60,
    }
    assert a.run(press, "a-first").status == "passed"
    assert b.run(press, "b-first").status == "passed"
    dead, live = a.runtime.session.host, b.runtime.session.host
    assert {dead, live} == set(grid.nodes)
    if point == "end":
        grid.kill_node(dead)
        killed = time.monotonic()
        a.close()
        assert time.monotonic() - killed < PROBE_TIMEOUT_S + SLACK
    else:
        steps = {"step": STEP, "screenshot": BUSY, "frozen": WAIT_THEN_PRESS}[point]
        pending = a.submit(a.runtime.run, load(workflow(steps, start="{base_url}/", settings=settings)), None, "a")
        if point == "step":
            assert site.block.wait(30)
        elif point == "screenshot":
            assert site.busy.wait(30)
            time.sleep(0.5)  # the renderer is busy: the screenshot after the step waits
        else:
            time.sleep(1.0)  # inside the step's wait
        if point == "frozen":
            freeze(grid, dead)
        else:
            grid.kill_node(dead)
        killed = time.monotonic()
        result = pending.result(timeout=120)
        reported = time.monotonic() - killed
        assert result.status == "broken", result.message
        assert result.message.startswith(f"the Selenium Grid node {dead} stopped answering for session ")
        said = "timed out" if point == "frozen" else "HTTP 500: Unable to execute request for an existing session"
        assert f"(the Grid said: {said}" in result.message
        assert result.browser_host == dead
        # A node killed resets its connections (reported at once); a frozen one is found by
        # two unanswered questions of the watchdog (12 s), about the click's own timeout.
        bound = 2 * (PROBE_S + PROBE_TIMEOUT_S) if point == "frozen" else ACTION_TIMEOUT
        assert reported < bound + SLACK, reported
        closing = time.monotonic()
        a.close()
        assert time.monotonic() - closing < PROBE_TIMEOUT_S + SLACK
    others = [b.run(press, f"b-{i}") for i in range(2)]
    assert [r.status for r in others] == ["passed", "passed"]
    workers.close()
    assert left_on(grid) <= {dead}  # the Grid drops the dead node's at its health check


def test_pytest_with_two_workers_ends_by_itself_when_a_node_dies(site: Site, tmp_path: Path) -> None:
    """The user's case: ``pytest -n 2 --reuseit-grid`` on four workflows, one node killed while
    both workers' runs wait on the site. The run on the dead node is broken naming it, the
    worker's next run asks for a new session (the Grid offers the dead node until its health
    check while the other node's slot is taken: broken in turn, naming it), the other runs pass,
    and pytest ends by itself, leaving no session on the node that lives."""
    grid = grid_of(tmp_path)
    folder = tmp_path / "workflows"
    folder.mkdir()
    (folder / "pytest.ini").write_text("[pytest]\n")
    steps = [{"action": "Open the order page", "do": [{"goto": "{base_url}/block"}]}, *PRESS_A]
    for n in range(4):
        (folder / f"order{n}.reuseit.yaml").write_text(
            workflow(steps, start="{base_url}/").replace("broken", f"order {n}", 1)
        )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env = {k: v for k, v in env.items() if not k.startswith(("REUSEIT_", "OPENAI_"))}
    proc = subprocess.Popen(
        [sys.executable, "-m", "pytest", str(folder), "-n", "2", "-p", "no:cacheprovider", "-q", "--rootdir", str(folder),
         "--reuseit-grid", grid.url, "--base-url", site.url, "--reuseit-llm", "off", "--reuseit-output", str(tmp_path / "out")],
        cwd=folder, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 90
        while len(grid.sessions()) < 2 or not site.block.is_set():
            assert time.monotonic() < deadline and proc.poll() is None, "the runs never started"
            time.sleep(0.2)
        time.sleep(0.5)  # both workers' runs wait on the site
        dead = next(iter(grid.nodes))
        grid.kill_node(dead)
        killed = time.monotonic()
        site.release.set()
        out, _ = proc.communicate(timeout=120)
        ended = time.monotonic() - killed
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
    try:
        assert proc.returncode == 1, out[-3000:]
        summary = re.search(r"(\d) passed, 0 recovered, 0 healed, 0 failed, (\d) broken  \(4 workflow runs\)", out)
        assert summary is not None, out[-3000:]
        passed, broken = int(summary[1]), int(summary[2])
        assert passed >= 2 and broken >= 1, out[-3000:]  # the other worker's runs passed
        # Each broken run names the dead node: the one under way, then any next run of its worker
        # (whether the Grid offered it the dead node, or a slot came free first, depends on the order).
        said = [line for line in out.splitlines() if line.startswith("BROKEN ")]
        assert len(said) == broken, out[-3000:]
        for line in said:
            assert f"the Selenium Grid node {dead} " in line, line
        assert f"[infrastructure] the Selenium Grid node {dead} stopped answering for session" in out
        # The broken run at once, the worker's next one after the Grid offered the dead node for 10 s.
        assert ended < ACTION_TIMEOUT + DEAD_NODE_RETRY_S + 3 * SLACK, ended
        assert left_on(grid) <= {dead}
    finally:
        grid.stop()


def test_a_request_that_waits_out_the_queue_while_a_node_is_dead_names_the_node(site: Site, tmp_path: Path) -> None:
    """Both slots taken, one by a session on a node that then died (the hub still counts it until
    its health check): the next run's request waits out the Grid's queue time. The run is broken
    naming the dead node, not blamed on too few slots; with every node alive, the same wait is
    said as the queue's (tests/browser/test_grid.py)."""
    why = missing()
    if why:
        pytest.skip(f"no Selenium Grid here: {why}")
    grid = SeleniumGrid(healthcheck_s=120, slots=1, queue_s=5)
    a, b, c = (ThreadedRuntime(tmp_path / n, grid=grid.url, base_url=site.url, screenshots="off") for n in "abc")
    press = workflow(PRESS_A, start="{base_url}/")
    try:
        assert b.run(press, "b").status == "passed"
        assert c.run(press, "c").status == "passed"
        dead = c.runtime.session.host
        assert dead != b.runtime.session.host
        grid.kill_node(dead)
        started = time.monotonic()
        with pytest.raises(BrokenRun) as err:
            a.run(press, "a")
        message = str(err.value)
        assert message.startswith(f"the Selenium Grid node {dead} does not answer (Selenium Grid {grid.url} said:")
        assert "within the Grid's queue time" in message and "next run asks the Grid again" in message
        assert time.monotonic() - started < 5 + SLACK + 2 * ACTION_TIMEOUT
    finally:
        for r in (a, b, c):
            r.close()
        grid.stop()
