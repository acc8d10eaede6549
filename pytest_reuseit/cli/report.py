"""``reuseit report``: the Allure HTML report from the results, with history kept across runs."""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from ..report import allure_files, trends

ALLURE_ENV = "REUSEIT_ALLURE"


def find_allure(explicit: str | None) -> list[str] | None:
    """The Allure 2 command line: --allure, $REUSEIT_ALLURE, `allure` on PATH, or a local npm install."""
    for candidate in (explicit, os.environ.get(ALLURE_ENV)):
        if candidate:
            return candidate.split()
    found = shutil.which("allure")
    if found:
        return [found]
    local = Path("node_modules/.bin/allure")
    if local.exists():
        return [str(local)]
    return None


def _generate(allure: list[str], results: Path, output: Path, *, single_file: bool, env: dict[str, str]) -> bool:
    cmd = [*allure, "generate", str(results), "-o", str(output), "--clean"] + (["--single-file"] if single_file else [])
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=600)
    if proc.returncode != 0:
        print(f"allure generate failed ({proc.returncode}):\n{proc.stdout}{proc.stderr}", file=sys.stderr)
    return proc.returncode == 0


_SHORT_LIVED_JVM = "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC"


def cmd_report(args: argparse.Namespace) -> int:
    results, output = Path(args.results), Path(args.output)
    if not results.is_dir() or not any(results.glob("*-result.json")):
        print(f"no Allure results in {results}: run pytest with --alluredir {results} first", file=sys.stderr)
        return 2
    # The trend history lives beside the report, which `allure generate --clean` empties: read it first.
    history = trends.load(output)
    allure = find_allure(args.allure)
    if allure is None:
        page = trends.update(results, output, history)
        print(f"trends: {page.resolve()}", file=sys.stderr)
        print(
            "the Allure command line is not installed: npm install -g allure-commandline "
            "(needs Java: apt-get install default-jre-headless), or pass --allure CMD",
            file=sys.stderr,
        )
        return 2
    allure_files.write_categories(results)
    # Trends need the previous report's history inside the new results.
    allure_history = output / "history"
    if allure_history.is_dir():
        shutil.copytree(allure_history, results / "history", dirs_exist_ok=True)
    # Allure's JVM runs for a few seconds: the client compiler alone and one GC thread spend about
    # 40% less CPU on the same report. JAVA_OPTS of the caller's own come after ours and win.
    java_opts = f"{_SHORT_LIVED_JVM} {os.environ.get('JAVA_OPTS', '')}".strip()
    env = {**os.environ, "ALLURE_NO_ANALYTICS": "true", "JAVA_OPTS": java_opts}
    if not _generate(allure, results, output, single_file=not args.multi_file, env=env):
        return 1
    if not args.multi_file:
        # A single-file report has no history/ folder: build the classic one aside only to keep
        # its history next to index.html, where the next run picks it up.
        with tempfile.TemporaryDirectory(prefix="allure-history-") as tmp:
            if not _generate(allure, results, Path(tmp) / "report", single_file=False, env=env):
                return 1
            shutil.copytree(Path(tmp) / "report" / "history", allure_history, dirs_exist_ok=True)
    page = trends.update(results, output, history)
    index = output / "index.html"
    print(f"report: {index.resolve()}  (open it in a browser; it works offline)")
    # What the report weighs: a big one is slow to open and to keep as a CI artifact. The history
    # kept beside it for the next run is no part of what a reader opens.
    weighed = output if args.multi_file else index
    files = [weighed] if weighed.is_file() else [p for p in output.rglob("*") if p.is_file()]
    report_bytes = sum(p.stat().st_size for p in files if "history" not in p.relative_to(output).parts)
    print(f"{weighed}{'/' if args.multi_file else ''}: {report_bytes / 1_000_000:.1f} MB")
    print(f"trends: {page.resolve()}  (model cost, calls, recovered and healed runs per workflow)")
    return 0


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("report", help="generate the Allure HTML report (keeps history for trends)")
    p.add_argument("--results", default="allure-results", help="Allure results folder [allure-results]")
    p.add_argument("--output", default="allure-report", help="report folder [allure-report]")
    p.add_argument("--allure", help="Allure 2 command (default: allure on PATH)")
    p.add_argument("--multi-file", action="store_true", help="a classic multi-file report instead of one index.html")
    p.set_defaults(func=cmd_report)
