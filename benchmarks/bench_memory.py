"""Memory per xdist worker (its Python, driver and browser) and runs per hour per core; a row of
run.py.

    python benchmarks/run.py --only memory
"""

from __future__ import annotations

import resource
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import bench_engine
from procs import children, descendants, pss_kb
from table import CORES, ROWS, Row, log, pytest_env


class WorkerMemory(threading.Thread):
    """Samples, every 0.2 s, the PSS of each xdist worker: its Python process, and its whole tree
    (Playwright's driver and the Chromium it launched). Keeps the peak of each."""

    def __init__(self, main_pid: int) -> None:
        super().__init__(daemon=True)
        self.main_pid = main_pid
        self.stop = threading.Event()
        self.peak_python: dict[int, int] = {}
        self.peak_tree: dict[int, int] = {}

    def run(self) -> None:
        while not self.stop.wait(0.2):
            tree = children()
            for worker in tree.get(self.main_pid, []):
                own = pss_kb(worker)
                total = own + sum(pss_kb(p) for p in descendants(worker, tree))
                self.peak_python[worker] = max(self.peak_python.get(worker, 0), own)
                self.peak_tree[worker] = max(self.peak_tree.get(worker, 0), total)


def row_memory(quick: bool, workflows: int = 50) -> None:
    with tempfile.TemporaryDirectory(prefix="reuseit-run-memory-") as tmp:
        folder = Path(tmp)
        text = bench_engine.WORKFLOW.read_text(encoding="utf-8")
        for i in range(workflows):
            (folder / f"flow{i:02d}.reuseit.yaml").write_text(text.replace("name: Benchmark", f"name: Benchmark {i}"))
        started = time.perf_counter()
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        proc = subprocess.Popen(
            [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "-n", "2", "--reuseit-llm", "off"],
            cwd=folder,
            env=pytest_env(),
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        sampler = WorkerMemory(proc.pid)
        sampler.start()
        output, _ = proc.communicate()
        wall = time.perf_counter() - started
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        sampler.stop.set()
        sampler.join()
    if proc.returncode != 0 or f"{workflows} passed" not in output:
        raise SystemExit(f"memory row: the run did not pass:\n{output[-3000:]}")
    trees = sorted(sampler.peak_tree.values())
    pythons = sorted(sampler.peak_python.values())
    if not trees:
        raise SystemExit("memory row: no xdist worker was seen")
    per_hour_core = workflows / wall * 3600 / min(2, CORES)
    # CPU seconds of the whole tree (pytest, workers, drivers, Chromium: every process is reaped),
    # per run: what a run costs a core whatever else the machine is doing.
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    per_hour_cpu = 3600 / (cpu / workflows)
    ROWS.append(
        Row(
            f"peak memory per worker with {workflows} workflows (`-n 2`, PSS of the worker, its driver and Chromium)",
            "",
            f"{max(trees) / 1024:.0f} MB",
            None,
            f"workers {', '.join(f'{t / 1024:.0f}' for t in trees)} MB, of which the Python process "
            f"{', '.join(f'{p / 1024:.0f}' for p in pythons)} MB; {workflows} runs in {wall:.1f} s "
            f"= {per_hour_core:.0f} runs per hour per core at this load; {cpu / workflows:.2f} CPU s per run "
            f"(process start included) = {per_hour_cpu:.0f} runs per CPU-hour",
        )
    )
    log(f"memory: {max(trees) / 1024:.0f} MB per worker, {per_hour_core:.0f} runs/hour/core")
