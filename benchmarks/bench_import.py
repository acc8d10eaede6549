"""reuseit import on a real suite: does what it writes keep the suite's promises, and more?

The suite is tests/suites/todomvc/todo.spec.ts (Playwright Test, TypeScript, npm
``@playwright/test`` on the project's Chromium), against TodoMVC's plain JavaScript example (npm
``todomvc``, unmodified), served on 127.0.0.1. Measured side by side in one run:

1. the suite with ``--trace on``; its traces imported with derivation (``--runs``, default 3);
2. the imported workflows run 3 times on the same app served on another address;
3. after a refactor that renames ids and a class (the app otherwise the same): the suite, and the
   workflows;
4. real bugs made in the app's code, and harmless changes: which the suite catches (a test
   fails) and which the workflows catch (a workflow fails);
5. wall time of the suite and of the imported workflows on the same app, one worker each;
6. with ``--mutate``: ``reuseit mutate`` on the imported workflows and on the hand-written
   TodoMVC workflows of workflows/apps/todomvc (the same app), both against this server.

    python benchmarks/bench_import.py [--runs 3] [--mutate] [--json out.json]

Needs ``bash ci/install.sh`` (TodoMVC, @playwright/test). About 3 minutes; 8 more with --mutate.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from http.server import SimpleHTTPRequestHandler
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.support.serve import Served  # noqa: E402
from tests.support.todomvc_refactor import BUGS, HARMLESS, make_variant  # noqa: E402

SUITE = ROOT / "tests" / "suites" / "todomvc"
TODOMVC = ROOT / "node_modules" / "todomvc"
PLAYWRIGHT = ROOT / "node_modules" / ".bin" / "playwright"


class _Quiet(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - stdlib signature
        pass


def serve(folder: Path) -> Served:
    return Served(functools.partial(_Quiet, directory=str(folder)))


def suite(base_url: str, results: Path) -> tuple[int, int, float]:
    """(passed, failed, seconds) of the Playwright Test suite (todo.spec.ts) on ``base_url``."""
    started = time.perf_counter()
    out = subprocess.run(
        [str(PLAYWRIGHT), "test", "todo.spec.ts", "--trace", "on", "--workers", "1", "--timeout", "5000"],
        capture_output=True,
        text=True,
        cwd=SUITE,
        env={**os.environ, "TODO_URL": base_url, "RESULTS_DIR": str(results), "CI": "1"},
    ).stdout
    seconds = time.perf_counter() - started
    passed = re.search(r"(\d+) passed", out)
    failed = re.search(r"(\d+) failed", out)
    return int(passed.group(1)) if passed else 0, int(failed.group(1)) if failed else 0, seconds


def workflows(folder: Path, base_url: str) -> tuple[dict[str, int], float, list[str]]:
    """(outcome counts, seconds, failed workflow names) of one pytest run of the imported workflows."""
    started = time.perf_counter()
    out = subprocess.run(
        [sys.executable, "-m", "pytest", str(folder), f"--base-url={base_url}", "-p", "no:cacheprovider", "-q"],
        capture_output=True,
        text=True,
        cwd=folder,
    ).stdout
    seconds = time.perf_counter() - started
    m = re.search(r"(\d+) passed, (\d+) recovered, (\d+) healed, (\d+) failed, (\d+) broken", out)
    names = ("passed", "recovered", "healed", "failed", "broken")
    counts = dict(zip(names, map(int, m.groups()), strict=True)) if m else dict.fromkeys(names, -1)
    failed = re.findall(r"^FAILED .*?::(\S+)", out, re.M)
    return counts, seconds, failed


def mutate(paths: list[str], base_url: str) -> str:
    out = subprocess.run(
        [sys.executable, "-m", "pytest_reuseit.cli", "mutate", *paths, "--", f"--base-url={base_url}"],
        capture_output=True,
        text=True,
        cwd=ROOT,
    ).stdout
    line = next((ln for ln in out.splitlines() if ln.startswith("mutation score")), out[-300:])
    return line


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--mutate", action="store_true")
    parser.add_argument("--json", default="")
    args = parser.parse_args()
    report: dict[str, Any] = {}
    work = Path(tempfile.mkdtemp(prefix="bench-import-"))
    try:
        with serve(TODOMVC) as ran, serve(TODOMVC) as elsewhere:
            passed, failed, suite_s = suite(ran.url, work / "results")
            report["suite"] = {"passed": passed, "failed": failed, "seconds": round(suite_s, 1)}
            print(f"suite on the app: {passed} passed, {failed} failed in {suite_s:.1f} s (1 worker)")
            started = time.perf_counter()
            imported = subprocess.run(
                [sys.executable, "-m", "pytest_reuseit.cli", "import", str(work / "results"), "-o", str(work / "wf")]
                + ["--base-url", ran.url, "--runs", str(args.runs)],
                capture_output=True,
                text=True,
                cwd=ROOT,
            )
            import_s = time.perf_counter() - started
            total = imported.stdout.strip().splitlines()[-1]
            report["import"] = {"line": total, "seconds": round(import_s, 1), "exit": imported.returncode}
            print(f"import ({import_s:.1f} s, exit {imported.returncode}): {total}")
            rounds = [workflows(work / "wf", elsewhere.url) for _ in range(3)]
            report["elsewhere"] = [r[0] for r in rounds]
            print("imported workflows on the same app elsewhere, 3 rounds:", [r[0] for r in rounds])
            wall = [r[1] for r in rounds]
            report["wall"] = {"suite": round(suite_s, 1), "workflows": [round(w, 1) for w in wall]}
            print(
                f"wall time on 1 worker: suite {suite_s:.1f} s, imported workflows {min(wall):.1f}-{max(wall):.1f} s "
                f"({min(wall) / suite_s:.2f}x-{max(wall) / suite_s:.2f}x)"
            )
            variants: dict[str, dict[str, Any]] = {}
            cases = [("refactor: ids and a class renamed", None, True, False)]
            cases += [(name, edit, False, True) for name, edit in BUGS.items()]
            cases += [(name, edit, False, False) for name, edit in HARMLESS.items()]
            for name, edit, refactor, is_bug in cases:
                app = make_variant(TODOMVC, work / "variant", edit, refactor=refactor)
                with serve(app) as site:
                    s_passed, s_failed, _ = suite(site.url, work / "variant-results")
                    counts, _, failed_names = workflows(work / "wf", site.url)
                suite_caught = s_failed > 0
                wf_caught = counts["failed"] + counts["broken"] > 0
                variants[name] = {
                    "bug": is_bug,
                    "suite_failed": s_failed,
                    "workflows": counts,
                    "workflows_failed": failed_names,
                }
                kind = "bug" if is_bug else "harmless"
                said = ("caught", "missed") if is_bug else ("false alarm", "quiet")
                print(
                    f"{kind:8} {name:38} suite: {s_failed} of {s_passed + s_failed} failed ({said[0] if suite_caught else said[1]}); "
                    f"workflows: {counts['failed']} failed, {counts['recovered']} recovered ({said[0] if wf_caught else said[1]})"
                )
            report["variants"] = variants
            bugs = {n: v for n, v in variants.items() if v["bug"]}
            wf_bugs = sum(1 for v in bugs.values() if v["workflows"]["failed"] + v["workflows"]["broken"] > 0)
            suite_bugs = sum(1 for v in bugs.values() if v["suite_failed"] > 0)
            both = sum(
                1
                for v in bugs.values()
                if v["suite_failed"] > 0 and v["workflows"]["failed"] + v["workflows"]["broken"] > 0
            )
            harmless = {n: v for n, v in variants.items() if not v["bug"]}
            false_alarms = sum(1 for v in harmless.values() if v["workflows"]["failed"] + v["workflows"]["broken"] > 0)
            print(
                f"bugs caught: suite {suite_bugs} of {len(bugs)}, imported workflows {wf_bugs} of {len(bugs)} "
                f"({both} of the suite's {suite_bugs}); false alarms on harmless changes: {false_alarms} of {len(harmless)}"
            )
            if args.mutate:
                report["mutate"] = {
                    "imported": mutate([str(work / "wf")], elsewhere.url),
                    "hand-written": mutate([str(ROOT / "workflows" / "apps" / "todomvc")], ""),
                }
                print("reuseit mutate, imported:", report["mutate"]["imported"])
                print("reuseit mutate, hand-written:", report["mutate"]["hand-written"])
        if args.json:
            Path(args.json).write_text(json.dumps(report, indent=1), encoding="utf-8")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
