"""Every row of the speed table, each measured side by side in this one run.

    python benchmarks/run.py            # every row, about 10-15 minutes on a quiet 2-core machine
    python benchmarks/run.py --quick    # fewer rounds and a small example subset: 1-3 minutes, for CI
    python benchmarks/run.py --only collect,memory

Each row compares two things measured in the same run, alternating (A B, B A, ...) so a machine
whose load drifts slows both sides alike, and reports medians. The rows reuse the code of the
single-purpose scripts (bench_engine.py, bench_cache.py, bench_explore.py); see README.md for
how each is measured and for the causes behind the figures. Everything listens on 127.0.0.1.

The table is printed last, with the machine's core count and its load average at the start and
the end: on a shared machine the absolute times move with the load, the ratios much less.
Time-based rows are wall clock; collection is also given in CPU seconds, which is what it costs
on an idle machine (collection is single-threaded).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path[:0] = [str(HERE), str(ROOT)]

import bench_cache  # noqa: E402
import bench_engine  # noqa: E402
import bench_explore  # noqa: E402
import bench_short  # noqa: E402
from examples_copy import fixed_examples  # noqa: E402

from pytest_reuseit.api import default_settings  # noqa: E402
from pytest_reuseit.engine.result import RunResult  # noqa: E402
from pytest_reuseit.runtime import Runtime  # noqa: E402
from pytest_reuseit.sites import LocalSites  # noqa: E402
from pytest_reuseit.workflow.loader import LoadedWorkflow, load  # noqa: E402

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


# --------------------------------------------------------------------------- engine vs hand-written


def row_engine(quick: bool) -> None:
    rounds = 6 if quick else 20
    variants = bench_engine.VARIANTS[:1] if quick else bench_engine.VARIANTS
    loaded = load(bench_engine.WORKFLOW, builtin_names=LocalSites.NAMES)
    with tempfile.TemporaryDirectory(prefix="reuseit-run-engine-") as tmp:
        runtime = Runtime(default_settings(), Path(tmp))
        base = runtime.settings
        n = [0]

        def ours(v: bench_engine.Variant) -> Callable[[], float]:
            def go() -> float:
                runtime.settings = replace(base, screenshots=v.screenshots, trace=v.trace)
                n[0] += 1
                return bench_engine.reuseit_once(runtime, loaded, f"engine-{n[0]}")

            return go

        def theirs() -> float:
            return bench_engine.handwritten_once(runtime)

        try:
            for v in variants:  # warm-up: browser, demo site, first context
                ours(v)()
                theirs()
            for v in variants:
                a, b = alternate(rounds, ours(v), theirs)
                ratio = med(a) / med(b)
                per_round = med([x / y for x, y in zip(a, b, strict=True)])
                default = v is bench_engine.VARIANTS[0]
                ROWS.append(
                    Row(
                        f"{rounds} deterministic runs vs the same steps hand-written in Playwright, {v.label}",
                        "≤ 1.10×" if default else "",
                        f"{ratio:.2f}×",
                        ratio <= 1.10 if default else None,
                        f"medians {med(a) * 1000:.0f} vs {med(b) * 1000:.0f} ms; median of per-round ratios "
                        f"{per_round:.2f}×",
                    )
                )
                log(f"engine: {v.label}: {ratio:.2f}x")
        finally:
            runtime.close()


# --------------------------------------------------------------------------- model checks and the cache


@contextmanager
def model_endpoint(url: str) -> Iterator[None]:
    """OPENAI_BASE_URL and OPENAI_API_KEY point at ``url`` (a local test server) within the block,
    and are as they were after it."""
    saved = {k: os.environ.get(k) for k in ("OPENAI_BASE_URL", "OPENAI_API_KEY")}
    os.environ["OPENAI_BASE_URL"], os.environ["OPENAI_API_KEY"] = url, "bench-key"
    try:
        yield
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def row_model(quick: bool, latency: float = 1.0, checks: int = 10) -> None:
    """Both layouts: ``checks`` checks in one step (one look shared), then one check after each of
    ``checks`` steps (a look per check), each measured cold, warm and without a model."""
    row_model_one_step(quick, latency, checks)
    row_model_per_step(quick, latency, checks)


@contextmanager
def model_bench(latency: float, name: str, text: str) -> Iterator[tuple[Path, LoadedWorkflow, Runtime]]:
    """For a model row: a local model answering every condition check "met" after ``latency``
    seconds, ``text`` loaded as ``<name>.reuseit.yaml`` in a temporary folder, and a runtime that
    reaches the model (closed after the block)."""
    from tests.support.llm_server import FakeLLM

    with (
        FakeLLM(latency=latency) as fake,
        model_endpoint(fake.base_url),
        tempfile.TemporaryDirectory(prefix=f"reuseit-run-{name}-") as tmp,
    ):
        fake.add_rule("condition_check", None, {"met": True, "explanation": "the condition holds on the page"})
        root = Path(tmp)
        path = root / f"{name}.reuseit.yaml"
        path.write_text(text, encoding="utf-8")
        runtime = Runtime(default_settings(screenshots="failures", llm="auto"), root)
        try:
            yield root, load(path, builtin_names=LocalSites.NAMES), runtime
        finally:
            runtime.close()


def row_model_per_step(quick: bool, latency: float = 1.0, steps: int = 10) -> None:
    """One check in words after each of ``steps`` steps. Per round, alternating the order: cold (an
    empty cache), warm (the same cache), and the same workflow without a model (the actions alone);
    per check, cached = (warm - off) / N, live = (cold - off - N x L) / N, all from the steps'
    own durations (start-up and close left out)."""
    rounds = 2 if quick else 5
    cold: list[float] = []
    warm: list[float] = []
    off: list[float] = []

    def steps_time(result: RunResult) -> float:
        return sum(s.duration for s in result.steps)

    with model_bench(latency, "per-step", bench_cache.per_step_workflow(steps)) as (root, loaded, runtime):
        bench_cache.run(runtime, loaded, "warmup", cache=root / "w")  # browser, site, first model call
        for r in range(rounds):
            cache = root / f"cache-{r}"
            r_off, _ = bench_cache.run(runtime, loaded, f"off-{r}", cache=cache, llm="off")
            r_cold, _ = bench_cache.run(runtime, loaded, f"cold-{r}", cache=cache)
            r_warm, _ = bench_cache.run(runtime, loaded, f"warm-{r}", cache=cache)
            if r_cold.usage.calls != steps or r_warm.usage.calls != 0:
                raise SystemExit(
                    f"per-step model row: expected {steps} calls cold and 0 warm, got "
                    f"{r_cold.usage.calls} / {r_warm.usage.calls}"
                )
            off.append(steps_time(r_off))
            cold.append(steps_time(r_cold))
            warm.append(steps_time(r_warm))
            log(f"per-step round {r + 1}: off {off[-1]:.3f} s, cold {cold[-1]:.2f} s, warm {warm[-1]:.3f} s")
    hit = [(w - o) / steps * 1000 for w, o in zip(warm, off, strict=True)]
    live = [(c - o - steps * latency) / steps * 1000 for c, o in zip(cold, off, strict=True)]
    saved = [(c - o) / (w - o) for c, w, o in zip(cold, warm, off, strict=True)]
    layout = f"one check after each of {steps} steps"
    ROWS.append(
        Row(
            f"a check answered from the cache, {layout}",
            "≤ 30 ms",
            f"{med(hit):.0f} ms",
            med(hit) <= 30,
            f"(warm − no model)/{steps}, runs: {listing(hit, '{:.0f}')} ms",
        )
    )
    ROWS.append(
        Row(
            f"time a model check adds beyond the model's latency, {layout}",
            "≤ 100 ms",
            f"{med(live):.0f} ms",
            med(live) <= 100,
            f"(cold − no model − {steps}×{latency:g} s)/{steps}, runs: {listing(live, '{:.0f}')} ms",
        )
    )
    ROWS.append(
        Row(
            f"model time saved by a warm cache, {layout} ({latency:g} s latency)",
            "≥ 30×",
            f"{med(saved):.0f}×",
            med(saved) >= 30,
            f"(cold − no model)/(warm − no model); steps: cold {med(cold):.2f} s, warm {med(warm):.3f} s, "
            f"no model {med(off):.3f} s; per round {listing(saved, '{:.0f}')}×",
        )
    )


def row_model_one_step(quick: bool, latency: float = 1.0, checks: int = 10) -> None:
    """Cold (every check a model call at ``latency``) then warm (the same cache): per pair."""
    pairs = 2 if quick else 5
    cold: list[float] = []
    warm: list[float] = []
    with model_bench(latency, "checks", bench_cache.overhead_workflow(checks)) as (root, loaded, runtime):
        # The warm-up asks the model once: the process's first request pays one-time costs (the
        # SDK's lazy imports and response types) that every later check is spared.
        first = root / "first.reuseit.yaml"
        first.write_text(bench_cache.overhead_workflow(1), encoding="utf-8")
        r_first, _ = bench_cache.run(runtime, load(first, builtin_names=LocalSites.NAMES), "warmup", cache=root / "w")
        log(f"model warm-up: a one-check step in {r_first.steps[0].duration:.2f} s (the process's first model call)")
        for p in range(pairs):
            cache = root / f"cache-{p}"
            r_cold, _ = bench_cache.run(runtime, loaded, f"cold-{p}", cache=cache)
            r_warm, _ = bench_cache.run(runtime, loaded, f"warm-{p}", cache=cache)
            if r_cold.usage.calls != checks or r_warm.usage.calls != 0 or r_warm.usage.cache_hits != checks:
                raise SystemExit(
                    f"model row: expected {checks} calls cold and {checks} hits warm, got "
                    f"{r_cold.usage.calls} calls / {r_warm.usage.calls} calls, {r_warm.usage.cache_hits} hits"
                )
            cold.append(r_cold.steps[0].duration)
            warm.append(r_warm.steps[0].duration)
            log(f"model pair {p + 1}: cold step {cold[-1]:.2f} s, warm step {warm[-1]:.3f} s")
    overhead = [(c - checks * latency) / checks * 1000 for c in cold]
    hit = [w / checks * 1000 for w in warm]
    saved = [c / w for c, w in zip(cold, warm, strict=True)]
    ROWS.append(
        Row(
            f"time a model check adds beyond the model's latency, {checks} checks in one step",
            "≤ 100 ms",
            f"{med(overhead):.0f} ms",
            med(overhead) <= 100,
            f"(step − {checks}×{latency:g} s)/{checks}, {pairs} runs: {listing(overhead, '{:.0f}')} ms",
        )
    )
    ROWS.append(
        Row(
            f"a check answered from the cache, {checks} checks in one step",
            "≤ 30 ms",
            f"{med(hit):.0f} ms",
            med(hit) <= 30,
            f"warm step / {checks} (screenshot, page text, key, file), runs: {listing(hit, '{:.0f}')} ms",
        )
    )
    ROWS.append(
        Row(
            f"model time saved by a warm cache, {checks} checks in one step ({latency:g} s latency)",
            "≥ 30×",
            f"{med(saved):.0f}×",
            med(saved) >= 30,
            f"cold step {med(cold):.2f} s / warm step {med(warm):.3f} s; per pair {listing(saved, '{:.0f}')}×",
        )
    )


# --------------------------------------------------------------------------- exploration in parallel


def row_explore(quick: bool, latency: float = 1.0, parallel: int = 10) -> None:
    from pytest_reuseit.sites import SiteServer

    repeats = 1 if quick else 3
    with bench_explore.model_server(latency) as url, model_endpoint(url), SiteServer() as site:
        bench_explore.one_batch(1, site)  # imports, first browser start
        singles, batches = alternate(
            repeats, lambda: bench_explore.one_batch(1, site), lambda: bench_explore.one_batch(parallel, site)
        )
    ratio = med(batches) / med(singles)
    ROWS.append(
        Row(
            f"{parallel} exploration runs in parallel vs 1 ({latency:g} s model latency)",
            "≤ 1.3×",
            f"{ratio:.2f}×",
            ratio <= 1.3,
            f"1 run {listing(singles)} s; {parallel} runs {listing(batches)} s",
        )
    )
    log(f"explore: {ratio:.2f}x")


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


QUICK_EXAMPLES = (
    "workflows/miniwob/click-button.reuseit.yaml",
    "workflows/miniwob/enter-text.reuseit.yaml",
    "workflows/miniwob/focus-text.reuseit.yaml",
    "workflows/demo/login.reuseit.yaml",
)


def row_xdist(quick: bool) -> None:
    targets = list(QUICK_EXAMPLES) if quick else ["workflows"]
    rounds = 1 if quick else 2
    with tempfile.TemporaryDirectory(prefix="reuseit-run-xdist-") as tmp:
        out = Path(tmp)
        root = fixed_examples(out / "examples")
        base = [*targets, "--reuseit-llm", "off"]
        # As users run it: pytest's cache on, so -n 2 starts the runs that took longest last time
        # first. The serial run goes first, so even the first -n 2 run has their durations; one
        # -n 2 run in collection order (no cache) is reported beside, as a first run gets it.
        serial, two = alternate(
            rounds,
            lambda: run_pytest(base, root, out / "serial", cache=True),
            lambda: run_pytest([*base, "-n", "2"], root, out / "n2", cache=True),
        )
        first = run_pytest([*base, "-n", "2"], root, out / "n2-first")
    speedup = med(serial) / med(two)
    ROWS.append(
        Row(
            f"`-n 2` vs serial on the example workflows ({'a subset: ' + ', '.join(Path(t).name for t in targets) if quick else 'all'}; no model; the demo's random cookie banner fixed the same for both)",
            "≥ 1.7×",
            f"{speedup:.2f}×",
            # Four small files are a smoke test of the row, not a verdict: two workers' start-up
            # (interpreter, driver, browser, local sites) outweighs 7 s of serial work.
            None if quick else speedup >= 1.7,
            f"whole pytest process: serial {listing(serial, '{:.1f}')} s, -n 2 {listing(two, '{:.1f}')} s "
            f"(longest first, from the durations pytest's cache kept); -n 2 in collection order (no cache, "
            f"a first run): {first:.1f} s = {med(serial) / first:.2f}×"
            + (
                "; not judged in quick mode (start-up outweighs the subset's work), the full mode judges it"
                if quick
                else ""
            ),
        )
    )
    log(f"xdist: {speedup:.2f}x")


def row_xdist_short(quick: bool, files: int = 50, rounds: int = 0) -> None:
    """Many short workflows (bench_short.py): serial vs ``-n 2`` with each ``--dist``, whole pytest
    processes, alternating; and the ceiling, the same runs hand-written in Playwright in one
    process vs two at once."""
    files = 12 if quick else files
    rounds = rounds or (1 if quick else 2)
    walls: dict[str, list[float]] = {"serial": [], "load": [], "worksteal": [], "hand 1": [], "hand 2": []}
    with tempfile.TemporaryDirectory(prefix="reuseit-run-short-") as tmp:
        out = Path(tmp)
        suite = bench_short.write_suite(out / "suite", files)
        base = [str(suite), "--reuseit-llm", "off"]
        sides = {
            "serial": lambda: run_pytest(base, out, out / "serial"),
            "load": lambda: run_pytest([*base, "-n", "2", "--dist", "load"], out, out / "load"),
            "worksteal": lambda: run_pytest([*base, "-n", "2", "--dist", "worksteal"], out, out / "ws"),
            "hand 1": lambda: bench_short.handwritten_wall(1, files),
            "hand 2": lambda: bench_short.handwritten_wall(2, files),
        }
        order = list(sides)
        for r in range(rounds):
            for name in order if r % 2 == 0 else reversed(order):
                walls[name].append(sides[name]())
                log(f"short workflows, round {r + 1}: {name} {walls[name][-1]:.1f} s")
    best = min(("load", "worksteal"), key=lambda d: med(walls[d]))
    speedup = med(walls["serial"]) / med(walls[best])
    ceiling = med(walls["hand 1"]) / med(walls["hand 2"])
    ROWS.append(
        Row(
            f"`-n 2` vs serial on {files} short workflows (2 steps, a DOM check after each; no model)",
            "≥ 1.5×",
            f"{speedup:.2f}×",
            None if quick else speedup >= 1.5,
            f"whole pytest process: serial {listing(walls['serial'], '{:.1f}')} s; -n 2 --dist load "
            f"{listing(walls['load'], '{:.1f}')} s, worksteal {listing(walls['worksteal'], '{:.1f}')} s (best: {best}); "
            f"the same runs hand-written in Playwright, two processes vs one: {ceiling:.2f}× "
            f"({listing(walls['hand 1'], '{:.1f}')} s vs {listing(walls['hand 2'], '{:.1f}')} s)",
        )
    )
    log(f"short workflows: -n 2 {speedup:.2f}x, hand-written ceiling {ceiling:.2f}x")


# --------------------------------------------------------------------------- collection of 500 files

COLLECT_CHILD = r"""
import json, resource, sys, time
import pytest

