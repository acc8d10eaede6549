"""Many short workflows: the layout of a suite of small files, serial vs ``-n 2``.

    python benchmarks/bench_short.py [--files 50] [--rounds 2]
    python benchmarks/bench_short.py --handwritten 25     # one process of the hand-written runs

Each file is two steps on the demo shop (search, then tick "In stock only"), each with a DOM post
check: about a quarter of a second a run, so start-up and per-run costs are not hidden behind long
runs as they are in the example workflows. Measured as whole pytest processes (start-up
included), alternating serial and ``-n 2`` (with ``--dist load`` and ``worksteal``).

The ceiling: the same steps hand-written in Playwright (no pytest, no engine), one process doing
all the runs vs two processes doing half each at the same time, in the same run. On a 2-core
machine a run's work is mostly the browser's (page loads: parsing, layout, software raster), so
two at once slow each other down whatever runs them: the pytest figure is read against this one.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))

from table import ROWS, Row, listing, log, med, run_pytest  # noqa: E402

SHORT = """name: Short flow {n}
task: Search the demo shop and keep the in-stock results
start_url: "{{demo_url}}/index.html?cookies=never&delay=0"
steps:
  - action: Search for trail shoes
    do:
      - fill: {{role: searchbox, name: Search products, value: trail shoes}}
      - click: {{role: button, name: Search, exact: true}}
    post:
      - check: A results page is shown
        expect: {{url: {{contains: "/search.html?q="}}}}
  - action: Tick "In stock only"
    do:
      - check: {{label: In stock only}}
    post:
      - check: Two are listed
        expect: {{text: {{css: "#result-count", equals: "2 results"}}}}
"""


def write_suite(folder: Path, files: int) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for n in range(1, files + 1):
        (folder / f"short{n:03d}.reuseit.yaml").write_text(SHORT.format(n=n), encoding="utf-8")
    return folder


def handwritten(runs: int) -> None:
    """``runs`` runs of the same steps in plain Playwright, one context each, as the engine does."""
    from playwright.sync_api import expect, sync_playwright

    from pytest_reuseit.browser.session import DEFAULT_ARGS, default_executable
    from pytest_reuseit.sites import SiteServer

    with SiteServer() as site, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=default_executable(), args=list(DEFAULT_ARGS))
        for _ in range(runs):
            context = browser.new_context()
            page = context.new_page()
            page.goto(f"{site.demo_url}/index.html?cookies=never&delay=0")
            page.get_by_role("searchbox", name="Search products").fill("trail shoes")
            page.get_by_role("button", name="Search", exact=True).click()
            expect(page).to_have_url(re.compile(r"/search\.html\?q="))
            page.get_by_label("In stock only").check()
            expect(page.locator("#result-count")).to_have_text("2 results")
            context.close()
        browser.close()


def handwritten_wall(processes: int, runs: int) -> float:
    """Wall time of ``processes`` processes doing ``runs`` hand-written runs in all, side by side."""
    share = [runs // processes + (1 if i < runs % processes else 0) for i in range(processes)]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    started = time.perf_counter()
    procs = [subprocess.Popen([sys.executable, str(Path(__file__)), "--handwritten", str(n)], env=env) for n in share]
    codes = [p.wait() for p in procs]
    if any(codes):
        raise SystemExit(f"the hand-written runs failed: exit codes {codes}")
    return time.perf_counter() - started


def row_xdist_short(quick: bool, files: int = 50, rounds: int = 0) -> None:
    """Many short workflows (bench_short.py): serial vs ``-n 2`` with each ``--dist``, whole pytest
    processes, alternating; and the ceiling, the same runs hand-written in Playwright in one
    process vs two at once."""
    files = 12 if quick else files
    rounds = rounds or (1 if quick else 2)
    walls: dict[str, list[float]] = {"serial": [], "load": [], "worksteal": [], "hand 1": [], "hand 2": []}
    with tempfile.TemporaryDirectory(prefix="reuseit-run-short-") as tmp:
        out = Path(tmp)
        suite = write_suite(out / "suite", files)
        base = [str(suite), "--reuseit-llm", "off"]
        sides = {
            "serial": lambda: run_pytest(base, out, out / "serial"),
            "load": lambda: run_pytest([*base, "-n", "2", "--dist", "load"], out, out / "load"),
            "worksteal": lambda: run_pytest([*base, "-n", "2", "--dist", "worksteal"], out, out / "ws"),
            "hand 1": lambda: handwritten_wall(1, files),
            "hand 2": lambda: handwritten_wall(2, files),
        }
        order = list(sides)
        for r in range(rounds):
            for name in order if r % 2 == 0 else reversed(order):
                walls[name].append(sides[name]())
                log(f"short workflows, round {r + 1}: {name} {walls[name][-1]:.1f} s")
    best = min(("load", "worksteal"), key=lambda d: med(walls[d]))
    speedup = med(walls["serial"]) / med(walls[best])
    ceiling = med(walls["hand 1"]) / med(walls["hand 2"])
    ROWS.append(
        Row(
            f"`-n 2` vs serial on {files} short workflows (2 steps, a DOM check after each; no model)",
            "≥ 1.5×",
            f"{speedup:.2f}×",
            None if quick else speedup >= 1.5,
            f"whole pytest process: serial {listing(walls['serial'], '{:.1f}')} s; -n 2 --dist load "
            f"{listing(walls['load'], '{:.1f}')} s, worksteal {listing(walls['worksteal'], '{:.1f}')} s (best: {best}); "
            f"the same runs hand-written in Playwright, two processes vs one: {ceiling:.2f}× "
            f"({listing(walls['hand 1'], '{:.1f}')} s vs {listing(walls['hand 2'], '{:.1f}')} s)",
        )
    )
    log(f"short workflows: -n 2 {speedup:.2f}x, hand-written ceiling {ceiling:.2f}x")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    ap.add_argument("--files", type=int, default=50)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--handwritten", type=int, metavar="RUNS", help="do RUNS hand-written runs in this process")
    args = ap.parse_args(argv)
    if args.handwritten is not None:
        handwritten(args.handwritten)
        return 0
    with tempfile.TemporaryDirectory(prefix="reuseit-bench-short-"):
        row_xdist_short(quick=False, files=args.files, rounds=args.rounds)
    for r in ROWS:
        print(f"{r.measure}: {r.value} (goal {r.goal}); {r.detail}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
