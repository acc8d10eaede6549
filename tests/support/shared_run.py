"""A costly subprocess run that the tests of one module only read, made once per pytest session.

Under xdist the module's tests may land on both workers: the first to ask makes the run in a
folder beside the workers' own (under a file lock) and records what the caller needs as JSON; the
other reads that record and the same folder. Without xdist it is made in a folder of its own."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import pytest
from filelock import FileLock

T = TypeVar("T")


def run_once(
    tmp_path_factory: pytest.TempPathFactory,
    name: str,
    make: Callable[[Path], T],
    to_json: Callable[[T], Any],
    from_json: Callable[[Any], T],
) -> T:
    """``make(folder)`` once; ``to_json``/``from_json`` carry its result to the other worker."""
    if "PYTEST_XDIST_WORKER" not in os.environ:
        return make(tmp_path_factory.mktemp(name))
    shared = tmp_path_factory.getbasetemp().parent
    with FileLock(str(shared / f"reuseit-{name}.lock")):
        record = shared / f"reuseit-{name}.json"
        if record.is_file():
            return from_json(json.loads(record.read_text(encoding="utf-8")))
        made = make(shared / f"reuseit-{name}")
        record.write_text(json.dumps(to_json(made)), encoding="utf-8")
        return made
