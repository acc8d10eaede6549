"""Mutation benchmark of the example workflows: do they catch regressions, and at what cost?

Runs, in one go on this machine, the plain clean run of the selected workflows and then
``reuseit mutate`` on them (both with the same pytest options), and prints markdown tables:
per site (demo, TodoMVC, Django admin, Datasette, MiniWoB++) and per operator, the mutants killed /
survived (healed around) / broken / timeout / not applied, the score, the false alarms and the
localisation; then the cost as a ratio to the clean run measured side by side.

Checks in words are not judged here (``--reuseit-llm off``): only DOM checks can kill a mutant.

    .venv/bin/python benchmarks/bench_mutation.py [--paths workflows] [--max-mutants N] [--report FILE] [--workers N]
    .venv/bin/python benchmarks/bench_mutation.py --from-report FILE   # tables of an earlier run
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))

from examples_copy import fixed_examples  # noqa: E402

PYTEST_ARGS = ["--reuseit-llm", "off", "-p", "no:cacheprovider", "-q"]
SITES = (
    ("demo", "workflows/demo/"),
    ("TodoMVC", "workflows/apps/todomvc/"),
    ("Django admin", "workflows/apps/admin/"),
    ("Datasette", "workflows/apps/datasette/"),
    ("MiniWoB++", "workflows/miniwob/"),
)


def _env() -> dict[str, str]:
    # The demo login workflow types this secret (ci/run-examples.sh sets it the same way).
    return {**os.environ, "DEMO_PASSWORD": os.environ.get("DEMO_PASSWORD", "demo-pass")}


def _timed(cmd: list[str], root: Path) -> tuple[float, subprocess.CompletedProcess[str]]:
    started = time.monotonic()
    proc = subprocess.run(cmd, cwd=root, capture_output=True, text=True, env=_env())
    return time.monotonic() - started, proc


def _row(name: str, mutants: list[dict[str, Any]]) -> str:
    out = Counter(m["outcome"] for m in mutants)
    breaking = [m for m in mutants if m["kind"] == "breaking"]
    benign = [m for m in mutants if m["kind"] == "benign" and m["outcome"] in ("clean", "false alarm")]
    killed, survived = out["killed"], out["survived"] + out["healed around"]
    score = f"{100 * killed / (killed + survived):.1f}%" if killed + survived else "n/a"
    localised = sum(1 for m in breaking if m.get("localised"))
    loc = f"{100 * localised / killed:.0f}%" if killed else "n/a"
    alarms = f"{out['false alarm']} of {len(benign)}" if benign else "—"
    na = out["not applied"] + out["not run"]
    return (
        f"| {name} | {len(breaking)} | {killed} | {survived} ({out['healed around']}) | {out['broken']} | "
        f"{out['timeout']} | {na} | {score} | {alarms} | {loc} |"
    )


def tables(report: dict[str, Any]) -> list[str]:
    mutants = report["reuseit"]["mutants"]
    head = (
        "| {} | breaking | killed | survived (healed around) | broken | timeout | not applied | score | "
        "false alarms | localised |"
    )
    rule = "|---|---|---|---|---|---|---|---|---|---|"
    lines = [head.format("site"), rule]
    for name, prefix in SITES:
        chosen = [m for m in mutants if m["target"]["file"].startswith(prefix)]
        if chosen:
            lines.append(_row(name, chosen))
    lines.append(_row("**all**", mutants))
    lines += ["", head.format("operator"), rule]
    for op in dict.fromkeys(m["operator"] for m in mutants):
        lines.append(_row(f"`{op}`", [m for m in mutants if m["operator"] == op]))
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--paths", nargs="+", default=["workflows"])
    parser.add_argument("--max-mutants", type=int, default=0)
    parser.add_argument("--report", default="reuseit-output/bench-mutation.json")
    parser.add_argument(
        "--workers",
        type=int,
        default=2,
        help="-n of the mutation run (the clean run is timed at -n 2, and at -n N too when N differs)",
    )
    parser.add_argument("--from-report", default="", help="print the tables of an earlier report, run nothing")
    args = parser.parse_args()
    if args.from_report:
        report = json.loads(Path(args.from_report).read_text(encoding="utf-8"))
        print("\n".join(tables(report)))
        print(f"\n{report['reuseit']['summary_line']}")
        return 0
    # In a copy whose random cookie banners are decided once (examples_copy.py): a run that meets
    # the banner waits out a pre check, and a random draw per run made the cost vary by minutes.
    print(f"machine: {os.cpu_count()} cores; load average (1, 5, 15 min) at the start {os.getloadavg()}")
    with tempfile.TemporaryDirectory(prefix="reuseit-bench-mutation-") as tmp:
        root = fixed_examples(Path(tmp))
        cleans = {}
        for workers in dict.fromkeys((2, args.workers)):
            clean_s, clean = _timed(
                [sys.executable, "-m", "pytest", *args.paths, "-n", str(workers), *PYTEST_ARGS], root
            )
            last = clean.stdout.strip().splitlines()[-1]
            print(f"clean run, -n {workers}: {clean_s:.1f} s (pytest exit {clean.returncode}): {last}")
            cleans[workers] = clean_s
        report_file = (ROOT / args.report).resolve()
        mutate = [sys.executable, "-m", "pytest_reuseit.cli", "mutate", *args.paths, "--report", str(report_file)]
        if args.max_mutants:
            mutate += ["--max-mutants", str(args.max_mutants)]
        mutate_s, proc = _timed([*mutate, "--", "-n", str(args.workers), *PYTEST_ARGS[:-1]], root)
    if proc.returncode not in (0, 1):
        print(proc.stdout[-3000:], proc.stderr[-3000:])
        return 1
    report = json.loads(report_file.read_text(encoding="utf-8"))
    print("\n".join(tables(report)))
    print(f"\n{report['reuseit']['summary_line']}")
    for workers, clean_s in cleans.items():
        print(
            f"cost: mutation run (-n {args.workers}) {mutate_s:.0f} s = {mutate_s / clean_s:.1f}x "
            f"the clean run at -n {workers} ({clean_s:.0f} s)"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
