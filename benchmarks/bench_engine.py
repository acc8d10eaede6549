"""Engine overhead: the benchmark workflow run by pytest-reuseit vs the same test written by hand.

    python benchmarks/bench_engine.py [--runs 20] [--warmup 2] [--profile] [--investigate]

(a) reuseit: ``Runtime(default_settings(screenshots=..., trace=...), tmp).run(loaded, None, id)``
    on benchmarks/workflows/bench.reuseit.yaml: a new context and page, the run, close.
(b) handwritten: ``test_handwritten.handwritten_run``: a new context and page, the same
    Playwright calls with the same locators and expects, close.

Both run in this process on the same Chromium (the Runtime's own browser: /usr/bin/chromium with
--disable-gpu --disable-quic) against the same local demo site, so neither process nor browser
start-up is measured. After ``--warmup`` runs of each, every round runs, for each settings
variant, one (a) and one (b) back to back, swapping which goes first every round, so the slow
moments of a noisy machine hit both sides alike. Printed per variant: median and mean wall time
per run, the ratio of the medians, and the median of the per-round ratios a/b.

``--profile`` also sums the wall time of reuseit's phases (context, route fence, tracing, goto, do
ops, expect checks, screenshots, close) and of the same Playwright calls in the handwritten run.
``--investigate`` adds two variants that switch off one cost each, to attribute the overhead:
the navigation fence (``context.route``) and the screencast frames of the trace.
"""

from __future__ import annotations

import argparse
import inspect
import os
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from test_handwritten import handwritten_run  # noqa: E402

from pytest_reuseit.api import default_settings  # noqa: E402
from pytest_reuseit.runtime import Runtime  # noqa: E402
from pytest_reuseit.sites import LocalSites  # noqa: E402
from pytest_reuseit.workflow.loader import load  # noqa: E402

WORKFLOW = HERE / "workflows" / "bench.reuseit.yaml"


@dataclass(frozen=True)
class Variant:
    label: str
    screenshots: str
    trace: str
    fence: bool = True  # investigation only: False opens the context without the navigation fence
    trace_snapshots: bool = True  # investigation only: False records the trace without DOM snapshots


# The plugin's defaults are screenshots=failures, trace=on-first-retry (nothing recorded by a run
# that needs no retry); retain-on-failure records every run from its start.
VARIANTS = (
    Variant("defaults (screenshots=failures, trace=on-first-retry)", "failures", "on-first-retry"),
    Variant("screenshots=steps (trace=on-first-retry)", "steps", "on-first-retry"),
    Variant("trace=retain-on-failure (screenshots=failures)", "failures", "retain-on-failure"),
    Variant("trace=off (screenshots=failures)", "failures", "off"),
)
INVESTIGATE = (
    Variant("[investigation] trace=off, no navigation fence", "failures", "off", fence=False),
    Variant(
        "[investigation] trace=retain-on-failure without DOM snapshots",
        "failures",
        "retain-on-failure",
        trace_snapshots=False,
    ),
)


class Switches:
    """What the investigation variants switch off; read by the wrappers installed below."""

    fence = True
    trace_snapshots = True


def install_switches() -> None:
    from playwright.sync_api._generated import Tracing

    from pytest_reuseit.browser.session import BrowserSession

    new_context, start = BrowserSession.new_context, Tracing.start

    def new_context_switched(self, options, fence):  # type: ignore[no-untyped-def]
        return new_context(self, options, fence if Switches.fence else None)

    def start_switched(self, **kwargs):  # type: ignore[no-untyped-def]
        if not Switches.trace_snapshots:
            kwargs["snapshots"] = False
        return start(self, **kwargs)

    BrowserSession.new_context = new_context_switched  # type: ignore[method-assign]
    Tracing.start = start_switched  # type: ignore[method-assign]


# --------------------------------------------------------------------------- phase profiling


