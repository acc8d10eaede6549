"""The response cache shared by separate processes: CI shards and xdist workers restore one cache
folder and write into it at the same time (file lock per key + atomic rename).

The per-key lock is exclusive across threads and processes, and leaves no lock file behind (the
cache folder holds answers only). Two OS processes (not threads: the lock must hold between
processes) write and ask the same keys.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from pytest_reuseit.llm.cache import ResponseCache, cache_key
from tests.support.llm_server import FakeLLM
from tests.support.paths import ROOT

KEYS = 30
KEY = "ab" + "0" * 62


# --------------------------------------------------------------------------- the per-key lock


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


# --------------------------------------------------------------------------- processes writing and asking

# Each process: the same KEYS keys, each written WRITES times with a large entry naming the
# writer, while reading the others back; any entry read must be whole.
WRITER = r"""
import json, sys
from pytest_reuseit.llm.cache import ResponseCache, cache_key
folder, name, keys, writes = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
cache = ResponseCache(folder)
pad = "x" * 100_000  # large enough that a write in place would be seen half-done
bad = 0
for i in range(writes):
    for k in range(keys):
        key = cache_key({"question": k})
        cache.put(key, {"answer": {"writer": name, "round": i}, "pad": pad})
        entry = cache.get(key)
        if entry is None or entry.get("pad") != pad or "writer" not in entry["answer"]:
            bad += 1
print(json.dumps({"bad": bad}))
"""

# Each process asks the same KEYS questions through the real client. Both start asking together
# (each says "ready" once imported and waits for "go"), and the fake model is slow enough that the
# two processes then ask each question at about the same time.
ASKER = r"""
import json, sys
from pytest_reuseit.engine.result import ModelUsage
from pytest_reuseit.llm.client import LlmClient, LlmConfig
folder, keys = sys.argv[1], int(sys.argv[2])
client = LlmClient(LlmConfig(model="m", mode="auto", cache_dir=folder, timeout=10, retries=0))
usage = ModelUsage()
answers = []
print("ready", flush=True)
sys.stdin.readline()
for k in range(keys):
    messages = [{"role": "user", "content": f"Condition to verify:\nquestion {k}"}]
    answers.append(client.ask("condition_check", messages, usage).model_dump())
print(json.dumps({"calls": usage.calls, "hits": usage.cache_hits, "answers": answers}))
"""


def start(script: str, *args: str, env: dict[str, str] | None = None) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", script, *args],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT), **(env or {})},
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def finish(proc: subprocess.Popen[str]) -> dict[str, object]:
    out, err = proc.communicate(timeout=300)
    assert proc.returncode == 0, err[-2000:]
    return json.loads(out.strip().splitlines()[-1])  # type: ignore[no-any-return]


@pytest.mark.slow
def test_two_processes_writing_the_same_keys_leave_whole_entries(tmp_path: Path) -> None:
    folder = tmp_path / "cache"
    procs = [start(WRITER, str(folder), name, str(KEYS), "4") for name in ("a", "b")]
    results = [finish(p) for p in procs]
    assert [r["bad"] for r in results] == [0, 0]  # no process ever read a partial or missing entry
    cache = ResponseCache(folder)
    assert cache.entries() == KEYS
    for k in range(KEYS):
        entry = cache.get(cache_key({"question": k}))
        assert entry is not None and entry["answer"]["writer"] in ("a", "b") and entry["answer"]["round"] == 3
    leftovers = [p.name for p in folder.rglob("*") if p.is_file() and not p.name.endswith((".json", ".lock"))]
    assert leftovers == []  # no temporary file of a write survives


@pytest.mark.slow
def test_two_processes_asking_the_same_questions_pay_for_each_once(fake_llm: FakeLLM, tmp_path: Path) -> None:
    fake_llm.add_rule("condition_check", None, {"met": True, "explanation": "holds"})
    fake_llm.latency = 0.1  # far longer than the two processes (started together) are apart
    folder = tmp_path / "cache"
    env = {"OPENAI_BASE_URL": fake_llm.base_url, "OPENAI_API_KEY": "test-key"}
    procs = [start(ASKER, str(folder), str(KEYS // 3), env=env) for _ in range(2)]
    for p in procs:  # both imported: only the questions are left
        assert p.stdout is not None and p.stdout.readline() == "ready\n", p.communicate(timeout=60)[1][-2000:]
    for p in procs:
        assert p.stdin is not None
        p.stdin.write("go\n")
        p.stdin.flush()
    results = [finish(p) for p in procs]
    n = KEYS // 3
    assert all(r["answers"] == [{"met": True, "explanation": "holds"}] * n for r in results)
    # Every question reached the model once: the second asker waited on the key's lock and read the answer.
    assert fake_llm.calls() == n
    assert sum(r["calls"] for r in results) == n and sum(r["hits"] for r in results) == n  # type: ignore[misc]
    assert ResponseCache(folder).entries() == n
