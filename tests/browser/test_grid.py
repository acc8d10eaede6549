"""``--reuseit-grid`` against a real Selenium Grid 4 on 127.0.0.1: a hub and two nodes (Debian's
Chromium and chromedriver, the jar from npm), started once for the module.

What is shown: the demo examples pass on the Grid under ``-n 4`` as they do locally, each run's
Allure ``host`` is its node, nothing is left on the Grid afterwards (also after Ctrl-C, while a
run's request waits in the queue too, or when a session arrives after its run gave up); a request
no node can take is broken in the Grid's words; a node killed mid-run breaks that run, naming the
node, within the action timeout, while the other node's runs go on and the next run gets a new
session. Back/forward on a browser that keeps its back/forward cache (``--reuseit-cdp``) passes.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from pytest_reuseit.browser import grid as grid_module
from pytest_reuseit.browser.grid import CANCEL_WAIT_S, Opening, parse_capabilities
from pytest_reuseit.errors import BrokenRun
from pytest_reuseit.workflow.loader import load as load_file
from tests.support.browser_server import CdpChromium
from tests.support.paths import ROOT
from tests.support.selenium_grid import CHROMIUM, QUEUE_S, SeleniumGrid, missing
from tests.support.threaded_runtime import PRESS_A, ThreadedRuntime, load, workflow

pytestmark = [pytest.mark.browser, pytest.mark.slow]

DEMO = ROOT / "workflows" / "demo"


@pytest.fixture(scope="module")
def grid() -> Iterator[SeleniumGrid]:
    why = missing()
    if why:
        pytest.skip(f"no Selenium Grid here: {why}")
    g = SeleniumGrid()
    yield g
    g.stop()


def host_labels(results: Path) -> dict[str, list[str]]:
    """Test name -> its Allure ``host`` labels."""
    out = {}
    for path in results.glob("*-result.json"):
        data = json.loads(path.read_text())
        out[data["name"]] = [label["value"] for label in data["labels"] if label["name"] == "host"]
    return out


def test_the_demo_examples_pass_on_the_grid_with_four_workers(grid: SeleniumGrid, tmp_path: Path) -> None:
    """The verdicts a local run gives (tests/browser/test_real_sites.py runs them locally): every example
    passes but the known defect (a strict xfail), `navigation`'s back/forward included."""
    env = {**os.environ, "DEMO_PASSWORD": "demo-pass", "PYTHONPATH": str(ROOT)}
    run = subprocess.run(
        [sys.executable, "-m", "pytest", str(DEMO), "-p", "no:cacheprovider", "-n", "4", "--reuseit-llm", "off",
         "--reuseit-grid", grid.url, "--reuseit-output", str(tmp_path / "out"), "--alluredir", str(tmp_path / "al"),
         "--rootdir", str(tmp_path), "-q"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=400,
    )  # fmt: skip
    tail = run.stdout[-3000:]
    assert run.returncode == 0, tail
    assert "14 passed, 1 xfailed" in tail, tail
    labels = host_labels(tmp_path / "al")
    assert len(labels) == 15
    nodes = set(grid.nodes)
    for name, hosts in labels.items():
        assert len(hosts) == 1 and hosts[0] in nodes, (name, hosts, nodes)
    assert grid.sessions() == {}  # each worker deleted its session as it ended


def test_a_request_no_node_can_take_is_broken_in_the_grids_words(grid: SeleniumGrid, tmp_path: Path) -> None:
    rt = ThreadedRuntime(
        tmp_path, grid=grid.url, grid_capabilities='{"browserName": "chrome", "platformName": "windows"}'
    )
    start = time.monotonic()
    try:
        with pytest.raises(BrokenRun) as err:
            rt.run(workflow(PRESS_A, start="about:blank"), "no-slot")
        waited = time.monotonic() - start
    finally:
        rt.close()
    said = f"Selenium Grid {grid.url} started no browser: HTTP 500: Could not start a new session. New session request timed out;"
    assert str(err.value).startswith(said)
    assert "no free slot for these capabilities within the Grid's queue time" in str(err.value)
    assert waited < QUEUE_S + 15  # the Grid's queue time, not ours
    assert grid.sessions() == {}


def test_an_unreachable_grid_and_bad_capabilities_are_one_line(pytester: pytest.Pytester, tmp_path: Path) -> None:
    pytester.path.joinpath("one.reuseit.yaml").write_text(workflow(PRESS_A, start="about:blank"))
    bad = pytester.runpytest(
        "-p", "no:cacheprovider", "--reuseit-grid", "http://127.0.0.1:9", "--reuseit-grid-capabilities", "{nope"
    )
    assert bad.ret == pytest.ExitCode.USAGE_ERROR
    assert (
        "reuseit_grid_capabilities: not JSON (Expecting property name enclosed in double quotes at character 1)"
        in bad.stderr.str()
    )
    assert "Traceback" not in bad.stderr.str() + bad.stdout.str()
    scheme = pytester.runpytest("-p", "no:cacheprovider", "--reuseit-grid", "ws://127.0.0.1:9")
    assert (
        "reuseit_grid = 'ws://127.0.0.1:9': expected the http(s) address of a Selenium Grid 4 router or hub"
        in scheme.stderr.str()
    )
    rt = ThreadedRuntime(tmp_path, grid="http://127.0.0.1:9")
    try:
        with pytest.raises(BrokenRun) as err:
            rt.run(workflow(PRESS_A, start="about:blank"), "unreachable")
    finally:
        rt.close()
    assert str(err.value).startswith(
        "Selenium Grid http://127.0.0.1:9 cannot be reached: [Errno 111] Connection refused"
    )


def test_devtools_go_straight_to_the_node_when_it_answers_else_through_the_hub(
    grid: SeleniumGrid, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, pages_url: str
) -> None:
    """Each DevTools message skips the hub's proxy when the node answers from here; a node only the
    hub reaches (a pod's address) is reached through the hub, and the run is the same."""
    assert grid_module._reachable(grid.url + "/nowhere") is None  # the hub's /status is no node's
    assert grid_module._reachable(pages_url) is None  # a web server that is no Grid node
    with socket.create_server(("127.0.0.1", 0)) as silent:  # accepts, never answers
        start = time.monotonic()
        assert grid_module._reachable(f"http://127.0.0.1:{silent.getsockname()[1]}") is None
        assert time.monotonic() - start < grid_module.NODE_PROBE_S + 0.5
    press = workflow(PRESS_A, start="{base_url}/recovery.html")
    seen = {}
    for side in ("node", "hub"):
        if side == "hub":
            monkeypatch.setattr(grid_module, "_reachable", lambda node: None)
        rt = ThreadedRuntime(tmp_path / side, grid=grid.url, base_url=pages_url, screenshots="off")
        try:
            result = rt.run(press, side)
            session = rt.runtime.session.grid
            assert session is not None
            seen[side] = (result.status, session.via, session.node)
        finally:
            rt.close()
    (status_node, via_node, node_a), (status_hub, via_hub, _) = seen["node"], seen["hub"]
    assert (status_node, status_hub) == ("passed", "passed")
    assert via_node == node_a and node_a in grid.nodes
    assert via_hub == grid.url
    assert grid.wait_sessions(0, timeout=10) == {}


def test_back_and_forward_on_a_browser_that_keeps_its_back_forward_cache(tmp_path: Path) -> None:
    """A Chromium started by someone else keeps its back/forward cache: a page restored from it fires
    no load event. `navigation` waited for one and failed as [site_changed] at its `back`."""
    with CdpChromium(executable=CHROMIUM) as chromium:
        rt = ThreadedRuntime(tmp_path, cdp=chromium.endpoint, screenshots="off")
        try:
            loaded = load_file(DEMO / "navigation.reuseit.yaml", builtin_names=rt.runtime.builtin_names())
            start = time.monotonic()
            result = rt.call(rt.runtime.run, loaded, None, "navigation")
            took = time.monotonic() - start
        finally:
            rt.close()
    assert result.status == "passed", result.message
    assert took < 20, [
        (s.index, round(s.ended - s.started, 1)) for s in result.steps
    ]  # no step waited out a navigation timeout


def test_ctrl_c_leaves_no_session_on_the_grid(grid: SeleniumGrid, tmp_path: Path, pages_url: str) -> None:
    slow = [{"action": "Wait for what never comes", "do": [{"wait": {"css": "#never", "state": "visible"}}]}]
    tmp_path.joinpath("slow.reuseit.yaml").write_text(
        workflow(slow, start="{base_url}/recovery.html", settings={"action_timeout": 60, "step_timeout": 90})
    )
    proc = subprocess.Popen(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-n", "2", "--reuseit-grid", grid.url,
         "--base-url", pages_url, "-q", str(tmp_path)],
        cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(ROOT)}, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
        start_new_session=True,
    )  # fmt: skip
    try:
        assert len(grid.wait_sessions(1, timeout=60)) == 1
        time.sleep(3)  # the run waits for #never
        assert proc.poll() is None
        os.killpg(proc.pid, signal.SIGINT)  # what Ctrl-C in the terminal sends: the whole group
        out = proc.communicate(timeout=60)[0].decode()
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    assert "KeyboardInterrupt" in out, out[-2000:]
    assert grid.wait_sessions(0, timeout=10) == {}


