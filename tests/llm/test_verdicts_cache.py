"""The response cache's per-key lock: exclusive across threads and processes, and no lock file
left behind (the cache folder holds answers only)."""

from __future__ import annotations

import multiprocessing
import threading
import time
from pathlib import Path

import pytest

from pytest_reuseit.llm.cache import ResponseCache

KEY = "ab" + "0" * 62


def _bump(folder: str, counter: str, times: int) -> None:
    cache = ResponseCache(folder)
    for _ in range(times):
        with cache.lock(KEY):
            value = int(Path(counter).read_text())
            time.sleep(0.002)  # a lost update would show if two held the lock at once
            Path(counter).write_text(str(value + 1))


@pytest.mark.slow
def test_lock_is_exclusive_across_threads_and_processes_and_leaves_no_file(tmp_path: Path) -> None:
    counter = tmp_path / "counter"
    counter.write_text("0")
    folder = str(tmp_path / "cache")
    threads = [threading.Thread(target=_bump, args=(folder, str(counter), 10)) for _ in range(4)]
    procs = [
        multiprocessing.get_context("spawn").Process(target=_bump, args=(folder, str(counter), 10)) for _ in range(2)
    ]
    for t in [*threads, *procs]:
        t.start()
    for t in threads:
        t.join(timeout=60)
    for p in procs:
        p.join(timeout=60)
        assert p.exitcode == 0
    assert int(counter.read_text()) == 60
    assert list((tmp_path / "cache").rglob("*.lock")) == []


def test_entries_written_under_the_lock_are_the_only_files(tmp_path: Path) -> None:
    cache = ResponseCache(tmp_path)
    with cache.lock(KEY):
        assert cache.get(KEY) is None
        cache.put(KEY, {"answer": {"met": True}})
    assert cache.get(KEY) == {"answer": {"met": True}}
    assert [p.name for p in tmp_path.rglob("*") if p.is_file()] == [f"{KEY}.json"]
