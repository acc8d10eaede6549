"""``reuseit mutate`` run as a user runs it (``mutate``), and the JSON report it wrote (``report_of``)."""

from __future__ import annotations

import contextlib
import io
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from pytest_reuseit import cli


def mutate(
    folder: Path, *args: str, pytest_args: tuple[str, ...] = (), own_process: bool = False
) -> subprocess.CompletedProcess[str]:
    """``reuseit mutate ARGS -- PYTEST_ARGS`` in ``folder``: its exit status and what it printed.

    The command runs here, as ``reuseit`` would (``cli.main``, its lines captured), unless
    ``own_process``: the sessions it starts are subprocesses either way, so only a run that checks
    the whole command as a user starts it (tests/mutation/test_mutation.py's module fixture) pays
    for a Python of its own."""
    argv = ["mutate", *args, *(["--", *pytest_args] if pytest_args else [])]
    if own_process:
        cmd = [sys.executable, "-m", "pytest_reuseit.cli", *argv]
        return subprocess.run(cmd, cwd=folder, capture_output=True, text=True, timeout=600)
    out, err = io.StringIO(), io.StringIO()
    with contextlib.chdir(folder), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli.main(argv)
    return subprocess.CompletedProcess(["reuseit", *argv], code, out.getvalue(), err.getvalue())


def report_of(folder: Path) -> dict[str, Any]:
    """The JSON report ``reuseit mutate`` wrote in ``folder`` (its default place)."""
    return json.loads((folder / "reuseit-output" / "mutation.json").read_text(encoding="utf-8"))  # type: ignore[no-any-return]