def test_ctrl_c_while_the_request_waits_in_the_grids_queue_leaves_nothing(grid: SeleniumGrid, tmp_path: Path) -> None:
    """Every slot taken: the run's request waits in the Grid's queue when Ctrl-C comes. The run
    ends at once, and the request does not become a session when a slot frees."""
    caps = {"capabilities": {"alwaysMatch": {**parse_capabilities(""), "se:cdpEnabled": True}}}
    held = [grid.call("POST", "/session", caps)["value"]["sessionId"] for _ in range(4)]
    tmp_path.joinpath("one.reuseit.yaml").write_text(workflow(PRESS_A, start="about:blank"))
    proc = subprocess.Popen(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--reuseit-grid", grid.url, "-q", str(tmp_path)],
        cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(ROOT)}, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
        start_new_session=True,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 60
        while not grid.queued() and time.monotonic() < deadline:
            time.sleep(0.2)
        assert len(grid.queued()) == 1, "the run's request never reached the Grid's queue"
        os.killpg(proc.pid, signal.SIGINT)
        interrupted = time.monotonic()
        out = proc.communicate(timeout=60)[0].decode()
        took = time.monotonic() - interrupted
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
        for sid in held:
            grid.call("DELETE", f"/session/{sid}")
    assert "KeyboardInterrupt" in out, out[-2000:]
    assert "Traceback" not in out, out[-2000:]
    assert took < CANCEL_WAIT_S + 10  # not the Grid's queue time
    assert grid.queued() == []
    time.sleep(3)  # slots are free: a request still alive would be started now
    assert grid.sessions() == {}


