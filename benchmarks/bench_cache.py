"""The model response cache: a model-checked workflow cold (empty cache) vs warm (same page, cache hit).

    python benchmarks/bench_cache.py [--latency 1.0] [--pairs 3] [--checks 10] [--repeats 3]

A local FakeLLM (tests/support/llm_server.py, on 127.0.0.1 only) answers every
``condition_check`` with ``met: true`` after ``--latency`` seconds; OPENAI_BASE_URL and
OPENAI_API_KEY point at it, and the runs use ``llm="auto"`` (cache first, then the model).

1. Cold vs warm: benchmarks/workflows/cached.reuseit.yaml (8 checks in words, no DOM part).
   Each pair: a fresh empty cache folder, a cold run (every check asks the model), then a warm
   run of the same workflow on the unchanged page (every check should be a cache hit: 0 calls).
   Reported: model calls and cache hits of each run, wall times, and cold/warm; also the same
   workflow without a model (``llm="off"``: words checks not judged, no screenshots), the floor
   a warm run cannot go below.
2. Per-check overhead: a generated workflow whose one step has ``--checks`` different checks in
   words, run with an empty cache so each is a model call at ``--latency`` L. The step's wall
   time (the engine's own ``StepResult.duration``: the checks plus a one-line ``eval`` action)
   gives overhead = (wall - N x L) / N: the screenshot, the page text, the cache key and file,
   the HTTP round trip -- everything a check costs beyond the model's own latency.

A warm run only hits the cache when its requests are byte-identical to the cold run's, screenshot
included. When the warm run still calls the model, the script compares those requests with the
cold run's (image bytes, page text) and says what differed.

Both parts run in this process, on one Chromium and one demo site, after one warm-up run
without a model (browser start-up is not measured).
"""

from __future__ import annotations

import argparse
import hashlib
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))

from pytest_reuseit.api import default_settings  # noqa: E402
from pytest_reuseit.engine.result import RunResult  # noqa: E402
from pytest_reuseit.runtime import Runtime  # noqa: E402
from pytest_reuseit.sites import LocalSites  # noqa: E402
from pytest_reuseit.workflow.loader import load  # noqa: E402
from tests.support.llm_server import FakeLLM  # noqa: E402

WORKFLOW = HERE / "workflows" / "cached.reuseit.yaml"
DUMP: Path | None = None  # --dump DIR: write the screenshots of cache misses there


def overhead_workflow(n: int) -> str:
    """One step on the product page: a trivial action and ``n`` different checks in words."""
    checks = "\n".join(
        f"      - (check {i + 1} of {n}) the product page of the Trail Hiking Shoes is shown" for i in range(n)
    )
    return f"""name: Benchmark - {n} model checks on one page
task: Look at the product page of the Trail Hiking Shoes
start_url: "{{demo_url}}/product.html?id=p2&cookies=never"
browser: {{viewport: {{width: 1280, height: 800}}, locale: en-US}}
settings: {{retries: 1, check_timeout: 5, step_timeout: 600}}
steps:
  - action: Look at the page
    do:
      - eval: "0"
    post:
{checks}
"""


def per_step_workflow(n: int) -> str:
    """The layout users write: ``n`` steps, each a one-line action and one check in words after it,
    on a page that does not change. Each check pays for a whole look (settle, freeze, picture, text)."""
    steps = "\n".join(
        f"""  - action: Look at the page ({i + 1} of {n})
    do:
      - eval: "0"
    post:
      - (check {i + 1} of {n}) the product page of the Trail Hiking Shoes is shown"""
        for i in range(n)
    )
    return f"""name: Benchmark - a model check after each of {n} steps
task: Look at the product page of the Trail Hiking Shoes, step by step
start_url: "{{demo_url}}/product.html?id=p2&cookies=never"
browser: {{viewport: {{width: 1280, height: 800}}, locale: en-US}}
settings: {{retries: 1, check_timeout: 5, step_timeout: 600}}
steps:
{steps}
"""


def picture_costs(rounds: int = 20) -> tuple[list[float], list[float]]:
    """The ceiling of a cached check: one picture of the per-step workflow's page, in its own
    browser (the same executable, flags and viewport). Alternating, ``rounds`` each: Playwright's
    page.screenshot as a hand-written check takes it, and the DevTools call alone (the look's).
    Milliseconds."""
    import base64

    from playwright.sync_api import sync_playwright

    from pytest_reuseit.browser.session import BrowserConfig
    from pytest_reuseit.sites import SiteServer

    config = BrowserConfig()
    ours: list[float] = []
    theirs: list[float] = []
    with SiteServer() as site, sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=config.executable(), args=list(config.args))
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 800}, locale="en-US")
            page.goto(f"{site.demo_url}/product.html?id=p2&cookies=never")
            cdp = page.context.new_cdp_session(page)

            def playwright_shot() -> None:
                page.screenshot(type="jpeg", quality=70)

            def devtools_shot() -> None:
                base64.b64decode(cdp.send("Page.captureScreenshot", {"format": "jpeg", "quality": 70})["data"])

            for i in range(rounds + 1):
                for shot, into in [(playwright_shot, theirs), (devtools_shot, ours)][:: 1 if i % 2 else -1]:
                    t = time.perf_counter()
                    shot()
                    if i:  # the first round warms both up
                        into.append((time.perf_counter() - t) * 1000)
        finally:
            browser.close()
    return theirs, ours


