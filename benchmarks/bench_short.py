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


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    ap.add_argument("--files", type=int, default=50)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--handwritten", type=int, metavar="RUNS", help="do RUNS hand-written runs in this process")
    args = ap.parse_args(argv)
    if args.handwritten is not None:
        handwritten(args.handwritten)
        return 0
    import run  # noqa: PLC0415 - the row lives in run.py, beside the others

    with tempfile.TemporaryDirectory(prefix="reuseit-bench-short-"):
        run.row_xdist_short(quick=False, files=args.files, rounds=args.rounds)
    for r in run.ROWS:
        print(f"{r.measure}: {r.value} (goal {r.goal}); {r.detail}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
