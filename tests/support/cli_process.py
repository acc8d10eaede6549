"""``reuseit`` as a user runs it: a process of its own, its output captured."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path


def reuseit(*args: str, cwd: Path | None = None, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pytest_reuseit.cli", *args], cwd=cwd, capture_output=True, text=True, timeout=timeout
    )


def import_one(source: Path, out: Path, *args: str) -> tuple[subprocess.CompletedProcess[str], Path]:
    """``reuseit import SOURCE -o OUT ARGS`` that writes one workflow: the process, and the
    workflow's path (``out`` itself when not exactly one was written)."""
    done = reuseit("import", str(source), "-o", str(out), *args)
    written = sorted(out.glob("*.reuseit.yaml"))
    return done, written[0] if len(written) == 1 else out