def run(runtime: Runtime, loaded: Any, run_id: str, *, cache: Path, llm: str = "auto") -> tuple[RunResult, float]:
    from dataclasses import replace

    runtime.settings = replace(runtime.settings, llm=llm, cache=str(cache))
    runtime._llm = None  # a client per cache folder (the Runtime makes one lazily from the settings)
    t = time.perf_counter()
    result = runtime.run(loaded, None, run_id)
    wall = time.perf_counter() - t
    if result.status != "passed":
        raise SystemExit(f"{run_id}: the run did not pass: {result.status}: {result.message}")
    if llm != "off" and result.not_judged:
        raise SystemExit(f"{run_id}: checks were not judged: {[v.check for v in result.not_judged]}")
    return result, wall


def explain_misses(cold: list[Any], warm: list[Any]) -> list[str]:
    """Why warm requests missed the cache: compare them with the cold request for the same condition."""
    lines = []

    def condition(req: Any) -> str:
        lines = req.text.splitlines()
        return lines[lines.index("Condition to verify:") + 1] if "Condition to verify:" in lines else req.text[:80]

    def page_text(req: Any) -> str:
        return req.text.split("<page_text>", 1)[-1].split("</page_text>", 1)[0].strip()

    by_condition: dict[str, list[Any]] = {}
    for req in cold:
        by_condition.setdefault(condition(req), []).append(req)
    for req in warm:
        cond = condition(req)
        before = by_condition.get(cond, [None]).pop(0) if by_condition.get(cond) else None
        if before is None:
            lines.append(f"  {cond!r}: not asked in the cold run")
            continue
        same_image = before.images == req.images
        same_text = before.text == req.text
        if not same_text:
            import difflib

            diff = difflib.unified_diff(
                page_text(before).splitlines(), page_text(req).splitlines(), "cold", "warm", n=0, lineterm=""
            )
            lines.extend("      " + d for d in list(diff)[:12])
        if DUMP and not same_image:
            DUMP.mkdir(parents=True, exist_ok=True)
            for tag, r in (("cold", before), ("warm", req)):
                for k, img in enumerate(r.images):
                    (DUMP / f"{hashlib.sha256(cond.encode()).hexdigest()[:8]}-{tag}-{k}.jpg").write_bytes(img)
        digest = lambda imgs: ",".join(hashlib.sha256(i).hexdigest()[:10] for i in imgs)  # noqa: E731
        lines.append(
            f"  {cond!r}: image {'same' if same_image else f'differs ({digest(before.images)} vs {digest(req.images)})'}, "
            f"page text {'same' if same_text else 'differs'}"
        )
    return lines


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    ap.add_argument("--latency", type=float, default=1.0, help="seconds the fake model takes per answer [1.0]")
    ap.add_argument("--pairs", type=int, default=3, help="cold/warm pairs [3]")
    ap.add_argument("--checks", type=int, default=10, help="checks in the overhead workflow (N) [10]")
    ap.add_argument("--repeats", type=int, default=3, help="runs of the overhead workflow [3]")
    ap.add_argument("--dump", type=Path, help="write the cold and warm screenshots of cache misses to this folder")
    args = ap.parse_args(argv)
    load_start = os.getloadavg()
    global DUMP
    DUMP = args.dump

    with FakeLLM(latency=args.latency) as fake, tempfile.TemporaryDirectory(prefix="reuseit-bench-cache-") as tmp:
        fake.add_rule("condition_check", None, {"met": True, "explanation": "the condition holds on the page"})
        os.environ["OPENAI_BASE_URL"] = fake.base_url
        os.environ["OPENAI_API_KEY"] = "bench-key"
        root = Path(tmp)
        loaded = load(WORKFLOW, builtin_names=LocalSites.NAMES)
        n_checks = sum(len(s.pre) + len(s.post) for s in loaded.workflow.steps) + len(loaded.workflow.outcome)
        over_path = root / "overhead.reuseit.yaml"
        over_path.write_text(overhead_workflow(args.checks), encoding="utf-8")
        over = load(over_path, builtin_names=LocalSites.NAMES)
        # Plugin defaults for screenshots and traces; the model is used through the cache ("auto").
        runtime = Runtime(default_settings(screenshots="failures", llm="auto"), root)
        try:
            run(runtime, loaded, "warmup", cache=root / "unused", llm="off")  # browser and site warm, no model
            pairs = []
            for p in range(args.pairs):
                cache = root / f"cache-{p}"  # empty: a cold start
                before = len(fake.requests)
                cold, cold_wall = run(runtime, loaded, f"cold-{p}", cache=cache)
                cold_requests = fake.requests[before:]
                before = len(fake.requests)
                warm, warm_wall = run(runtime, loaded, f"warm-{p}", cache=cache)
                warm_requests = fake.requests[before:]
                _, off_wall = run(runtime, loaded, f"off-{p}", cache=cache, llm="off")
                pairs.append((cold, cold_wall, warm, warm_wall, len(cold_requests), len(warm_requests), off_wall))
                print(
                    f"pair {p + 1}: cold {cold_wall:.2f} s ({cold.usage.calls} calls), "
                    f"warm {warm_wall:.2f} s ({warm.usage.calls} calls, {warm.usage.cache_hits} hits), "
                    f"no model {off_wall:.2f} s",
                    file=sys.stderr,
                )
                if warm_requests:
                    print(f"pair {p + 1}: the warm run missed the cache {len(warm_requests)} times:", file=sys.stderr)
                    for line in explain_misses(cold_requests, warm_requests):
                        print(line, file=sys.stderr)

            overheads = []
            for r in range(args.repeats):
                result, wall = run(runtime, over, f"overhead-{r}", cache=root / f"over-{r}")
                step = result.steps[0]
                overheads.append((step.duration, wall, result.usage.calls))
        finally:
            runtime.close()

    load_end = os.getloadavg()
    print(
        f"machine: {os.cpu_count()} cores; load average (1, 5, 15 min) at the start "
        f"{', '.join(f'{x:.1f}' for x in load_start)}, at the end {', '.join(f'{x:.1f}' for x in load_end)}"
    )
    cold_walls = [p[1] for p in pairs]
    warm_walls = [p[3] for p in pairs]
    print(
        f"\ncold vs warm: {WORKFLOW.name} ({n_checks} checks in words), FakeLLM latency {args.latency:g} s, "
        f"{args.pairs} pairs, medians\n"
    )
    print("| run | model calls | cache hits | wall time |")
    print("|---|---:|---:|---:|")
    print(
        f"| cold (empty cache) | {statistics.median(p[0].usage.calls for p in pairs):.0f} "
        f"| {statistics.median(p[0].usage.cache_hits for p in pairs):.0f} | {statistics.median(cold_walls):.2f} s |"
    )
    print(
        f"| warm (same page, llm=auto) | {statistics.median(p[2].usage.calls for p in pairs):.0f} "
        f"| {statistics.median(p[2].usage.cache_hits for p in pairs):.0f} | {statistics.median(warm_walls):.2f} s |"
    )
    off_walls = [p[6] for p in pairs]
    print(f"| no model (llm=off: checks not judged, no screenshots) | 0 | 0 | {statistics.median(off_walls):.2f} s |")
    ratios = [c / w for c, w in zip(cold_walls, warm_walls, strict=False)]
    print(
        f"\ncold/warm wall time: {statistics.median(cold_walls) / statistics.median(warm_walls):.1f}x "
        f"(per pair: {', '.join(f'{x:.1f}x' for x in ratios)}); requests the fake received: "
        f"cold {statistics.median(p[4] for p in pairs):.0f}, warm {statistics.median(p[5] for p in pairs):.0f}"
    )
    hit = (statistics.median(warm_walls) - statistics.median(off_walls)) / n_checks
    print(
        f"a cache hit costs about {hit * 1000:.0f} ms (warm - no model, per check: screenshot, page text, key, "
        f"file); the warm run cannot beat the no-model run, so cold/warm is at most "
        f"{statistics.median(cold_walls) / statistics.median(off_walls):.1f}x here"
    )

    n, lat = args.checks, args.latency
    per_check = [(d - n * lat) / n for d, _, _ in overheads]
    per_check_run = [(w - n * lat) / n for _, w, _ in overheads]
    print(f"\nper-check overhead beyond the model latency: {n} checks at {lat:g} s, {args.repeats} runs")
    print(
        f"  step wall (checks + eval action): median {statistics.median(d for d, _, _ in overheads):.2f} s "
        f"-> (wall - N x L) / N = {statistics.median(per_check) * 1000:.0f} ms per check "
        f"(runs: {', '.join(f'{x * 1000:.0f}' for x in per_check)} ms; calls per run: {overheads[0][2]})"
    )
    print(
        f"  whole run (context, page, goto, the step, close): median {statistics.median(w for _, w, _ in overheads):.2f} s "
        f"-> {statistics.median(per_check_run) * 1000:.0f} ms per check"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
