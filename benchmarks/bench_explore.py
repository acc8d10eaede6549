"""Exploration wall time: 10 runs in parallel vs 1 run, with the model answering at a fixed latency.

    python benchmarks/bench_explore.py [--latency 1.0] [--parallel 10] [--repeats 3]

The model is the local OpenAI-compatible test server (127.0.0.1), run in its own process as a
real endpoint would be, playing an agent that searches the demo shop (fill, click, done: three
model calls per run; the demo page's element ids are stable, so substring rules suffice). Each repeat measures one single run
and one batch of parallel runs back to back, alternating, with an empty cache each time; the
figure is the ratio of the medians. Target: <= 1.3x (a median; the machine must be otherwise idle,
as two batches on 2 cores slow each other down).

The ceiling is measured beside it: the same agent loop written by hand (plain Playwright's async
API and the openai client, as a team would write it: the page's ARIA snapshot and a screenshot
sent to the same model at each turn, its answer done on the page), 1 run against ``--parallel``
runs, on its own driver and browser started the same way. On a machine where 10 runs of plain
Playwright already take more than 1.3x one, that ratio is the floor (``--ceiling``).
"""

from __future__ import annotations

import argparse
import asyncio
import base64
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


# The hand-written loop's answer format: what the fake model's rules answer (see RULES).
_ACTION_SCHEMA = {
    "type": "object",
    "properties": {k: {"type": "string"} for k in ("thought", "action", "element", "value", "message")},
    "required": ["thought", "action", "element", "value", "message"],
    "additionalProperties": False,
}


async def _handwritten_run(browser: object, model: object, url: str, task: str) -> bool:
    """One agent run as a team would write it by hand: snapshot and screenshot, ask, act."""
    from openai import AsyncOpenAI
    from playwright.async_api import Browser

    assert isinstance(browser, Browser) and isinstance(model, AsyncOpenAI)
    context = await browser.new_context()
    try:
        page = await context.new_page()
        await page.goto(url)
        history: list[str] = []
        for _ in range(15):
            snapshot = await page.aria_snapshot(mode="ai")
            shot = base64.b64encode(await page.screenshot(type="jpeg", quality=70)).decode()
            text = f"Task: {task}\nPage:\n{snapshot}\nDone so far:\n" + "\n".join(history)
            reply = await model.chat.completions.create(
                model="bench",
                messages=[
                    {
                        "role": "user",
                        "content": [
                            {"type": "text", "text": text},
                            {"type": "image_url", "image_url": {"url": f"data:image/jpeg;base64,{shot}"}},
                        ],
                    }
                ],
                response_format={
                    "type": "json_schema",
                    "json_schema": {"name": "agent_action", "schema": _ACTION_SCHEMA, "strict": True},
                },
            )
            answer = json.loads(reply.choices[0].message.content or "{}")
            if answer["action"] in ("done", "fail"):
                return bool(answer["action"] == "done")
            target = page.locator(f"aria-ref={answer['element']}")
            if answer["action"] == "fill":
                await target.fill(answer["value"])
            else:
                await target.click()
            history.append(f"agent: {answer['action']} {answer['element']}")
        return False
    finally:
        await context.close()


def handwritten_batch(n: int, site: SiteServer) -> float:
    """``n`` hand-written agent runs at once on one driver and browser, started as explore() starts
    its own (driver, browser, runs, close), against the model at $OPENAI_BASE_URL: the wall time."""
    from openai import AsyncOpenAI
    from playwright.async_api import async_playwright

    url = f"{site.demo_url}/index.html?cookies=never&delay=0"

    async def batch() -> list[bool]:
        async with async_playwright() as pw:
            browser = await pw.chromium.launch(
                executable_path=BrowserConfig().executable(), args=list(BrowserConfig().args)
            )
            try:
                async with AsyncOpenAI(max_retries=0) as model:
                    runs = (
                        _handwritten_run(browser, model, url, "Search the demo shop for trail shoes") for _ in range(n)
                    )
                    return list(await asyncio.gather(*runs))
            finally:
                await browser.close()

    started = time.perf_counter()
    done = asyncio.run(batch())
    elapsed = time.perf_counter() - started
    assert all(done) and len(done) == n, done
    return elapsed


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--latency", type=float, default=1.0)
    ap.add_argument("--parallel", type=int, default=10)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--ceiling", action="store_true", help="also the hand-written loop, alternating with ours")
    args = ap.parse_args()
    with model_server(args.latency) as url, SiteServer() as site:
        os.environ["OPENAI_BASE_URL"], os.environ["OPENAI_API_KEY"] = url, "bench"
        sides = {"reuseit explore": one_batch}
        if args.ceiling:
            sides["hand-written loop"] = handwritten_batch
        for side in sides.values():
            side(1, site)  # warm-up (imports, first browser start)
        times: dict[str, tuple[list[float], list[float]]] = {name: ([], []) for name in sides}
        for r in range(args.repeats):
            order = list(sides) if r % 2 == 0 else list(sides)[::-1]
            for name in order:
                times[name][0].append(sides[name](1, site))
                times[name][1].append(sides[name](args.parallel, site))
        print(f"model latency {args.latency:.1f}s, 3 model calls per run, {os.cpu_count()} cores")
        for name, (singles, batches) in times.items():
            s, b = statistics.median(singles), statistics.median(batches)
            print(f"{name}:")
            print(f"  1 run:              median {s:.2f}s  ({', '.join(f'{x:.2f}' for x in singles)})")
            print(f"  {args.parallel} runs in parallel: median {b:.2f}s  ({', '.join(f'{x:.2f}' for x in batches)})")
            print(f"  ratio: {b / s:.2f}x (target <= 1.3x)")
        print(f"load average {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