def test_a_session_that_arrives_after_its_run_gave_up_is_deleted(grid: SeleniumGrid) -> None:
    """Given up while the node starts the browser (an interrupt, the driver failing to start):
    the session the Grid then hands over is deleted, not left to the node's idle timeout."""
    opening = Opening(grid.url, parse_capabilities(""))
    opening.cancel()
    opening.wait(30)
    session = opening.result()
    assert session.id and session.closed
    assert grid.wait_sessions(0, timeout=10) == {}


def test_a_run_stopped_at_its_first_failure_leaves_no_session_on_the_grid(
    grid: SeleniumGrid, tmp_path: Path, pages_url: str
) -> None:
    wrong = [
        {"action": "Press A", "do": [{"click": "#fa"}], "post": [{"expect": {"text": {"css": "#out", "equals": "B"}}}]}
    ]
    for i in range(4):
        tmp_path.joinpath(f"wrong{i}.reuseit.yaml").write_text(
            workflow(wrong, start="{base_url}/recovery.html", settings={"check_timeout": 0.5})
        )
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-n", "2", "-x", "--reuseit-grid", grid.url,
         "--base-url", pages_url, "--reuseit-llm", "off", "-q", str(tmp_path)],
        cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert run.returncode in (1, 2), run.stdout[-2000:]  # xdist reports -x as an interruption (2)
    assert "[wrong_element_or_value]" in run.stdout, run.stdout[-2000:]
    assert "stopping after" in run.stdout, run.stdout[-2000:]
    assert grid.wait_sessions(0, timeout=10) == {}


def test_a_node_killed_mid_run_breaks_that_run_naming_the_node_and_nothing_else(
    grid: SeleniumGrid, tmp_path: Path, pages_url: str
) -> None:
    """Last in the module: the Grid has one node left after it."""
    a = ThreadedRuntime(tmp_path / "a", grid=grid.url, base_url=pages_url, screenshots="off")
    b = ThreadedRuntime(tmp_path / "b", grid=grid.url, base_url=pages_url, screenshots="off")
    press = workflow(PRESS_A, start="{base_url}/recovery.html")
    action_timeout = 20
    stuck = workflow(
        [{"action": "Wait for what never comes", "do": [{"wait": {"css": "#never", "state": "visible"}}]}],
        start="{base_url}/recovery.html",
        settings={"action_timeout": action_timeout, "step_timeout": 60},
    )
    try:
        assert a.run(press, "a-first").status == "passed"
        assert b.run(press, "b-first").status == "passed"
        node_a, node_b = a.runtime.session.host, b.runtime.session.host
        assert node_a in grid.nodes and node_b in grid.nodes
        assert node_a != node_b, "the Grid put both sessions on one node"
        pending = a.submit(a.runtime.run, *_loaded(stuck, "a-stuck"))
        time.sleep(2)
        grid.kill_node(node_a)
        killed = time.monotonic()
        others = [b.run(press, f"b-{i}") for i in range(3)]
        result = pending.result(timeout=120)
        broken_after = time.monotonic() - killed
        assert result.status == "broken", result.message
        assert f"the Selenium Grid node {node_a} stopped answering" in result.message
        assert broken_after < action_timeout
        assert [r.status for r in others] == ["passed"] * 3
        again = a.run(press, "a-again")  # a new session, on the node left
        assert again.status == "passed", again.message
        assert a.runtime.session.host == node_b
    finally:
        a.close()
        b.close()
    # The dead node's session goes with the node once the hub finds it down.
    assert grid.wait_sessions(0, timeout=60) == {}


def _loaded(text: str, run_id: str) -> tuple[object, ...]:
    return (load(text), None, run_id)
