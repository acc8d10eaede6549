"""Exploration wall time: 10 runs in parallel vs 1 run, with the model answering at a fixed latency.

    python benchmarks/bench_explore.py [--latency 1.0] [--parallel 10] [--repeats 3]

The model is the local OpenAI-compatible test server (127.0.0.1) playing an agent that searches
the demo shop (fill, click, done: three model calls per run). Each repeat measures one single run
and one batch of parallel runs back to back, alternating, with an empty cache each time; the
figure is the ratio of the medians. Target: <= 1.5x.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from pytest_reuseit.browser.session import BrowserConfig  # noqa: E402
from pytest_reuseit.llm.client import LlmClient, LlmConfig  # noqa: E402
from pytest_reuseit.sites import SiteServer  # noqa: E402
from pytest_reuseit.synthesis.explore import TaskInstance, explore  # noqa: E402
from tests.support.llm_server import FakeLLM, Request  # noqa: E402


def agent(req: Request) -> dict[str, str]:
    done = req.text.split("Already done in this step:", 1)[1].split("Page:", 1)[0]
    base = {"thought": "", "element": "", "value": "", "message": ""}
    if "agent: fill" not in done:
        ref = re.search(r'searchbox "Search products" \[ref=(e\d+)\]', req.text)
        return {**base, "action": "fill", "element": ref.group(1) if ref else "", "value": "trail shoes"}
    if "agent: click" not in done:
        ref = re.search(r'button "Search" \[ref=(e\d+)\]', req.text)
        return {**base, "action": "click", "element": ref.group(1) if ref else ""}
    return {**base, "action": "done", "message": "results shown"}


def one_batch(n: int, site: SiteServer, fake: FakeLLM) -> float:
    work = Path(tempfile.mkdtemp(prefix="bench-explore-"))
    try:
        client = LlmClient(LlmConfig(model="bench", mode="auto", cache_dir=str(work / "cache"), retries=0))
        inst = TaskInstance("original", "original", "Search the demo shop for trail shoes", {"product": "trail shoes"})
        started = time.perf_counter()
        records = explore([inst], n, f"{site.demo_url}/index.html?cookies=never&delay=0", work / "runs", client,
                          allowed=("127.0.0.1",), concurrency=n, browser=BrowserConfig())
        elapsed = time.perf_counter() - started
        assert len(records) == n and all(r.done for r in records), [r.final_message or r.error for r in records]
        return elapsed
    finally:
        shutil.rmtree(work, ignore_errors=True)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--latency", type=float, default=1.0)
    ap.add_argument("--parallel", type=int, default=10)
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    with FakeLLM(latency=args.latency) as fake, SiteServer() as site:
        fake.add_rule("agent_action", None, agent)
        os.environ["OPENAI_BASE_URL"], os.environ["OPENAI_API_KEY"] = fake.base_url, "bench"
        one_batch(1, site, fake)  # warm-up (imports, first browser start)
        singles, batches = [], []
        for _ in range(args.repeats):
            singles.append(one_batch(1, site, fake))
            batches.append(one_batch(args.parallel, site, fake))
        s, b = statistics.median(singles), statistics.median(batches)
        print(f"model latency {args.latency:.1f}s, 3 model calls per run, {os.cpu_count()} cores")
        print(f"1 run:              median {s:.2f}s  ({', '.join(f'{x:.2f}' for x in singles)})")
        print(f"{args.parallel} runs in parallel: median {b:.2f}s  ({', '.join(f'{x:.2f}' for x in batches)})")
        print(f"ratio: {b / s:.2f}x (target <= 1.5x)")


if __name__ == "__main__":
    main()