class Phases:
    """Wall time per named phase of one side of one variant (wrappers add to the active one)."""

    active: Phases | None = None

    def __init__(self) -> None:
        self.total: dict[str, float] = defaultdict(float)
        self.runs = 0

    @classmethod
    @contextmanager
    def span(cls, name: str):  # type: ignore[no-untyped-def]
        target = cls.active
        if target is None:
            yield
            return
        t = time.perf_counter()
        try:
            yield
        finally:
            target.total[name] += time.perf_counter() - t

    def per_run_ms(self, name: str) -> float:
        return self.total.get(name, 0.0) / max(self.runs, 1) * 1000


# Playwright calls both sides make (compared), then engine functions only reuseit has (nested in execute).
SHARED = (
    "browser.new_context",
    "context.route (fence)",
    "tracing.start",
    "context.new_page",
    "page.goto",
    "tracing.stop",
    "context.close",
)
ENGINE = ("engine: execute (goto + steps)", "engine: do ops", "engine: expect checks", "engine: screenshots")


def install_profiler() -> None:
    """Wrap Playwright and engine functions so each phase's wall time is summed."""
    from playwright.sync_api._generated import Browser, BrowserContext, Page, Tracing

    from pytest_reuseit import runtime as rt_mod
    from pytest_reuseit.engine import actions, judging, recovery, screenshots

    def wrap(owner: Any, attr: str, name: str) -> None:
        static = isinstance(inspect.getattr_static(owner, attr), staticmethod)
        original = getattr(owner, attr)

        def wrapper(*args, **kwargs):  # type: ignore[no-untyped-def]
            with Phases.span(name):
                return original(*args, **kwargs)

        setattr(owner, attr, staticmethod(wrapper) if static else wrapper)

    for owner, attr, name in (
        (Browser, "new_context", SHARED[0]),
        (BrowserContext, "route", SHARED[1]),
        (Tracing, "start", SHARED[2]),
        (BrowserContext, "new_page", SHARED[3]),
        (Page, "goto", SHARED[4]),
        (Tracing, "stop", SHARED[5]),
        (BrowserContext, "close", SHARED[6]),
        (rt_mod, "execute", ENGINE[0]),
        # A step's ops and a fallback's: each module holds its own name for run_ops.
        (actions, "run_ops", ENGINE[1]),
        (recovery, "run_ops", ENGINE[1]),
        (judging, "check_expect", ENGINE[2]),
        (screenshots, "_capture", ENGINE[3]),
    ):
        wrap(owner, attr, name)


# --------------------------------------------------------------------------- runs


def timed(phases: Phases | None, fn: Callable[[], None]) -> float:
    Phases.active = phases
    t = time.perf_counter()
    try:
        fn()
    finally:
        elapsed = time.perf_counter() - t
        Phases.active = None
    if phases is not None:
        phases.runs += 1
        phases.total["whole run"] += elapsed
    return elapsed


def reuseit_once(runtime: Runtime, loaded: Any, run_id: str, phases: Phases | None = None) -> float:
    def run() -> None:
        result = runtime.run(loaded, None, run_id)
        if result.status != "passed":
            raise SystemExit(f"the reuseit run did not pass: {result.status}: {result.message}")

    return timed(phases, run)


def handwritten_once(runtime: Runtime, phases: Phases | None = None) -> float:
    browser, demo_url = runtime.session.browser(), str(runtime.builtins()["demo_url"])
    return timed(phases, lambda: handwritten_run(browser, demo_url))


