"""Votes in parallel: a check with ``votes: 3`` vs a check with one vote, at a fixed model latency.

    python benchmarks/bench_votes.py [--latency 1.0] [--rounds 5]

A local FakeLLM (tests/support/llm_server.py, on 127.0.0.1 only) answers every
``condition_check`` after ``--latency`` seconds. Both sides go through the runner's own judge
(``ModelJudge.judge``: message building, the cache lookup and write, the ``openai`` client, HTTP)
with ``llm="live"`` semantics on a fresh cache folder, so every vote is a real request. Each
round runs one 1-vote check and one 3-vote check back to back, swapping which goes first.
Reported: median wall time per side, the ratio of the medians, the median of per-round ratios,
and the requests the server received (3 per 3-vote check: the votes are not merged into one).

The screenshot and page text are the same for both sides and taken once per check, so they are
left out: what differs between the sides is only how the votes are asked.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from pytest_reuseit.engine.result import ModelUsage  # noqa: E402
from pytest_reuseit.llm.client import LlmClient, LlmConfig  # noqa: E402
from pytest_reuseit.llm.judge import ModelJudge  # noqa: E402
from tests.support.llm_server import FakeLLM  # noqa: E402

# A small valid JPEG is not needed: the server only decodes the base64 of the data URL.
SCREENSHOT = b"\xff\xd8\xff\xe0" + bytes(range(256)) * 40 + b"\xff\xd9"


def timed_check(judge: ModelJudge, votes: int, n: int) -> float:
    started = time.perf_counter()
    judge.judge(f"(round {n}) the product page is shown", SCREENSHOT, "Trail Hiking Shoes $89.00", votes)
    return time.perf_counter() - started


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--latency", type=float, default=1.0)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    with FakeLLM(latency=args.latency) as fake, tempfile.TemporaryDirectory() as tmp:
        fake.add_rule("condition_check", None, {"met": True, "explanation": "The product page is shown."})
        os.environ["OPENAI_BASE_URL"] = fake.base_url
        os.environ["OPENAI_API_KEY"] = "bench"
        client = LlmClient(LlmConfig(mode="live", cache_dir=str(Path(tmp) / "cache")))
        judge = ModelJudge(client, ModelUsage())
        timed_check(judge, 1, -1)  # warm-up: the client's connection pool
        one: list[float] = []
        three: list[float] = []
        before = fake.calls()
        for n in range(args.rounds):
            order = (1, 3) if n % 2 == 0 else (3, 1)
            for votes in order:
                (one if votes == 1 else three).append(timed_check(judge, votes, n))
        requests = fake.calls() - before
    ratios = [t / o for o, t in zip(one, three, strict=True)]
    print(f"latency {args.latency:g}s, {args.rounds} rounds, {requests} requests ({args.rounds * 4} expected)")
    print(f"1 vote : median {statistics.median(one):.3f}s  ({', '.join(f'{x:.3f}' for x in one)})")
    print(f"3 votes: median {statistics.median(three):.3f}s  ({', '.join(f'{x:.3f}' for x in three)})")
    print(
        f"ratio of medians {statistics.median(three) / statistics.median(one):.3f}x; "
        f"median of per-round ratios {statistics.median(ratios):.3f}x"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
