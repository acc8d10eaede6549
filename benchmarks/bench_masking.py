"""A page that never holds still: a warm rerun with ``mask:`` vs without, and what masking costs.

    python benchmarks/bench_masking.py [--latency 0.5] [--pairs 3] [--captures 20]

The page is the demo shop's live.html: a clock ticking every second and a carousel sliding every
1.5 s. The workflow is workflows/demo/deals.reuseit.yaml (3 checks in words: pre, post, outcome;
``mask:`` over the clock and the carousel), and the same text with its ``mask:`` removed.

1. Warm reruns. A local FakeLLM (tests/support/llm_server.py, 127.0.0.1 only) answers every
   ``condition_check`` with ``met: true`` after ``--latency`` seconds. Per pair and per variant
   (masked, unmasked): a fresh empty cache folder, a cold run, 1.6 s of waiting (the clock and the
   carousel move on), a warm run. Reported: model calls of each run and wall times.
2. Capture cost. ``--captures`` captures of the same page through the capture the checks use
   (settle, freeze, paint, picture until two agree, masked text) with the workflow's masks and a
   secret echoed by the page, against the same capture with nothing to mask.

Both parts run in this process on one Chromium (browser start-up is not measured).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))

from pytest_reuseit.api import default_settings  # noqa: E402
from pytest_reuseit.browser.masking import ScreenMasks, attach  # noqa: E402
from pytest_reuseit.browser.observe import capture_view, watch_network  # noqa: E402
from pytest_reuseit.browser.session import NavigationFence  # noqa: E402
from pytest_reuseit.runtime import Runtime  # noqa: E402
from pytest_reuseit.sites import LocalSites  # noqa: E402
from pytest_reuseit.workflow.loader import parse  # noqa: E402
from pytest_reuseit.workflow.locators import Locator  # noqa: E402
from tests.support.llm_server import FakeLLM  # noqa: E402

DEALS = ROOT / "workflows" / "demo" / "deals.reuseit.yaml"
MASK_BLOCK = "mask:\n  - {test_id: store-time}\n  - {test_id: carousel}\n"


def warm_reruns(runtime: Runtime, fake: FakeLLM, pairs: int, tmp: Path) -> None:
    text = DEALS.read_text()
    assert MASK_BLOCK in text
    variants = {"masked": text, "unmasked": text.replace(MASK_BLOCK, "")}
    print(f"warm reruns of {DEALS.relative_to(ROOT)} (3 checks in words), model latency {fake.latency:g} s")
    print(f"{'variant':9} {'pair':>4} {'cold calls':>10} {'warm calls':>10} {'cold s':>7} {'warm s':>7}")
    totals: dict[str, list[int]] = {name: [] for name in variants}
    for n in range(pairs):
        for name, body in variants.items():
            loaded = parse(body, str(DEALS), builtin_names=LocalSites.NAMES)
            runtime.settings = replace(runtime.settings, cache=str(tmp / f"cache-{name}-{n}"))
            runtime._llm = None  # noqa: SLF001 - a client per cache folder
            row = []
            for phase in ("cold", "warm"):
                before = fake.calls()
                t = time.perf_counter()
                result = runtime.run(loaded, None, f"{name}-{n}-{phase}")
                row.append((fake.calls() - before, time.perf_counter() - t))
                assert result.status == "passed", result.message
                if phase == "cold":
                    time.sleep(1.6)
            totals[name].append(row[1][0])
            print(f"{name:9} {n + 1:>4} {row[0][0]:>10} {row[1][0]:>10} {row[0][1]:>7.2f} {row[1][1]:>7.2f}")
    for name, warm in totals.items():
        print(f"{name}: warm reruns made {sum(warm)} model calls in {pairs} reruns")


def capture_cost(runtime: Runtime, captures: int) -> None:
    context = runtime.session.new_context({"viewport": {"width": 1280, "height": 800}}, NavigationFence(("127.0.0.1",)))
    try:
        page = context.new_page()
        watch_network(context)
        url = runtime.builtins()["demo_url"]
        page.goto(f"{url}/live.html?cookies=never")
        page.evaluate("document.querySelector('h1').textContent = 'Deals for key sk-bench-0000-1111'")
        regions = (Locator(test_id="store-time"), Locator(test_id="carousel"))
        masked = ScreenMasks(secret_values={"K": "sk-bench-0000-1111"}, render=str, regions=regions)
        plain = ScreenMasks(secret_values={}, render=str)
        times: dict[str, list[float]] = {"nothing to mask": [], "2 mask regions + 1 secret": []}
        for _ in range(2):  # warm-up
            capture_view(page, masks=plain, steady=True, text_chars=4000)
        for _ in range(captures):
            for label, masks in (("nothing to mask", plain), ("2 mask regions + 1 secret", masked)):
                attach(context, masks)
                t = time.perf_counter()
                view = capture_view(page, masks=masks, steady=True, text_chars=4000)
                times[label].append(time.perf_counter() - t)
                assert bool(view.masked) == (masks is masked)
        base = statistics.median(times["nothing to mask"])
        print(f"\ncapture for a check (settle, freeze, picture until two agree, text), {captures} each, alternating:")
        for label, values in times.items():
            med = statistics.median(values)
            print(f"  {label:26} median {med * 1000:6.1f} ms  ({med / base:.2f}x)")
    finally:
        context.close()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--latency", type=float, default=0.5)
    ap.add_argument("--pairs", type=int, default=3)
    ap.add_argument("--captures", type=int, default=20)
    args = ap.parse_args()
    print(f"cores: {os.cpu_count()}, load average: {os.getloadavg()[0]:.1f}")
    with FakeLLM(latency=args.latency) as fake, tempfile.TemporaryDirectory() as tmp:
        fake.add_rule("condition_check", None, {"met": True, "explanation": "Yes."})
        os.environ["OPENAI_BASE_URL"] = fake.base_url
        os.environ["OPENAI_API_KEY"] = "bench"
        runtime = Runtime(default_settings(llm="auto", llm_retries=0, llm_backoff=0.01), Path(tmp))
        try:
            warm_reruns(runtime, fake, args.pairs, Path(tmp))
            capture_cost(runtime, args.captures)
        finally:
            runtime.close()
    print(f"load average at the end: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
