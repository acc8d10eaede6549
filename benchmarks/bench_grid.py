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

from pytest_reuseit.api import default_settings  # noqa: E402
from pytest_reuseit.browser.grid import parse_capabilities  # noqa: E402
from pytest_reuseit.browser.session import DEFAULT_CHROMIUM, BrowserConfig, BrowserSession  # noqa: E402
from pytest_reuseit.runtime import Runtime  # noqa: E402
from pytest_reuseit.workflow.loader import load  # noqa: E402
from tests.support.selenium_grid import SeleniumGrid, missing  # noqa: E402

BENCH = ROOT / "benchmarks" / "workflows" / "bench.reuseit.yaml"


def _children() -> dict[int, list[int]]:
    tree: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as fh:
                    ppid = int(fh.read().rsplit(")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                continue
            tree.setdefault(ppid, []).append(int(entry))
    return tree


def _pss_mb(pid: int) -> float:
    """PSS of ``pid`` and every process under it."""
    tree, todo, total = _children(), [pid], 0
    while todo:
        p = todo.pop()
        todo += tree.get(p, [])
        try:
            with open(f"/proc/{p}/smaps_rollup") as fh:
                total += next(int(line.split()[1]) for line in fh if line.startswith("Pss:"))
        except (OSError, StopIteration):
            pass
    return total / 1024


def _cpu_s(pid: int) -> float:
    """CPU seconds (user + system) of ``pid`` and every process under it, the finished children
    they waited for included."""
    tree, todo, total = _children(), [pid], 0
    while todo:
        p = todo.pop()
        todo += tree.get(p, [])
        try:
            with open(f"/proc/{p}/stat") as fh:
                fields = fh.read().rsplit(")", 1)[1].split()
            total += sum(int(f) for f in fields[11:15])
        except (OSError, ValueError, IndexError):
            pass
    return total / os.sysconf("SC_CLK_TCK")


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


def examples(grid: SeleniumGrid) -> None:
    """workflows/demo with -n 4, on the Grid and locally: the summary line and the wall time of each."""
    env = {**os.environ, "DEMO_PASSWORD": "demo-pass", "PYTHONPATH": str(ROOT)}
    for side, extra in (("grid", ["--reuseit-grid", grid.url]), ("local", [])):
        with tempfile.TemporaryDirectory() as tmp:
            start = time.perf_counter()
            run = subprocess.run(
                [sys.executable, "-m", "pytest", str(ROOT / "workflows" / "demo"), "-p", "no:cacheprovider", "-n", "4",
                 "--reuseit-llm", "off", "--rootdir", tmp, "--reuseit-output", f"{tmp}/out", "-q", *extra],
                cwd=tmp, env=env, capture_output=True, text=True,
            )  # fmt: skip
            took = time.perf_counter() - start
        summary = re.findall(r"^=* ?(\d+ (?:passed|failed).*?) in [\d.]+s", run.stdout, re.M)
        line = next((ln for ln in run.stdout.splitlines() if "workflow runs)" in ln), "")
        print(
            f"  examples -n 4 {side:5}: {took:.1f} s wall; {line.strip()} | {summary[-1] if summary else run.stdout[-300:]}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--examples", action="store_true", help="also workflows/demo with -n 4 on the Grid and locally")
    args = parser.parse_args()
    why = missing()
    if why:
        sys.exit(f"no Selenium Grid here: {why}")
    started = time.perf_counter()
    grid = SeleniumGrid()
    print(
        f"Selenium Grid up (hub + 2 nodes) in {time.perf_counter() - started:.1f} s; load average {os.getloadavg()[0]:.1f}"
    )
    caps = parse_capabilities("")
    sides = {
        "grid": BrowserConfig(grid=grid.url, grid_capabilities=caps),
        "local full": BrowserConfig(executable_path=DEFAULT_CHROMIUM),
        "local shell": BrowserConfig(),
    }
    try:
        hub_mb = _pss_mb(grid.hub.pid)
        idle = {uri: _pss_mb(p.pid) for uri, p in grid.nodes.items()}
        pids = [os.getpid(), grid.hub.pid, *(p.pid for p in grid.nodes.values())]
        starts: dict[str, list[float]] = {name: [] for name in sides}
        start_cpu: dict[str, list[float]] = {name: [] for name in sides}
        for _ in range(args.rounds):
            for name, config in sides.items():
                wall, used = start_cost(config, pids)
                starts[name].append(wall)
                start_cpu[name].append(used)
        print("browser start (to a usable context and page), median of", args.rounds)
        for name, values in starts.items():
            print(
                f"  {name:12} {med(values)}; CPU of every process involved {statistics.median(start_cpu[name]):.2f} s"
            )
        g, full, shell = (statistics.median(starts[n]) for n in sides)
        print(f"  grid / local full {g / full:.2f}x, grid / local shell {g / shell:.2f}x (wall)")
        c = {n: statistics.median(start_cpu[n]) for n in sides}
        print(
            f"  grid / local full {c['grid'] / c['local full']:.2f}x, grid / local shell {c['grid'] / c['local shell']:.2f}x (CPU)"
        )

        runs: dict[str, list[float]] = {name: [] for name in sides}
        cpu: dict[str, list[float]] = {name: [] for name in sides}
        # CPU of everything a run makes work (pids): this process with its Playwright driver,
        # browsers and relay, and the Grid's hub and nodes (their browsers included). Idle parts
        # add a little to every side alike.
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
                first = next(iter(runtimes.values()))
                loaded = load(BENCH, builtin_names=first.builtin_names())
                for name, rt in runtimes.items():
                    result = rt.run(loaded, None, f"warm-{name}")
                    assert result.status == "passed", (name, result.message)
                memory = {uri: _pss_mb(p.pid) for uri, p in grid.nodes.items()}
                for i in range(args.rounds):
                    for name, rt in runtimes.items():
                        cpu0 = sum(_cpu_s(p) for p in pids)
                        result = rt.run(loaded, None, f"{name}-{i}")
                        assert result.status == "passed", (name, result.message)
                        runs[name].append(result.duration)
                        cpu[name].append(sum(_cpu_s(p) for p in pids) - cpu0)
                after = {uri: _pss_mb(p.pid) for uri, p in grid.nodes.items()}
                host = runtimes["grid"].session.host
            finally:
                for rt in runtimes.values():
                    rt.close()
        print(f"a run of {BENCH.name} on a started browser (the run's own duration), median of {args.rounds}")
        for name, values in runs.items():
            print(f"  {name:12} {med(values)}; CPU of every process involved {statistics.median(cpu[name]):.2f} s")
        g, full, shell = (statistics.median(runs[n]) for n in sides)
        print(f"  grid / local full {g / full:.2f}x, grid / local shell {g / shell:.2f}x (wall)")
        c = {n: statistics.median(cpu[n]) for n in sides}
        print(
            f"  grid / local full {c['grid'] / c['local full']:.2f}x, grid / local shell {c['grid'] / c['local shell']:.2f}x (CPU)"
        )
        print(f"  runs per hour per Grid slot (one after another): {3600 / g:.0f}")
        print("memory (PSS of the process tree)")
        print(f"  hub: {hub_mb:.0f} MB")
        for uri in grid.nodes:
            used = " (the runs' node)" if uri == host else ""
            print(
                f"  node {uri}{used}: idle {idle[uri]:.0f} MB, one session open {memory[uri]:.0f} MB, after {args.rounds} runs {after[uri]:.0f} MB"
            )
        if args.examples:
            examples(grid)
    finally:
        grid.stop()


if __name__ == "__main__":
    main()
