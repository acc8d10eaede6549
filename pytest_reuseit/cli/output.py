"""What the commands print for whoever reads it, and what happens when that reader goes away.

`reuseit report | head -1` closes the pipe after one line: the command's work (the history, the
files, the alerts) must still be done in full, and no traceback printed.
"""

from __future__ import annotations

import os
import sys


def stdout_gone() -> None:
    """The reader of standard output went away: what is printed from now on goes nowhere, so no
    later print, nor the interpreter's last flush at exit, fails again."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())


def say(line: str) -> None:
    """Print ``line`` now (flushed, so a closed pipe is met here, not in the middle of other work)."""
    try:
        print(line, flush=True)
    except BrokenPipeError:
        stdout_gone()
