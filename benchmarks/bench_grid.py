"""Selenium Grid 4 (``--reuseit-grid``) against a local browser, side by side in one run.

A hub and two nodes on 127.0.0.1 (tests/support/selenium_grid.py: the jar from npm, Debian's
Chromium and chromedriver). Measured, interleaved round by round so the machine's load falls on
both sides alike:

- browser start: a Grid session (new session on a node, its Chromium, Playwright connected over
  ``se:cdp``) against a local launch of the same full Chromium, and of the headless shell local
  runs use by default;
- a run: ``benchmarks/workflows/bench.reuseit.yaml`` on a started Grid session against the same
  run on a started local browser (the full Chromium, as on the nodes; and the headless shell);
- memory: PSS of each node's process tree (the node's JVM, chromedriver, Chromium) with one
  session open and after a run, and of the hub;
- with ``--examples``: ``workflows/demo`` with ``-n 4`` on the Grid and locally (verdicts, wall time).

    python benchmarks/bench_grid.py                # 7 rounds, about 2 min
    python benchmarks/bench_grid.py --rounds 11 --examples
    REUSEIT_GRID_JAVA_OPTS="" python benchmarks/bench_grid.py   # the JVMs with their default options
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from procs import children, cpu_ticks, descendants, pss_kb  # noqa: E402

from pytest_reuseit.api import default_settings  # noqa: E402
from pytest_reuseit.browser.grid import parse_capabilities  # noqa: E402
from pytest_reuseit.browser.session import DEFAULT_CHROMIUM, BrowserConfig, BrowserSession  # noqa: E402
from pytest_reuseit.runtime import Runtime  # noqa: E402
from pytest_reuseit.workflow.loader import load  # noqa: E402
from tests.support.selenium_grid import SeleniumGrid, java_opts, missing  # noqa: E402

BENCH = ROOT / "benchmarks" / "workflows" / "bench.reuseit.yaml"


def _pss_mb(pid: int) -> float:
    """PSS of ``pid`` and every process under it."""
    return sum(pss_kb(p) for p in [pid, *descendants(pid, children())]) / 1024


def _cpu_s(pid: int) -> float:
    """CPU seconds (user + system) of ``pid`` and every process under it, the finished children
    they waited for included."""
    return sum(cpu_ticks(p) for p in [pid, *descendants(pid, children())]) / os.sysconf("SC_CLK_TCK")


def timed(fn: Callable[[], object]) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def start_cost(config: BrowserConfig, pids: list[int]) -> tuple[float, float]:
    """Seconds to a browser a run can use (started, a context and a page opened; then closed),
    and the CPU seconds of ``pids``' process trees meanwhile."""
    session = BrowserSession(config)
    session.playwright  # noqa: B018 - the driver is shared by all sides: not part of the figure
    try:

        def start() -> None:
            context = session.new_context({}, None)
            context.new_page()
            context.close()

        cpu0 = sum(_cpu_s(p) for p in pids)
        wall = timed(start)
        return wall, sum(_cpu_s(p) for p in pids) - cpu0
    finally:
        session.close()


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


def report(title: str, wall: dict[str, list[float]], cpu: dict[str, list[float]]) -> None:
    """Medians of each side, and the Grid's against each local side (wall and CPU)."""
    print(title)
    for name, values in wall.items():
        print(f"  {name:12} {med(values)}; CPU of every process involved {statistics.median(cpu[name]):.2f} s")
    for what, figures in (("wall", wall), ("CPU", cpu)):
        g, full, shell = (statistics.median(figures[n]) for n in ("grid", "local full", "local shell"))
        print(f"  grid / local full {g / full:.2f}x, grid / local shell {g / shell:.2f}x ({what})")


def starts(sides: dict[str, BrowserConfig], pids: list[int], rounds: int) -> None:
    wall: dict[str, list[float]] = {name: [] for name in sides}
    cpu: dict[str, list[float]] = {name: [] for name in sides}
    for _ in range(rounds):
        for name, config in sides.items():
            took, used = start_cost(config, pids)
            wall[name].append(took)
            cpu[name].append(used)
    report(f"browser start (to a usable context and page), median of {rounds}", wall, cpu)


def runs(
    grid: SeleniumGrid, sides: dict[str, BrowserConfig], pids: list[int], rounds: int
) -> tuple[str, dict[str, float]]:
    """The benchmark workflow on each side, round by round; returns the node the Grid runs used
    and each node's memory (MB) after the last run, its session still open."""
    wall: dict[str, list[float]] = {name: [] for name in sides}
    cpu: dict[str, list[float]] = {name: [] for name in sides}
    parts: list[list[float]] = []  # a Grid run's CPU: this process' tree, the hub, each node
    with tempfile.TemporaryDirectory() as tmp:
        runtimes = {
            name: Runtime(
                default_settings(
                    artifacts="never", trace="off", llm="off", screenshots="off",
                    grid=grid.url if name == "grid" else "", browser_path=DEFAULT_CHROMIUM if name == "local full" else "",
                ),
                Path(tmp) / name.replace(" ", "-"),
            )
            for name in sides
        }  # fmt: skip
        try:
            # One runtime (one Playwright driver) per side, in one thread: they take turns.
            loaded = load(BENCH, builtin_names=runtimes["grid"].builtin_names())
            for name, rt in runtimes.items():
                result = rt.run(loaded, None, f"warm-{name}")
                assert result.status == "passed", (name, result.message)
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
    report(f"a run of {BENCH.name} on a started browser (the run's own duration), median of {rounds}", wall, cpu)
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
    args = parser.parse_args()
    why = missing()
    if why:
        sys.exit(f"no Selenium Grid here: {why}")
    print(f"JVM options: {' '.join(java_opts()) or 'the defaults'}")
    started = time.perf_counter()
    grid = SeleniumGrid(queue_s=300)  # the Grid's default queue time
    up = time.perf_counter() - started
    print(f"Selenium Grid up (hub + 2 nodes) in {up:.1f} s; load average {os.getloadavg()[0]:.1f}")
    sides = {
        "grid": BrowserConfig(grid=grid.url, grid_capabilities=parse_capabilities("")),
        "local full": BrowserConfig(executable_path=DEFAULT_CHROMIUM),
        "local shell": BrowserConfig(),
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
        starts(sides, pids, args.rounds)
        host, open_mb = runs(grid, sides, pids, args.rounds)
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
