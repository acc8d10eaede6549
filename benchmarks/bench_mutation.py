"""Mutation benchmark of the example workflows: do they catch regressions, and at what cost?

Runs, in one go on this machine, the plain clean run of the selected workflows and then
``reuseit mutate`` on them (both with the same pytest options), and prints markdown tables:
per site (demo, TodoMVC, Django admin, Datasette, MiniWoB++) and per operator, the mutants killed /
survived (healed around) / broken / timeout / not applied, the score, the false alarms and the
localisation; then the cost as a ratio to the clean run measured side by side.

Checks in words are not judged here (``--reuseit-llm off``): only DOM checks can kill a mutant.

    .venv/bin/python benchmarks/bench_mutation.py [--paths workflows] [--max-mutants N] [--report FILE] [--workers N]
    .venv/bin/python benchmarks/bench_mutation.py --from-report FILE   # tables of an earlier run
    .venv/bin/python benchmarks/bench_mutation.py --incremental        # then --incremental: unchanged, one file edited
    .venv/bin/python benchmarks/bench_mutation.py --rerender 5         # only: pages that re-render, 5 runs

``--incremental`` times, after the whole run, ``reuseit mutate --incremental`` with nothing changed
and with one workflow file edited, against the clean run. ``--rerender N`` runs ``reuseit mutate``
N times on workflows whose every check is exact, against pages that re-render their targets (a page
of the tests that renders again in a microtask and 150 ms later; the React TodoMVC's filter links),
and counts per run the survivors (none may be: an exact check that read its fault fails) and the
faults not applied.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import shutil
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

sys.path.insert(0, str(ROOT))

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


def per_mutant_cost(report: dict[str, Any]) -> str:
    """Each mutant run's time over its workflow run's clean time in the same command (the issue's
    per-mutant goal: <= 1.0x), over the runs of this command (a reused verdict ran nothing)."""
    clean = {r["nodeid"]: r["duration"] for r in report["reuseit"].get("clean_runs", []) if r.get("duration")}
    ratios = []
    spent = based = 0.0
    for m in report["reuseit"]["mutants"]:
        if m.get("reused"):
            continue
        for run in m.get("runs", []):
            base = clean.get(str(run.get("nodeid", "")).split("@")[0])
            if base and run.get("duration"):
                ratios.append(run["duration"] / base)
                spent, based = spent + run["duration"], based + base
    if not ratios:
        return "per mutant: no mutant run in this command"
    ratios.sort()
    mean = sum(ratios) / len(ratios)
    return (
        f"per mutant run: in all {spent / based:.2f}x ({spent:.0f} s of mutant runs over {based:.0f} s of their "
        f"workflows' clean runs); {mean:.2f}x on average (median {ratios[len(ratios) // 2]:.2f}x, "
        f"90th percentile {ratios[int(0.9 * (len(ratios) - 1))]:.2f}x, {len(ratios)} runs)"
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


def rerender(runs: int) -> int:
    """``reuseit mutate`` ``runs`` times on pages that re-render what exact checks read."""
    from http.server import SimpleHTTPRequestHandler

    from tests.support.mutation_workflows import REACT, RERENDER
    from tests.support.serve import Served

    class Quiet(SimpleHTTPRequestHandler):
        def log_message(self, format: str, *args: object) -> None:  # noqa: A002
            pass

    cases = [("re-rendering page", RERENDER, ROOT / "tests" / "pages")]
    if (ROOT / "node_modules" / "todomvc" / "examples" / "react").is_dir():
        cases.append(("React TodoMVC filters", REACT, ROOT / "node_modules" / "todomvc"))
    print("| workflow | run | check mutants | killed | survived | not applied | seconds |")
    print("|---|---|---|---|---|---|---|")
    for name, text, folder in cases:
        with (
            tempfile.TemporaryDirectory(prefix="reuseit-bench-rerender-") as tmp,
            Served(functools.partial(Quiet, directory=str(folder))) as site,
        ):
            (Path(tmp) / "w.reuseit.yaml").write_text(text, encoding="utf-8")
            for n in range(1, runs + 1):
                cmd = [sys.executable, "-m", "pytest_reuseit.cli", "mutate", ".", "--operators"]
                cmd += ["element_removed,number_off_by_one,word_replaced", "--", "--base-url", site.url]
                took, proc = _timed([*cmd, *PYTEST_ARGS[:-1]], Path(tmp))
                if proc.returncode not in (0, 1):
                    print(proc.stdout[-2000:], proc.stderr[-2000:])
                    return 1
                report_file = Path(tmp) / "reuseit-output" / "mutation.json"
                if not report_file.exists():
                    print(proc.stdout[-2000:], proc.stderr[-2000:])
                    return 1
                report = json.loads(report_file.read_text(encoding="utf-8"))
                checks = [m for m in report["reuseit"]["mutants"] if m["target"]["what"] == "check"]
                out = Counter(m["outcome"] for m in checks)
                print(
                    f"| {name} | {n} | {len(checks)} | {out['killed']} | {out['survived'] + out['healed around']} | "
                    f"{out['not applied']} | {took:.0f} |"
                )
    return 0


def incremental(paths: list[str], workers: int, report_file: Path, root: Path, clean_s: float) -> None:
    """--incremental after the whole run: nothing changed, then one workflow file edited."""
    kept_report = report_file.with_name(f"{report_file.stem}-incremental.json")  # the whole run's stays as it is
    shutil.copy(report_file, kept_report)
    report_file = kept_report
    cmd = [sys.executable, "-m", "pytest_reuseit.cli", "mutate", *paths, "--report", str(report_file), "--incremental"]
    cmd += ["--", "-n", str(workers), *PYTEST_ARGS[:-1]]
    took, proc = _timed(cmd, root)
    kept = next((line for line in proc.stdout.splitlines() if line.startswith("incremental:")), "")
    print(f"incremental, nothing changed: {took:.0f} s = {took / clean_s:.2f}x the clean run; {kept}")
    edited = root / "workflows" / "apps" / "todomvc" / "routing.reuseit.yaml"
    if edited.exists():
        # The goal for one file edited: its own mutants' cost (their runs in the whole run, over the
        # workers) plus one clean run.
        whole = json.loads(kept_report.read_text(encoding="utf-8"))["reuseit"]["mutants"]
        own_s = sum(
            r.get("duration", 0.0)
            for m in whole
            if m["target"]["file"].endswith("todomvc/routing.reuseit.yaml")
            for r in m.get("runs", [])
        )
        budget = own_s / workers + clean_s
        edited.write_text(edited.read_text(encoding="utf-8") + "# edited\n", encoding="utf-8")
        took, proc = _timed(cmd, root)
        kept = next((line for line in proc.stdout.splitlines() if line.startswith("incremental:")), "")
        print(
            f"incremental, {edited.name} edited: {took:.0f} s = {took / clean_s:.2f}x the clean run, "
            f"{took / budget:.2f}x its goal (its own mutants {own_s:.0f} s over {workers} workers + the clean "
            f"run = {budget:.0f} s); {kept}"
        )
        # The same goal with its own mutants' cost as a user pays it: `reuseit mutate` on that file
        # alone (its sessions' start, its clean run and its second tries included).
        alone_report = report_file.with_name(f"{report_file.stem}-alone.json")
        alone = [sys.executable, "-m", "pytest_reuseit.cli", "mutate", str(edited.relative_to(root))]
        alone += ["--report", str(alone_report), "--", "-n", str(workers), *PYTEST_ARGS[:-1]]
        alone_s, _ = _timed(alone, root)
        print(
            f"  its own mutants alone (reuseit mutate {edited.name}): {alone_s:.0f} s; the edited run is "
            f"{took / (alone_s + clean_s):.2f}x that + the clean run ({alone_s + clean_s:.0f} s)"
        )


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
    parser.add_argument(
        "--incremental", action="store_true", help="then time --incremental: unchanged, one file edited"
    )
    parser.add_argument("--rerender", type=int, default=0, metavar="N", help="only: N runs on re-rendering pages")
    args = parser.parse_args()
    if args.rerender:
        return rerender(args.rerender)
    if args.from_report:
        report = json.loads(Path(args.from_report).read_text(encoding="utf-8"))
        print("\n".join(tables(report)))
        print(f"\n{report['reuseit']['summary_line']}")
        print(per_mutant_cost(report))
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
        if args.incremental and proc.returncode in (0, 1):
            incremental(args.paths, args.workers, report_file, root, cleans[2])
    if proc.returncode not in (0, 1):
        print(proc.stdout[-3000:], proc.stderr[-3000:])
        return 1
    report = json.loads(report_file.read_text(encoding="utf-8"))
    print("\n".join(tables(report)))
    print(f"\n{report['reuseit']['summary_line']}")
    print(per_mutant_cost(report))
    for workers, clean_s in cleans.items():
        print(
            f"cost: mutation run (-n {args.workers}) {mutate_s:.0f} s = {mutate_s / clean_s:.1f}x "
            f"the clean run at -n {workers} ({clean_s:.0f} s)"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