class Clock:
    def pytest_collection(self, session):
        self.wall, self.cpu = time.perf_counter(), time.process_time()
    def pytest_collection_finish(self, session):
        self.wall, self.cpu = time.perf_counter() - self.wall, time.process_time() - self.cpu
        self.items = len(session.items)

started = time.perf_counter()
clock = Clock()
code = pytest.main(["-p", "no:cacheprovider", "--collect-only", "-q", *sys.argv[2:]], plugins=[clock])
usage = resource.getrusage(resource.RUSAGE_SELF)
result = {"code": int(code), "items": clock.items, "collect_wall": clock.wall, "collect_cpu": clock.cpu,
          "process_cpu": usage.ru_utime + usage.ru_stime, "process_wall": time.perf_counter() - started}
open(sys.argv[1], "w").write(json.dumps(result))
"""


def write_corpus(folder: Path, files: int, variations: int) -> None:
    """``files`` copies of the benchmark workflow with ``variations`` variations each; and the same
    number of plain pytest files with one test parametrized ``variations`` times (the baseline)."""
    text = bench_engine.WORKFLOW.read_text(encoding="utf-8")
    block = "variations:\n" + "".join(
        f'  - id: v{i}\n    kind: attribute\n    params: {{product: "product {i}"}}\n' for i in range(variations)
    )
    text = text.replace("tags: [benchmark]\n", "tags: [benchmark]\n" + block)
    (folder / "workflows").mkdir(parents=True)
    (folder / "plain").mkdir()
    for i in range(files):
        (folder / "workflows" / f"flow{i:03d}.reuseit.yaml").write_text(
            text.replace("name: Benchmark", f"name: Benchmark {i}"), encoding="utf-8"
        )
        (folder / "plain" / f"test_flow{i:03d}.py").write_text(
            f"import pytest\n\n\n@pytest.mark.parametrize('v', range({variations}))\ndef test_flow{i}(v):\n    assert v >= 0\n",
            encoding="utf-8",
        )


def collect_once(folder: Path, target: str, expect: int) -> dict[str, float]:
    result_file = folder / f"result-{target}.json"
    proc = subprocess.run(
        [sys.executable, "-c", COLLECT_CHILD, str(result_file), target],
        cwd=folder,
        env=pytest_env(),
        capture_output=True,
        text=True,
    )
    if proc.returncode != 0:
        raise SystemExit(f"collection of {target} failed:\n{proc.stdout[-2000:]}{proc.stderr[-2000:]}")
    data: dict[str, float] = json.loads(result_file.read_text())
    if data["items"] != expect:
        raise SystemExit(f"collection of {target}: {data['items']} items, expected {expect}")
    return data


def row_collect(quick: bool, files: int = 500, variations: int = 10) -> None:
    repeats = 1 if quick else 3
    with tempfile.TemporaryDirectory(prefix="reuseit-run-collect-") as tmp:
        folder = Path(tmp)
        write_corpus(folder, files, variations)
        ours, plain = [], []
        for i in range(repeats):
            pair = [
                ("workflows", ours),
                ("plain", plain),
            ]
            for target, into in pair if i % 2 == 0 else reversed(pair):
                into.append(collect_once(folder, target, files * variations))
    cpu = med([d["collect_cpu"] for d in ours])
    wall = med([d["collect_wall"] for d in ours])
    proc_cpu = med([d["process_cpu"] for d in ours])
    base_cpu = med([d["collect_cpu"] for d in plain])
    ROWS.append(
        Row(
            f"collection of {files} workflow files ({files * variations:,} items)",
            "≤ 3 s",
            f"{cpu:.2f} s CPU",
            cpu <= 3,
            f"{cpu / base_cpu:.2f}× pytest collecting {files} plain test files with the same items ({base_cpu:.2f} s CPU); "
            f"wall {wall:.2f} s at this load; whole process {proc_cpu:.2f} s CPU",
        )
    )
    log(f"collect: {cpu:.2f} s cpu ({cpu / base_cpu:.2f}x plain)")


# --------------------------------------------------------------------------- memory per worker


def _children() -> dict[int, list[int]]:
    tree: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as fh:
                ppid = int(fh.read().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        tree.setdefault(ppid, []).append(int(entry))
    return tree


def _descendants(pid: int, tree: dict[int, list[int]]) -> list[int]:
    out, todo = [], [pid]
    while todo:
        for child in tree.get(todo.pop(), []):
            out.append(child)
            todo.append(child)
    return out


def _pss_kb(pid: int) -> int:
    """Proportional set size: shared pages (Chromium's processes share many) counted once in all."""
    try:
        with open(f"/proc/{pid}/smaps_rollup") as fh:
            for line in fh:
                if line.startswith("Pss:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


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
            tree = _children()
            for worker in tree.get(self.main_pid, []):
                own = _pss_kb(worker)
                total = own + sum(_pss_kb(p) for p in _descendants(worker, tree))
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


# --------------------------------------------------------------------------- main

ROW_FUNCS: dict[str, Callable[[bool], None]] = {
    "engine": row_engine,
    "model": row_model,
    "explore": row_explore,
    "xdist": row_xdist,
    "short": row_xdist_short,
    "collect": row_collect,
    "memory": row_memory,
}


def versions() -> str:
    from playwright._repo_version import version as playwright_version

    from pytest_reuseit.browser.session import default_executable

    chromium = "?"
    exe = default_executable()
    if exe:
        try:
            chromium = subprocess.run([exe, "--version"], capture_output=True, text=True, timeout=20).stdout.strip()
        except (OSError, subprocess.SubprocessError):
            pass
    return f"Python {platform.python_version()}, Playwright {playwright_version}, {chromium or exe}"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="fewer rounds, a small example subset (CI)")
    ap.add_argument("--only", default="", help=f"comma-separated rows: {', '.join(ROW_FUNCS)}")
    ap.add_argument("--json", type=Path, help="also write the rows to this JSON file")
    args = ap.parse_args(argv)
    chosen = [r.strip() for r in args.only.split(",") if r.strip()] or list(ROW_FUNCS)
    unknown = [r for r in chosen if r not in ROW_FUNCS]
    if unknown:
        ap.error(f"unknown rows: {', '.join(unknown)} (known: {', '.join(ROW_FUNCS)})")
    load_start = os.getloadavg()
    started = time.monotonic()
    for name in chosen:
        log(f"--- {name}")
        try:
            ROW_FUNCS[name](args.quick)
        except (Exception, SystemExit) as exc:  # one row that cannot be measured must not lose the others
            message = " ".join(str(exc).split())[:300]
            ROWS.append(Row(f"{name} (not measured)", "", "error", False, message))
            log(f"{name}: not measured: {message}")
    load_end = os.getloadavg()
    print(
        f"machine: {CORES} cores, {platform.system()} {platform.release()}; {versions()}\n"
        f"load average (1, 5, 15 min): start {', '.join(f'{x:.1f}' for x in load_start)}, "
        f"end {', '.join(f'{x:.1f}' for x in load_end)}; {'quick' if args.quick else 'full'} mode, "
        f"{time.monotonic() - started:.0f} s\n"
    )
    print("| measure | goal | measured | met | detail |")
    print("|---|---|---:|---|---|")
    for r in ROWS:
        met = "" if r.met is None else ("yes" if r.met else "**no**")
        print(f"| {r.measure} | {r.goal} | {r.value} | {met} | {r.detail} |")
    if args.json:
        args.json.write_text(
            json.dumps(
                {"cores": CORES, "load_start": load_start, "load_end": load_end, "rows": [r.__dict__ for r in ROWS]},
                indent=1,
            )
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
