"""What every row of the speed table shares: a row, the table, two sides measured in turns, and
a whole pytest process timed.

Each row (run.py, and the scripts that print one row of their own) compares two things measured in
the same run, alternating (A B, B A, ...) so a machine whose load drifts slows both sides alike, and
reports medians.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent

CORES = os.cpu_count() or 1


@dataclass
class Row:
    measure: str
    goal: str
    value: str
    met: bool | None
    detail: str = ""


ROWS: list[Row] = []


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def alternate(rounds: int, a: Callable[[], float], b: Callable[[], float]) -> tuple[list[float], list[float]]:
    """``rounds`` measurements of each side, swapping which goes first every round."""
    xs: list[float] = []
    ys: list[float] = []
    for i in range(rounds):
        if i % 2 == 0:
            xs.append(a())
            ys.append(b())
        else:
            ys.append(b())
            xs.append(a())
    return xs, ys


def med(values: list[float]) -> float:
    return statistics.median(values)


def listing(values: list[float], fmt: str = "{:.2f}") -> str:
    return ", ".join(fmt.format(v) for v in values)


# --------------------------------------------------------------------------- pytest subprocesses


def pytest_env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    env.setdefault("DEMO_PASSWORD", "demo-pass")  # the example workflows log in to the demo shop
    for key in ("OPENAI_BASE_URL", "OPENAI_API_KEY"):
        env.pop(key, None)
    return env


def run_pytest(args: list[str], cwd: Path, out: Path, cache: bool = False) -> float:
    """Wall time of one pytest process (it must pass); ``cache`` keeps pytest's cache on, where the
    plugin keeps the durations that order the runs under -n."""
    started = time.perf_counter()
    no_cache = [] if cache else ["-p", "no:cacheprovider"]
    # --rootdir: pytest reads the value of an option it does not know yet (--reuseit-output) as a
    # path when it exists, so once the first process has made the output folder, the next ones
    # would take the temporary folder above both as their rootdir (other node ids, another cache).
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", *no_cache, "-q", f"--rootdir={cwd}", "--reuseit-output", str(out), *args],
        cwd=cwd,
        env=pytest_env(),
        capture_output=True,
        text=True,
    )
    wall = time.perf_counter() - started
    if proc.returncode != 0:
        raise SystemExit(
            f"pytest {' '.join(args)} failed ({proc.returncode}):\n{proc.stdout[-3000:]}{proc.stderr[-2000:]}"
        )
    return wall
