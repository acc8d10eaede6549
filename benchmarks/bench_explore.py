"""Exploration wall time: 10 runs in parallel vs 1 run, with the model answering at a fixed latency.

    python benchmarks/bench_explore.py [--latency 1.0] [--parallel 10] [--repeats 3]

The model is the local OpenAI-compatible test server (127.0.0.1), run in its own process as a
real endpoint would be, playing an agent that searches the demo shop (fill, click, done: three
model calls per run; the demo page's element ids are stable, so substring rules suffice). Each repeat measures one single run
and one batch of parallel runs back to back, alternating, with an empty cache each time; the
figure is the ratio of the medians. Target: <= 1.3x (a median; the machine must be otherwise idle,
as two batches on 2 cores slow each other down).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from pytest_reuseit.browser.session import BrowserConfig  # noqa: E402
from pytest_reuseit.llm.client import LlmClient, LlmConfig  # noqa: E402
from pytest_reuseit.sites import SiteServer  # noqa: E402
from pytest_reuseit.synthesis.explore import TaskInstance, explore  # noqa: E402

RULES = [  # the last matching rule wins
    {
        "schema": "agent_action",
        "answer": {"thought": "", "action": "fill", "element": "e16", "value": "trail shoes", "message": ""},
    },
    {
        "schema": "agent_action",
        "when": "agent: fill",
        "answer": {"thought": "", "action": "click", "element": "e17", "value": "", "message": ""},
    },
    {
        "schema": "agent_action",
        "when": "agent: click",
        "answer": {"thought": "", "action": "done", "element": "", "value": "", "message": "results shown"},
    },
]


@contextmanager
def model_server(latency: float) -> Iterator[str]:
    """The fake endpoint in a subprocess: its JSON and image decoding must not share our GIL."""
    with tempfile.TemporaryDirectory() as tmp:
        script = Path(tmp) / "rules.json"
        script.write_text(json.dumps(RULES))
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            port = sock.getsockname()[1]
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "tests.support.llm_server",
                "--port",
                str(port),
                "--latency",
                str(latency),
                "--script",
                str(script),
            ],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            text=True,
        )
        try:
            assert proc.stdout is not None and "serving" in proc.stdout.readline()
            yield f"http://127.0.0.1:{port}/v1"
        finally:
            proc.terminate()
            proc.wait(10)


def one_batch(n: int, site: SiteServer) -> float:
    work = Path(tempfile.mkdtemp(prefix="bench-explore-"))
    try:
        client = LlmClient(LlmConfig(model="bench", mode="auto", cache_dir=str(work / "cache"), retries=0))
        inst = TaskInstance("original", "original", "Search the demo shop for trail shoes", {"product": "trail shoes"})
        started = time.perf_counter()
        records = explore(
            [inst],
            n,
            f"{site.demo_url}/index.html?cookies=never&delay=0",
            work / "runs",
            client,
            allowed=("127.0.0.1",),
            concurrency=n,
            browser=BrowserConfig(),
        )
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
    with model_server(args.latency) as url, SiteServer() as site:
        os.environ["OPENAI_BASE_URL"], os.environ["OPENAI_API_KEY"] = url, "bench"
        one_batch(1, site)  # warm-up (imports, first browser start)
        singles, batches = [], []
        for _ in range(args.repeats):
            singles.append(one_batch(1, site))
            batches.append(one_batch(args.parallel, site))
        s, b = statistics.median(singles), statistics.median(batches)
        print(f"model latency {args.latency:.1f}s, 3 model calls per run, {os.cpu_count()} cores")
        print(f"1 run:              median {s:.2f}s  ({', '.join(f'{x:.2f}' for x in singles)})")
        print(f"{args.parallel} runs in parallel: median {b:.2f}s  ({', '.join(f'{x:.2f}' for x in batches)})")
        print(f"ratio: {b / s:.2f}x (target <= 1.3x); load average {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
