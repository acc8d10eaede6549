"""Selenium Grid 4 (``--reuseit-grid``) against a local browser, side by side in one run.

A hub and two nodes on 127.0.0.1 (tests/support/selenium_grid.py: the jar from npm, Debian's
chromedriver and headless shell, the browser local headless runs launch; ``--node-browser full``
gives the nodes the full Chromium). Measured, interleaved round by round so the machine's load
falls on every side alike:

- browser start: a Grid session (new session on a node, its browser, Playwright connected over
  ``se:cdp``) against a local launch of the headless shell and of the full Chromium, and against
  the ceiling of any WebDriver node: chromedriver started here, its new session (it starts the
  same browser), Playwright connected to that browser's DevTools address, no Grid in between;
- a worker's first browser: the same with Playwright's driver started too (the Grid starts its
  browser while the driver starts);
- a run: ``benchmarks/workflows/bench.reuseit.yaml`` on a started Grid session against the same
  run on a started local browser (the headless shell and the full Chromium);
- memory: PSS of each node's process tree (the node's JVM, chromedriver, Chromium) with one
  session open and after a run, and of the hub;
- with ``--examples``: ``workflows/demo`` with ``-n 4`` on the Grid and locally (verdicts, wall time).

    python benchmarks/bench_grid.py                # 7 rounds, about 2 min
    python benchmarks/bench_grid.py --rounds 11 --examples
    REUSEIT_GRID_JAVA_OPTS="" python benchmarks/bench_grid.py   # the JVMs with their default options
"""

from __future__ import annotations

import argparse
import json
import os
import re
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from procs import children, cpu_ticks, descendants, pss_kb  # noqa: E402

from pytest_reuseit.api import default_settings  # noqa: E402
from pytest_reuseit.browser import grid as grid_module  # noqa: E402
from pytest_reuseit.browser.grid import parse_capabilities  # noqa: E402
from pytest_reuseit.browser.session import (  # noqa: E402
    DEFAULT_CHROMIUM,
    DEFAULT_HEADLESS_SHELL,
    BrowserConfig,
    BrowserSession,
    _acquire_driver,
    _release_driver,
)
from pytest_reuseit.runtime import Runtime  # noqa: E402
from pytest_reuseit.workflow.loader import load  # noqa: E402
from tests.support.selenium_grid import CHROMEDRIVER, CHROMIUM, NODE_BROWSER, SeleniumGrid, java_opts, missing  # noqa: E402

BENCH = ROOT / "benchmarks" / "workflows" / "bench.reuseit.yaml"


def _pss_mb(pid: int) -> float:
    """PSS of ``pid`` and every process under it."""
    return sum(pss_kb(p) for p in [pid, *descendants(pid, children())]) / 1024


def _cpu_s(pid: int) -> float:
    """CPU seconds (user + system) of ``pid`` and every process under it, the finished children
    they waited for included."""
    return sum(cpu_ticks(p) for p in [pid, *descendants(pid, children())]) / os.sysconf("SC_CLK_TCK")


def measured(fn: Callable[[], object], pids: list[int]) -> tuple[float, float]:
    """Seconds ``fn`` took, and the CPU seconds of ``pids``' process trees meanwhile."""
    cpu0 = sum(_cpu_s(p) for p in pids)
    start = time.perf_counter()
    fn()
    wall = time.perf_counter() - start
    return wall, sum(_cpu_s(p) for p in pids) - cpu0


def start_cost(config: BrowserConfig, pids: list[int], driver: bool = False) -> tuple[float, float]:
    """Seconds to a browser a run can use (started, a context and a page opened; then closed),
    and the CPU seconds of ``pids``' process trees meanwhile. ``driver``: Playwright's driver is
    started within the figure (a worker's first browser), else before it."""
    session = BrowserSession(config)
    if not driver:
        session.playwright  # noqa: B018 - the driver is shared by all sides: not part of the figure
    try:

        def start() -> None:
            context = session.new_context({}, None)
            context.new_page()
            context.close()

        return measured(start, pids)
    finally:
        session.close()


