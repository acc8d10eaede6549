"""``reuseit mutate``: would the workflows notice if the site broke? (docs/mutation.md)"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..mutation import allure_out, operators, report
from ..mutation.session import MutateOptions, UsageError, progress_line, run


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "mutate",
        help="inject one fault at a time from the browser side and count what the workflows catch",
        description="Runs the workflows clean, makes mutants (one fault each) of what they touch, runs each "
        "mutant against a run that touched it, and reports the mutation score. Options after -- go to pytest.",
    )
    p.add_argument("paths", nargs="*", default=[], help="workflow files or folders, as pytest selects them")
    p.add_argument(
        "--operators", default="", help=f"comma-separated operator names (default: all): {', '.join(operators.names())}"
    )
    p.add_argument(
        "--break-at", type=float, default=None, help="exit 1 when the mutation score is below this (percent)"
    )
    p.add_argument("--report", default="reuseit-output/mutation.json", help="the JSON report (Stryker's schema)")
    p.add_argument(
        "--max-mutants", type=int, default=0, help="at most this many mutants, sampled evenly over operators and files"
    )
    p.add_argument(
        "--alluredir", default="", help="also write one Allure result per mutant here (suite 'mutation testing')"
    )
    p.add_argument(
        "--plan-only", action="store_true", help="run the workflows clean and list the mutants, without running them"
    )
    p.add_argument(
        "--full-waits",
        action="store_true",
        help="mutant runs wait as long as the workflows say (default: each op and check at most what it "
        "needed in its clean run, doubled, plus a margin, so a killed mutant is known in seconds; "
        "see docs/mutation.md)",
    )
    p.add_argument(
        "--incremental",
        action="store_true",
        help="keep the verdicts of the last report (--report) for the mutants whose workflow file, target "
        "and pages are unchanged since, and run only the others; the clean runs still run (they tell "
        "what changed)",
    )
    p.set_defaults(func=cmd_mutate, pytest_args=[])


def _say(line: str) -> None:
    print(line, flush=True)


class _Terminal:
    """On a terminal, a session's progress is one line rewritten in place."""

    def __init__(self) -> None:
        self._open = False  # a progress line is on screen, without its newline

    def __call__(self, line: str) -> None:
        if self._open:
            print(flush=True)
            self._open = False
        print(line, flush=True)

    def progress(self, label: str, done: int, total: int, elapsed_s: float, ended: bool) -> None:
        print(f"\r{progress_line(label, done, total, elapsed_s)}\x1b[K", end="\n" if ended else "", flush=True)
        self._open = not ended


def cmd_mutate(args: argparse.Namespace) -> int:
    names = tuple(n.strip() for n in args.operators.split(",") if n.strip())
    if args.break_at is not None and not 0 <= args.break_at <= 100:
        print("reuseit mutate: --break-at is a percentage from 0 to 100", file=sys.stderr)
        return 2
    if args.max_mutants < 0:
        print("reuseit mutate: --max-mutants must be 0 (no limit) or more", file=sys.stderr)
        return 2
    missing = [p for p in args.paths if not Path(p).exists()]
    if missing:
        print(f"reuseit mutate: no such file or folder: {', '.join(missing)}", file=sys.stderr)
        return 2
    opts = MutateOptions(
        paths=list(args.paths),
        pytest_args=list(args.pytest_args),
        operators=names,
        break_at=args.break_at,
        report=Path(args.report),
        max_mutants=args.max_mutants,
        plan_only=args.plan_only,
        full_waits=args.full_waits,
        incremental=args.incremental,
    )
    try:
        terminal = _Terminal() if sys.stdout.isatty() else None  # else a log: progress now and then
        result = run(opts, say=terminal or _say, progress=terminal.progress if terminal else None)
    except UsageError as exc:
        print(f"reuseit mutate: {exc}", file=sys.stderr)
        return 2
    print()
    for line in report.table(result.results):
        print(line)
    for line in report.details(result.report):
        print(line)
    print(f"report: {args.report}")
    if args.alluredir:
        count = allure_out.write(result.report, Path(args.alluredir))
        print(f"allure: {count} mutant result(s) in {args.alluredir} (reuseit report --results {args.alluredir})")
    print(result.summary.line())
    return result.exit_code