def print_profile(label: str, a: Phases, b: Phases) -> None:
    print(f"\nphases, mean ms per run: {label}")
    print(f"  {'phase':<32} {'reuseit':>9} {'handwritten':>12} {'difference':>11}")
    for name in ("whole run", *SHARED):
        ra, rb = a.per_run_ms(name), b.per_run_ms(name)
        print(f"  {name:<32} {ra:9.1f} {rb:12.1f} {ra - rb:+11.1f}")
    hand_rest = b.per_run_ms("whole run") - sum(b.per_run_ms(k) for k in SHARED)
    reuse_rest = a.per_run_ms(ENGINE[0]) - a.per_run_ms("page.goto")
    print(f"  {'steps (ops, expects, shots)':<32} {reuse_rest:9.1f} {hand_rest:12.1f} {reuse_rest - hand_rest:+11.1f}")
    for name in ENGINE[1:]:
        print(f"    {name:<30} {a.per_run_ms(name):9.1f}")
    other = (
        a.per_run_ms("whole run") - a.per_run_ms(ENGINE[0]) - sum(a.per_run_ms(k) for k in SHARED if k != "page.goto")
    )
    print(f"  {'reuseit outside execute, else':<32} {other:9.1f}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=20, help="measured runs of each side per variant, at least 10 [20]")
    ap.add_argument("--warmup", type=int, default=2, help="unmeasured runs of each side first [2]")
    ap.add_argument("--profile", action="store_true", help="also break the time down by phase")
    ap.add_argument("--investigate", action="store_true", help="add variants without the fence / trace screencast")
    args = ap.parse_args(argv)
    load_start = os.getloadavg()
    if args.runs < 10:
        ap.error("--runs must be at least 10")

    variants = VARIANTS + (INVESTIGATE if args.investigate else ())
    install_switches()
    if args.profile:
        install_profiler()
    loaded = load(WORKFLOW, builtin_names=LocalSites.NAMES)
    a: dict[Variant, list[float]] = {v: [] for v in variants}
    b: dict[Variant, list[float]] = {v: [] for v in variants}
    prof_a = {v: Phases() if args.profile else None for v in variants}
    prof_b = {v: Phases() if args.profile else None for v in variants}
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="reuseit-bench-") as tmp:
        runtime = Runtime(default_settings(), Path(tmp))
        base = runtime.settings
        n = 0

        def use(v: Variant) -> None:
            runtime.settings = replace(base, screenshots=v.screenshots, trace=v.trace)
            Switches.fence, Switches.trace_snapshots = v.fence, v.trace_snapshots

        try:
            for _ in range(args.warmup):
                for v in variants:
                    use(v)
                    reuseit_once(runtime, loaded, f"warmup-{n}")
                    handwritten_once(runtime)
                    n += 1
            for i in range(args.runs):
                for v in variants:
                    use(v)
                    n += 1
                    if i % 2 == 0:
                        a[v].append(reuseit_once(runtime, loaded, f"bench-{n}", prof_a[v]))
                        b[v].append(handwritten_once(runtime, prof_b[v]))
                    else:
                        b[v].append(handwritten_once(runtime, prof_b[v]))
                        a[v].append(reuseit_once(runtime, loaded, f"bench-{n}", prof_a[v]))
                print(f"round {i + 1}/{args.runs} done", file=sys.stderr, flush=True)
        finally:
            runtime.close()

    load_end = os.getloadavg()
    print(
        f"machine: {os.cpu_count()} cores; load average (1, 5, 15 min) at the start "
        f"{', '.join(f'{x:.1f}' for x in load_start)}, at the end {', '.join(f'{x:.1f}' for x in load_end)}"
    )
    print(
        f"\nper-run wall time in ms: {args.runs} runs of each side per variant after {args.warmup} warm-ups, "
        f"alternating a/b ({time.monotonic() - started:.0f} s in all)\n"
    )
    print(
        "| settings | reuseit median | reuseit mean | handwritten median | handwritten mean | ratio of medians "
        "| median of per-round ratios |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|")
    for v in variants:
        am, bm = statistics.median(a[v]), statistics.median(b[v])
        pairs = statistics.median(x / y for x, y in zip(a[v], b[v], strict=False))
        print(
            f"| {v.label} | {am * 1000:.0f} | {statistics.mean(a[v]) * 1000:.0f} | {bm * 1000:.0f} | "
            f"{statistics.mean(b[v]) * 1000:.0f} | {am / bm:.2f}x | {pairs:.2f}x |"
        )
    if args.profile:
        for v in variants:
            print_profile(v.label, prof_a[v], prof_b[v])  # type: ignore[arg-type]
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
