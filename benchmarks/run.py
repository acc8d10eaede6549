"""Every row of the speed table, each measured side by side in this one run.

    python benchmarks/run.py            # every row, about 10-15 minutes on a quiet 2-core machine
    python benchmarks/run.py --quick    # fewer rounds and a small example subset: 1-3 minutes, for CI
    python benchmarks/run.py --only collect,memory

Each row compares two things measured in the same run, alternating (A B, B A, ...) so a machine
whose load drifts slows both sides alike, and reports medians (table.py). The rows reuse the code
of the single-purpose scripts (bench_engine.py, bench_cache.py, bench_explore.py); the rows of many
short workflows, of collection and of memory live in their own (bench_short.py, bench_collect.py,
bench_memory.py). See README.md for how each is measured and for the causes behind the figures.
Everything listens on 127.0.0.1.

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
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path[:0] = [str(HERE), str(ROOT)]

import bench_cache  # noqa: E402
import bench_collect  # noqa: E402
import bench_engine  # noqa: E402
import bench_explore  # noqa: E402
import bench_memory  # noqa: E402
import bench_short  # noqa: E402
from examples_copy import fixed_examples  # noqa: E402
from table import CORES, ROWS, Row, alternate, listing, log, med, run_pytest  # noqa: E402

from pytest_reuseit.api import default_settings  # noqa: E402
from pytest_reuseit.engine.result import RunResult  # noqa: E402
from pytest_reuseit.runtime import Runtime  # noqa: E402
from pytest_reuseit.sites import LocalSites  # noqa: E402
from pytest_reuseit.workflow.loader import LoadedWorkflow, load  # noqa: E402

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
    playwright_shot, devtools_shot = bench_cache.picture_costs(10 if quick else 20)
    picture = med(playwright_shot)
    hit = [(w - o) / steps * 1000 for w, o in zip(warm, off, strict=True)]
    live = [(c - o - steps * latency) / steps * 1000 for c, o in zip(cold, off, strict=True)]
    saved = [(c - o) / (w - o) for c, w, o in zip(cold, warm, off, strict=True)]
    layout = f"one check after each of {steps} steps"
    ROWS.append(
        Row(
            f"a check answered from the cache, {layout}",
            "≤ 30 ms, or one screenshot",
            f"{med(hit):.0f} ms (a screenshot {picture:.0f} ms)",
            med(hit) <= max(30.0, picture),
            f"(warm − no model)/{steps}, runs: {listing(hit, '{:.0f}')} ms; one picture of the page in a "
            f"browser of its own: Playwright's screenshot {picture:.0f} ms, the DevTools call alone "
            f"{med(devtools_shot):.0f} ms (medians of {len(devtools_shot)})",
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
    """Ours, 1 run vs ``parallel``, beside the same agent loop hand-written in plain Playwright
    (bench_explore.handwritten_batch): on 2 cores, 10 runs' page work is the floor of the ratio."""
    from pytest_reuseit.sites import SiteServer

    repeats = 1 if quick else 3
    ours: tuple[list[float], list[float]] = ([], [])
    theirs: tuple[list[float], list[float]] = ([], [])
    with bench_explore.model_server(latency) as url, model_endpoint(url), SiteServer() as site:
        bench_explore.one_batch(1, site)  # imports, first browser start
        bench_explore.handwritten_batch(1, site)
        for r in range(repeats):
            sides = [(ours, bench_explore.one_batch), (theirs, bench_explore.handwritten_batch)]
            for (singles, batches), batch in sides if r % 2 == 0 else sides[::-1]:
                singles.append(batch(1, site))
                batches.append(batch(parallel, site))
    ratio = med(ours[1]) / med(ours[0])
    floor = med(theirs[1]) / med(theirs[0])
    ROWS.append(
        Row(
            f"{parallel} exploration runs in parallel vs 1 ({latency:g} s model latency)",
            "≤ 1.3×, or the hand-written loop's",
            f"{ratio:.2f}× (hand-written {floor:.2f}×)",
            ratio <= max(1.3, floor),
            f"ours: 1 run {listing(ours[0])} s, {parallel} runs {listing(ours[1])} s; the same loop in plain "
            f"Playwright: 1 run {listing(theirs[0])} s, {parallel} runs {listing(theirs[1])} s",
        )
    )
    log(f"explore: {ratio:.2f}x, hand-written {floor:.2f}x")


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


# --------------------------------------------------------------------------- main

ROW_FUNCS: dict[str, Callable[[bool], None]] = {
    "engine": row_engine,
    "model": row_model,
    "explore": row_explore,
    "xdist": row_xdist,
    "short": bench_short.row_xdist_short,
    "collect": bench_collect.row_collect,
    "memory": bench_memory.row_memory,
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