def _webdriver(url: str, method: str, body: object = None) -> dict:  # type: ignore[type-arg]
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(
        url, data=data, method=method, headers={"Content-Type": "application/json; charset=utf-8"}
    )
    with urllib.request.urlopen(request, timeout=60) as answer:
        return json.loads(answer.read())  # type: ignore[no-any-return]


class Chromedriver:
    """chromedriver here with one session of ``browser`` (the Grid's capabilities): a browser
    started as a node starts it, reached over DevTools with no Grid between."""

    def __init__(self, browser: str) -> None:
        caps = parse_capabilities("")
        caps["goog:chromeOptions"]["binary"] = browser
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        self.base = f"http://127.0.0.1:{port}"
        self.proc = subprocess.Popen(
            [CHROMEDRIVER, f"--port={port}"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        while True:
            try:
                _webdriver(self.base + "/status", "GET")
                break
            except OSError:
                time.sleep(0.005)
        value = _webdriver(self.base + "/session", "POST", {"capabilities": {"alwaysMatch": caps}})["value"]
        self.sid = value["sessionId"]
        self.cdp = "http://" + value["capabilities"]["goog:chromeOptions"]["debuggerAddress"]

    def stop(self) -> None:
        _webdriver(f"{self.base}/session/{self.sid}", "DELETE")
        self.proc.kill()
        self.proc.wait()


def chromedriver_cost(browser: str, pids: list[int]) -> tuple[float, float]:
    """What a Grid node does for a new session, without the Grid: chromedriver started, its new
    session (the Grid's capabilities, the nodes' browser), Playwright connected to the browser's
    DevTools address, a context and a page opened and closed; the session then deleted."""
    pw = _acquire_driver()
    started: list[Chromedriver] = []

    def start() -> None:
        started.append(Chromedriver(browser))
        context = pw.chromium.connect_over_cdp(started[0].cdp).new_context()
        context.new_page()
        context.close()

    try:
        return measured(start, pids)
    finally:
        for driver in started:
            driver.stop()
        _release_driver(threading.get_ident())


def med(values: list[float]) -> str:
    return f"{statistics.median(values):.2f} s (min {min(values):.2f}, max {max(values):.2f})"


def examples(grid: SeleniumGrid, folder: str) -> None:
    """The example workflows of ``folder`` with -n 4, on the Grid and locally: the summary line and
    the wall time of each."""
    env = {**os.environ, "DEMO_PASSWORD": "demo-pass", "PYTHONPATH": str(ROOT)}
    for side, extra in (("grid", ["--reuseit-grid", grid.url]), ("local", [])):
        with tempfile.TemporaryDirectory() as tmp:
            start = time.perf_counter()
            run = subprocess.run(
                [sys.executable, "-m", "pytest", str(ROOT / "workflows" / folder), "-p", "no:cacheprovider", "-n", "4",
                 "--reuseit-llm", "off", "--rootdir", tmp, "--reuseit-output", f"{tmp}/out", "-q", *extra],
                cwd=tmp, env=env, capture_output=True, text=True,
            )  # fmt: skip
            took = time.perf_counter() - start
        summary = re.findall(r"^=* ?(\d+ (?:passed|failed).*?) in [\d.]+s", run.stdout, re.M)
        line = next((ln for ln in run.stdout.splitlines() if "workflow runs)" in ln), "")
        print(
            f"  workflows/{folder} -n 4 {side:5}: {took:.1f} s wall; {line.strip()} | {summary[-1] if summary else run.stdout[-300:]}"
        )


def report(
    title: str, wall: dict[str, list[float]], cpu: dict[str, list[float]], ratios: list[tuple[str, str]]
) -> None:
    """Medians of each side, then each pair of ``ratios`` (wall and CPU)."""
    print(title)
    for name, values in wall.items():
        print(f"  {name:12} {med(values)}; CPU of every process involved {statistics.median(cpu[name]):.2f} s")
    for what, figures in (("wall", wall), ("CPU", cpu)):
        shown = [f"{a} / {b} {statistics.median(figures[a]) / statistics.median(figures[b]):.2f}x" for a, b in ratios]
        print(f"  {', '.join(shown)} ({what})")


def starts(sides: dict[str, BrowserConfig], browser: str, pids: list[int], rounds: int) -> None:
    """Each side's browser start, and chromedriver's (the nodes' ``browser``) without the Grid,
    interleaved; then a worker's first browser, Playwright's driver started within, on the Grid
    and locally. A first round is not counted: it warms the nodes' JVMs (printed apart)."""
    names = [*sides, "chromedriver"]
    wall: dict[str, list[float]] = {name: [] for name in names}
    cpu: dict[str, list[float]] = {name: [] for name in names}
    for i in range(rounds + 1):
        for name in names:
            took, used = chromedriver_cost(browser, pids) if name == "chromedriver" else start_cost(sides[name], pids)
            if i == 0:
                print(f"  first {name} start (not counted: the JVMs warm up) {took:.2f} s")
                continue
            wall[name].append(took)
            cpu[name].append(used)
    report(
        f"browser start (to a usable context and page; Playwright's driver already running), median of {rounds}",
        wall, cpu,
        [("grid", "local shell"), ("grid", "local full"), ("grid", "chromedriver"), ("chromedriver", "local shell")],
    )  # fmt: skip
    first = {"grid": sides["grid"], "local shell": sides["local shell"]}
    wall = {name: [] for name in first}
    cpu = {name: [] for name in first}
    for _ in range(rounds):
        for name, config in first.items():
            took, used = start_cost(config, pids, driver=True)
            wall[name].append(took)
            cpu[name].append(used)
    report(
        f"a worker's first browser (Playwright's driver started too), median of {rounds}",
        wall, cpu, [("grid", "local shell")],
    )  # fmt: skip


def runs(grid: SeleniumGrid, browser: str, pids: list[int], rounds: int) -> tuple[str, dict[str, float]]:
    """The benchmark workflow on each side, round by round; returns the node the Grid runs used
    and each node's memory (MB) after the last run, its session still open. The sides: the Grid
    (DevTools straight to the node, and through the hub as when the node does not answer from
    here), the nodes' browser started by chromedriver here (the ceiling of a browser a WebDriver
    node starts, reached over DevTools), and the local launches."""
    driver = Chromedriver(browser)
    sides = {
        "grid": {"grid": grid.url},
        "grid via hub": {"grid": grid.url},
        "chromedriver": {"cdp": driver.cdp},
        "local shell": {"browser_path": DEFAULT_HEADLESS_SHELL},
        "local full": {"browser_path": DEFAULT_CHROMIUM},
    }
    wall: dict[str, list[float]] = {name: [] for name in sides}
    cpu: dict[str, list[float]] = {name: [] for name in sides}
    parts: list[list[float]] = []  # a Grid run's CPU: this process' tree, the hub, each node
    with tempfile.TemporaryDirectory() as tmp:
        runtimes = {
            name: Runtime(
                default_settings(artifacts="never", trace="off", llm="off", screenshots="off", **kwargs),
                Path(tmp) / name.replace(" ", "-"),
            )
            for name, kwargs in sides.items()
        }
        try:
            # One runtime (one Playwright driver) per side, in one thread: they take turns. The
            # first run starts each side's browser; "grid via hub" is given a node that does not
            # answer from here.
            loaded = load(BENCH, builtin_names=runtimes["grid"].builtin_names())
            for name, rt in runtimes.items():
                reachable = grid_module._reachable
                if name == "grid via hub":
                    grid_module._reachable = lambda node: None
                try:
                    result = rt.run(loaded, None, f"warm-{name}")
                finally:
                    grid_module._reachable = reachable
                assert result.status == "passed", (name, result.message)
            via = {name: rt.session.grid.via for name, rt in runtimes.items() if rt.session.grid is not None}
            assert via["grid"] != via["grid via hub"], via
            for i in range(rounds):
                for name, rt in runtimes.items():
                    before = [_cpu_s(p) for p in pids]
                    result = rt.run(loaded, None, f"{name}-{i}")
                    assert result.status == "passed", (name, result.message)
                    used = [_cpu_s(p) - b for p, b in zip(pids, before, strict=True)]
                    wall[name].append(result.duration)
                    cpu[name].append(sum(used))
                    if name == "grid":
                        parts.append(used)
            host = runtimes["grid"].session.host
            open_mb = {uri: _pss_mb(p.pid) for uri, p in grid.nodes.items()}
        finally:
            for rt in runtimes.values():
                rt.close()
            driver.stop()
    report(
        f"a run of {BENCH.name} on a started browser (the run's own duration), median of {rounds}",
        wall, cpu,
        [("grid", "local shell"), ("grid via hub", "local shell"), ("grid", "chromedriver"),
         ("chromedriver", "local shell"), ("grid", "local full")],
    )  # fmt: skip
    shares = [statistics.median(column) for column in zip(*parts, strict=True)]
    print(
        f"  a Grid run's CPU: pytest's process tree (Playwright's driver, the relay) {shares[0]:.2f} s, "
        f"hub {shares[1]:.2f} s, nodes (JVM, chromedriver, Chromium) {sum(shares[2:]):.2f} s"
    )
    print(f"  runs per hour per Grid slot (one after another): {3600 / statistics.median(wall['grid']):.0f}")
    return host, open_mb


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument(
        "--examples",
        action="store_true",
        help="also workflows/demo and workflows/apps with -n 4 on the Grid and locally",
    )
    parser.add_argument("--only-examples", action="store_true", help="the examples only")
    parser.add_argument(
        "--node-browser",
        choices=("shell", "full"),
        default="shell",
        help="the nodes' browser: Debian's headless shell (as local headless runs) or the full Chromium",
    )
    args = parser.parse_args()
    why = missing()
    if why:
        sys.exit(f"no Selenium Grid here: {why}")
    print(f"JVM options: {' '.join(java_opts()) or 'the defaults'}")
    started = time.perf_counter()
    browser = {"shell": NODE_BROWSER, "full": CHROMIUM}[args.node_browser]
    grid = SeleniumGrid(queue_s=300, browser=browser)  # the Grid's default queue time
    up = time.perf_counter() - started
    print(
        f"Selenium Grid up (hub + 2 nodes, their browser {browser}) in {up:.1f} s; "
        f"load average {os.getloadavg()[0]:.1f}"
    )
    sides = {
        "grid": BrowserConfig(grid=grid.url, grid_capabilities=parse_capabilities("")),
        "local full": BrowserConfig(executable_path=DEFAULT_CHROMIUM),
        "local shell": BrowserConfig(executable_path=DEFAULT_HEADLESS_SHELL),
    }
    # CPU of everything a start or run makes work: this process with its Playwright driver,
    # browsers and relay, and the Grid's hub and nodes (their browsers included). Idle parts add
    # a little to every side alike.
    pids = [os.getpid(), grid.hub.pid, *(p.pid for p in grid.nodes.values())]
    try:
        if args.only_examples:
            for folder in ("demo", "apps"):
                examples(grid, folder)
            return
        hub_mb = _pss_mb(grid.hub.pid)
        idle = {uri: _pss_mb(p.pid) for uri, p in grid.nodes.items()}
        starts(sides, browser, pids, args.rounds)
        host, open_mb = runs(grid, browser, pids, args.rounds)
        print("memory (PSS of the process tree)")
        print(f"  hub: {hub_mb:.0f} MB")
        for uri, proc in grid.nodes.items():
            used = " (the runs' node)" if uri == host else ""
            print(
                f"  node {uri}{used}: idle {idle[uri]:.0f} MB; after the runs, a session open "
                f"{open_mb[uri]:.0f} MB, closed {_pss_mb(proc.pid):.0f} MB"
            )
        if args.examples:
            for folder in ("demo", "apps"):
                examples(grid, folder)
    finally:
        grid.stop()


if __name__ == "__main__":
    main()
