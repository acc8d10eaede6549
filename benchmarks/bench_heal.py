"""The morning after a rename: what ``reuseit heal`` costs against what a team would do by hand.

A shop served on 127.0.0.1 (tests/support/heal_shop.py) and a suite laid out as users write it:
many short files, a check after every step. ``--files`` workflows add a product by clicking "Add to
cart" (step 1, checked) then check the cart line (step 2). Night 1 passes and is reported; the
deploy renames the button "Add to basket"; night 2 fails everywhere and is reported. Then, timed
side by side in this one run:

1. ``reuseit heal --from REPORT/healing.json`` (the dry run: every diff), and ``--apply``;
2. the ceiling of any edit that keeps a person's comments: each file loaded round trip by the
   same editor and validated, no edit made (the least a careful writer must do per file);
3. the night itself: pytest on the failing night (the comparison with the last pass and the
   proof happen inside it), and pytest on the night after the edits (every file passes again);
4. ``--verify`` (before ``--apply``, so nothing is written yet): how many runs it makes, and what
   it costs beyond the dry run, against one run of each touched workflow as pytest makes it with
   one worker (verify runs them one after another in one browser) on the night after the edits.

    python benchmarks/bench_heal.py [--files 60] [--workers 2] [--json out.json]

About two minutes at 60 files on 2 cores.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from pytest_reuseit import cli  # noqa: E402
from pytest_reuseit.authoring.yamledit import WorkflowDoc  # noqa: E402
from tests.support.heal_shop import Deploy, handler  # noqa: E402
from tests.support.serve import Served  # noqa: E402

WORKFLOW = """# Add product {n}'s tea to the cart, then look at the cart line.
name: Add tea {n}
task: Put the green tea in the cart and check the cart
start_url: "{{base_url}}/product?item=tea&n={n}"
settings: {{retries: 1, action_timeout: 0.5, check_timeout: 2}}
steps:
  - action: Click "Add to cart"
    do:
      - click: {{role: button, name: Add to cart}}  # the shop's main button
    post:
      - check: The cart holds one item
        expect: {{text: {{role: status, equals: 1 item in cart}}}}
  - action: Look at the price beside the cart line
    do: []
    post:
      - check: The price is shown
        expect: {{visible: {{test_id: price}}}}
"""


def pytest_night(root: Path, url: str, results: str, workers: int) -> tuple[float, str]:
    started = time.perf_counter()
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "workflows", "-p", "no:cacheprovider", "-q", "-n", str(workers),
         "--base-url", url, "--alluredir", results],
        cwd=root, capture_output=True, text=True, timeout=1800, env={**os.environ, "REUSEIT_LLM": "off"},
    )  # fmt: skip
    return time.perf_counter() - started, run.stdout.splitlines()[-1] if run.stdout else run.stderr[-300:]


def command(root: Path, *args: str) -> tuple[int, float, str]:
    out = io.StringIO()
    started = time.perf_counter()
    with contextlib.chdir(root), contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        code = cli.main(list(args))
    return code, time.perf_counter() - started, out.getvalue()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--files", type=int, default=60)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    for name in [n for n in os.environ if n.startswith(("OPENAI_", "REUSEIT_"))]:
        del os.environ[name]
    deploy = Deploy()
    rows: dict[str, Any] = {"files": args.files, "workers": args.workers}
    with tempfile.TemporaryDirectory(prefix="bench-heal-") as tmp, Served(handler(deploy)) as site:
        root = Path(tmp)
        (root / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
        (root / "workflows").mkdir()
        files = [root / "workflows" / f"add-{n:03d}.reuseit.yaml" for n in range(args.files)]
        for n, path in enumerate(files):
            path.write_text(WORKFLOW.format(n=n), encoding="utf-8")

        rows["night 1 (passes)"], line1 = pytest_night(root, site.url, "results-1", args.workers)
        assert command(root, "report", "--results", "results-1", "--output", "report-1", "--no-allure")[0] == 0
        deploy.add_label = "Add to basket"
        rows["night 2 (renamed, fails)"], line2 = pytest_night(root, site.url, "results-2", args.workers)
        code, report_s, report = command(
            root, "report", "--results", "results-2", "--output", "report-2", "--no-allure"
        )
        assert code == 0, report
        rows["report of night 2"] = report_s

        before = {p: p.read_text(encoding="utf-8") for p in files}
        code, rows["heal dry run"], shown = command(root, "heal", "--from", "report-2/healing.json")
        assert code == 0 and all(p.read_text(encoding="utf-8") == before[p] for p in files), shown
        started = time.perf_counter()
        for path in files:  # the ceiling: every file round trip through the same editor, validated
            WorkflowDoc.load(path).validated()
        rows["ceiling: load + validate each file"] = time.perf_counter() - started
        code, rows["heal --verify (dry run + runs)"], verified = command(
            root, "heal", "--from", "report-2/healing.json", "--verify"
        )
        assert code == 0 and all(p.read_text(encoding="utf-8") == before[p] for p in files), verified
        runs = sum(1 for line in verified.splitlines() if line.startswith(("  passed: ", "  not confirmed: ")))
        code, rows["heal --apply"], applied = command(root, "heal", "--from", "report-2/healing.json", "--apply")
        assert code == 0, applied
        changed = sum(1 for p in files if p.read_text(encoding="utf-8") != before[p])
        one_line = all(
            sum(a != b for a, b in zip(before[p].splitlines(), p.read_text(encoding="utf-8").splitlines(), strict=True))
            == 1
            for p in files
        )
        rows["night 3 (after heal)"], line3 = pytest_night(root, site.url, "results-3", args.workers)
        rows["night 3, one worker"], line3_serial = pytest_night(root, site.url, "results-4", 0)

    causes = shown.count("cause: ")
    print(f"{args.files} files, a check after every step, -n {args.workers}")
    print(f"  night 1: {line1}  ({rows['night 1 (passes)']:.1f} s)")
    print(f"  night 2: {line2}  ({rows['night 2 (renamed, fails)']:.1f} s)")
    print(f"  report: {next((x for x in report.splitlines() if 'proven by' in x), '').strip()[:160]}")
    print(f"  heal dry run: {causes} cause, {shown.count('--- a/')} hunks, {rows['heal dry run']:.2f} s")
    print(
        f"  heal --apply: {changed} of {args.files} files changed, one line each: {one_line}; {rows['heal --apply']:.2f} s"
    )
    ceiling = rows["ceiling: load + validate each file"]
    print(f"  ceiling (each file loaded round trip and validated, no edit): {ceiling:.2f} s")
    print(
        f"  ratio: dry run {rows['heal dry run'] / ceiling:.2f}x, --apply {rows['heal --apply'] / ceiling:.2f}x the ceiling"
    )
    print(f"  night 3: {line3}  ({rows['night 3 (after heal)']:.1f} s)")
    extra = rows["heal --verify (dry run + runs)"] - rows["heal dry run"]
    serial = rows["night 3, one worker"]
    print(
        f"  heal --verify: {runs} runs for {shown.count('--- a/')} touched workflows; "
        f"{rows['heal --verify (dry run + runs)']:.1f} s, "
        f"{extra:.1f} s beyond the dry run"
    )
    print(f"  one run of each touched workflow (pytest, one worker): {line3_serial}  ({serial:.1f} s)")
    print(f"  ratio: --verify's runs {extra / serial:.2f}x one pytest run of each touched workflow")
    rows.update(causes=causes, changed=changed, one_line_each=one_line, night3=line3, verify_runs=runs)
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
