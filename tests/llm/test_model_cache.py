"""The model response cache and the usage accounting, through the real client and a real local server.

The client (``pytest_reuseit.llm.client.LlmClient``) talks to ``FakeLLM`` over HTTP; the tests count
what reaches the server. Runs of whole workflows use real Chromium and tests/pages/model/.
"""

from __future__ import annotations

import json
import math
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from pytest_reuseit.browser.observe import data_url
from pytest_reuseit.engine.result import ModelUsage
from pytest_reuseit.errors import BrokenRun
from pytest_reuseit.llm.cache import ResponseCache, cache_key
from pytest_reuseit.llm.client import LlmClient, LlmConfig, load_prices
from pytest_reuseit.runtime import Runtime
from pytest_reuseit.workflow.loader import parse
from tests.support.llm_server import TOKENS_PER_IMAGE, TOKENS_PER_MESSAGE, FakeLLM, Request

MET = {"met": True, "explanation": "The condition holds."}
FOUND = {"found": True, "value": "42"}
IMAGE = b"\xff\xd8\xff\xe0 pretend jpeg \xff\xd9"


def messages(text: str = "Condition to verify:\nThe cart is empty", image: bytes = IMAGE) -> list[dict[str, Any]]:
    return [
        {"role": "system", "content": "You verify one condition."},
        {
            "role": "user",
            "content": [
                {"type": "text", "text": text},
                {"type": "image_url", "image_url": {"url": data_url(image), "detail": "auto"}},
            ],
        },
    ]


@pytest.fixture
def fake(fake_llm_env: FakeLLM) -> FakeLLM:
    fake_llm_env.add_rule("condition_check", None, MET)
    fake_llm_env.add_rule("extracted_value", None, FOUND)
    return fake_llm_env


def client(tmp_path: Path, **overrides: Any) -> LlmClient:
    cfg: dict[str, Any] = {
        "model": "m1",
        "mode": "auto",
        "cache_dir": str(tmp_path / "cache"),
        "timeout": 2,
        "retries": 0,
        "backoff": 0.01,
    }
    cfg.update(overrides)
    return LlmClient(LlmConfig(**cfg))


def entry_files(folder: Path) -> list[Path]:
    return sorted(folder.glob("*/*.json"))


# --------------------------------------------------------------------------- what the key covers


def test_the_key_covers_model_schema_image_text_and_sampling(fake: FakeLLM, tmp_path: Path) -> None:
    usage = ModelUsage()
    base = client(tmp_path)

    def asks(
        c: LlmClient = base, schema: str = "condition_check", msgs: list[dict[str, Any]] | None = None, **kw: Any
    ) -> int:
        """How many new requests reached the server for one ask."""
        before = fake.calls()
        c.ask(schema, msgs or messages(), usage, **kw)
        return fake.calls() - before

    assert asks() == 1
    assert asks() == 0  # the same question: from the cache
    assert usage.cache_hits == 1
    assert asks(model="m2") == 1
    assert asks(schema="extracted_value") == 1
    assert asks(msgs=messages(image=IMAGE + b"!")) == 1  # one byte of screenshot differs
    assert asks(msgs=messages(text="Condition to verify:\nThe cart is full")) == 1
    assert asks(variant=1) == 1  # the second vote is its own question
    assert asks(variant=2) == 1
    assert asks(c=client(tmp_path, temperature=0.3)) == 1
    # ... and each of those is now cached in turn.
    assert asks(model="m2") == asks(schema="extracted_value") == asks(variant=1) == 0
    assert asks(msgs=messages(image=IMAGE + b"!")) == 0
    assert asks(c=client(tmp_path, temperature=0.3)) == 0
    assert asks() == 0
    assert len(entry_files(tmp_path / "cache")) == fake.calls() == 8
    assert usage.calls == 8 and usage.cache_hits == 7
    # The request carried what the key says it does.
    models = {r.model for r in fake.requests}
    assert models == {"m1", "m2"}
    assert sorted(r.body["temperature"] for r in fake.requests).count(0.7) == 2


def test_cache_key_is_order_independent_and_content_sensitive() -> None:
    a = {"model": "m", "schema": "s", "messages": messages(), "params": {"temperature": 0.0}, "variant": 0}
    b = dict(reversed(list(a.items())))
    assert cache_key(a) == cache_key(b)
    assert len(cache_key(a)) == 64
    for field, value in (
        ("model", "n"),
        ("schema", "t"),
        ("messages", messages(image=b"x")),
        ("params", {"temperature": 0.7}),
        ("variant", 1),
    ):
        assert cache_key({**a, field: value}) != cache_key(a), field


def test_a_corrupt_entry_is_asked_again_and_replaced(fake: FakeLLM, tmp_path: Path) -> None:
    usage = ModelUsage()
    c = client(tmp_path)
    c.ask("condition_check", messages(), usage)
    (entry,) = entry_files(tmp_path / "cache")
    entry.write_text('{"answer": {"met": tru', encoding="utf-8")  # a torn write from some other tool
    answer = c.ask("condition_check", messages(), usage)
    assert answer.model_dump() == MET
    assert fake.calls() == 2
    assert json.loads(entry.read_text(encoding="utf-8"))["answer"] == MET


def test_an_entry_that_no_longer_fits_the_schema_is_asked_again(fake: FakeLLM, tmp_path: Path) -> None:
    usage = ModelUsage()
    c = client(tmp_path)
    c.ask("condition_check", messages(), usage)
    (entry,) = entry_files(tmp_path / "cache")
    data = json.loads(entry.read_text(encoding="utf-8"))
    entry.write_text(json.dumps({**data, "answer": {"met": "perhaps"}}), encoding="utf-8")
    assert c.ask("condition_check", messages(), usage).model_dump() == MET
    assert fake.calls() == 2 and usage.cache_hits == 0


# --------------------------------------------------------------------------- writes are atomic


@pytest.mark.slow
def test_concurrent_writes_of_one_key_never_show_a_partial_file(tmp_path: Path) -> None:
    cache = ResponseCache(tmp_path / "cache")
    key = cache_key({"k": 1})
    path = tmp_path / "cache" / key[:2] / f"{key}.json"
    big = "x" * 200_000  # large enough that a non-atomic write is visible half-done
    cache.put(key, {"answer": {"writer": -1}, "pad": big})
    stop = threading.Event()
    bad: list[str] = []
    reads = [0]

    def writer(n: int) -> None:
        for i in range(25):
            cache.put(key, {"answer": {"writer": n, "i": i}, "pad": big})

    def reader() -> None:
        while not stop.is_set():
            try:
                data = json.loads(path.read_text(encoding="utf-8"))
            except ValueError as exc:
                bad.append(str(exc)[:80])
                continue
            reads[0] += 1
            if data.get("pad") != big or "writer" not in data.get("answer", {}):
                bad.append("incomplete entry")

    readers = [threading.Thread(target=reader) for _ in range(3)]
    writers = [threading.Thread(target=writer, args=(n,)) for n in range(8)]
    for t in readers + writers:
        t.start()
    for t in writers:
        t.join()
    stop.set()
    for t in readers:
        t.join()
    assert not bad, bad[:5]
    assert reads[0] > 0
    assert cache.get(key)["pad"] == big  # type: ignore[index]
    leftovers = [p.name for p in path.parent.iterdir() if p.name.startswith(".tmp-")]
    assert leftovers == []


def test_concurrent_identical_asks_call_the_model_once(fake: FakeLLM, tmp_path: Path) -> None:
    fake.latency = 0.3  # long enough that every thread asks while the first answer is on its way
    results: list[Any] = []
    usages = [ModelUsage() for _ in range(6)]

    def ask(n: int) -> None:
        results.append(client(tmp_path).ask("condition_check", messages(), usages[n]))

    threads = [threading.Thread(target=ask, args=(n,)) for n in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert [r.model_dump() for r in results] == [MET] * 6
    assert fake.calls() == 1
    assert sum(u.calls for u in usages) == 1 and sum(u.cache_hits for u in usages) == 5


# --------------------------------------------------------------------------- many workers, one cache

SAME_QUESTION = """\
name: same question
task: Paint the page
start_url: "{{base_url}}/model/app.html"
settings: {{check_timeout: 1, action_timeout: 2, retries: 0}}
variations: [{}]
steps:
  - action: Paint the page
    pre: [The status says waiting]
    do: [{{click: "#paint"}}]
    post: [The status says painted]
""".format(", ".join(f"{{id: v{n}}}" for n in range(1, 5)))


def _shows(needle: str) -> Callable[[Request], dict[str, Any]]:
    def answer(req: Request) -> dict[str, Any]:
        user = "\n".join(
            p["text"] for m in req.messages if m["role"] == "user" for p in m["content"] if p["type"] == "text"
        )
        seen = needle in user.split("<page_text>", 1)[-1]
        return {"met": seen, "explanation": f"The page {'shows' if seen else 'does not show'} '{needle}'."}

    return answer


@pytest.mark.slow
def test_parallel_workers_share_the_cache_and_ask_each_question_once(
    pytester: pytest.Pytester, fake: FakeLLM, pages_url: str, tmp_path: Path
) -> None:
    fake.reset()
    fake.add_rule("condition_check", "The status says waiting", _shows("Status: waiting"))
    fake.add_rule("condition_check", "The status says painted", _shows("Status: painted"))
    fake.latency = 0.3
    cache = tmp_path / "shared-cache"
    (pytester.path / "same.reuseit.yaml").write_text(SAME_QUESTION, encoding="utf-8")
    # The controller in this process (it runs no workflow); the two workers that share the cache
    # are processes of their own, as ever under -n.
    result = pytester.runpytest_inprocess(
        "-n",
        "2",
        "-p",
        "no:cacheprovider",
        f"--base-url={pages_url}",
        "--reuseit-llm=auto",
        f"--reuseit-cache={cache}",
        "--reuseit-llm-backoff=0.01",
        "--reuseit-trace=off",
        "--reuseit-screenshots=off",
    )
    result.assert_outcomes(passed=4)
    assert not fake.errors
    # Every entry is whole, and there is one per distinct question.
    entries = entry_files(cache)
    for path in entries:
        assert json.loads(path.read_text(encoding="utf-8"))["answer"]["met"] is True
    assert not [p for p in cache.rglob(".tmp-*")]
    distinct = {r.raw for r in fake.requests}
    assert fake.calls() == len(distinct) == len(entries)  # no question was paid for twice
    # The two checks are the same question in every run (same page, same words, same screenshot).
    assert fake.calls() == 2
    assert "model: 2 calls, 6 cache hits" in result.stdout.str()


# --------------------------------------------------------------------------- replay from a filled cache

ONE_STEP = """\
name: replayed
task: Paint the page
start_url: "{base_url}/model/app.html"
settings: {check_timeout: 1, action_timeout: 2, retries: 0}
steps:
  - action: Click the Paint button
    pre: [The status says waiting]
    post: [The status says painted]
"""


def _agent(req: Request) -> dict[str, str]:
    obs = req.text.split("<observation>")[-1]
    if "Status: painted" in obs:
        return {"thought": "", "action": "done", "element": "", "value": "", "message": "painted"}
    ref = obs.split('button "Paint" [ref=', 1)[1].split("]", 1)[0]
    return {"thought": "", "action": "click", "element": ref, "value": "", "message": "click Paint"}


def _script(fake: FakeLLM) -> None:
    fake.add_rule("condition_check", "The status says waiting", _shows("Status: waiting"))
    fake.add_rule("condition_check", "The status says painted", _shows("Status: painted"))
    fake.add_rule("agent_action", None, _agent)


@pytest.mark.browser
@pytest.mark.slow
def test_replay_with_a_filled_cache_makes_no_calls(make_runtime: Callable[..., Runtime], fake: FakeLLM) -> None:
    _script(fake)
    loaded = parse(ONE_STEP, "replayed.reuseit.yaml")
    recorded = make_runtime().run(loaded, None, "record")
    assert recorded.status == "passed", recorded.message
    assert recorded.usage.calls == fake.calls() == 4
    fake.reset()  # no rules at all now: any request would be answered 500
    replayed = make_runtime(llm="replay").run(loaded, None, "replay")
    assert replayed.status == "passed", replayed.message
    assert fake.calls() == 0
    assert replayed.usage.cache_hits == 4 and replayed.usage.calls == 0


# --------------------------------------------------------------------------- accounting


def _expected_tokens(req: Request, answer: dict[str, Any]) -> tuple[int, int]:
    """The fake's own usage formula (tests/support/llm_server.py), recomputed from what it received."""
    prompt = math.ceil(len(req.text) / 4) + TOKENS_PER_IMAGE * len(req.images) + TOKENS_PER_MESSAGE * len(req.messages)
    return prompt, max(1, math.ceil(len(json.dumps(answer)) / 4))


def test_usage_counts_tokens_and_cost_from_a_prices_file(fake: FakeLLM, tmp_path: Path) -> None:
    prices = tmp_path / "prices.json"
    prices.write_text(json.dumps({"fake-model": [3.0, 12.0]}), encoding="utf-8")
    table = load_prices(str(prices))
    assert table["fake-model"] == (3.0, 12.0) and "gpt-4o-mini" in table  # defaults kept
    usage = ModelUsage()
    c = client(tmp_path, model="fake-model", prices=table)
    c.ask("condition_check", messages(), usage)
    c.ask("extracted_value", messages(text="Value to read:\nthe price"), usage)
    c.ask("condition_check", messages(), usage)  # cached: free
    first, second = fake.requests
    p1, c1 = _expected_tokens(first, MET)
    p2, c2 = _expected_tokens(second, FOUND)
    assert usage.calls == 2 and usage.cache_hits == 1
    assert (usage.prompt_tokens, usage.completion_tokens) == (p1 + p2, c1 + c2)
    assert usage.cost == pytest.approx(((p1 + p2) * 3.0 + (c1 + c2) * 12.0) / 1_000_000)
    # A model missing from the table costs nothing rather than a guess.
    other = ModelUsage()
    client(tmp_path, model="unpriced", prices=table).ask("condition_check", messages(), other)
    assert other.calls == 1 and other.prompt_tokens > 0 and other.cost == 0.0


@pytest.mark.parametrize("content", ['{"fake-model": [1]}', "[1, 2]", "not json"], ids=["short-pair", "list", "text"])
def test_a_bad_prices_file_is_reported(tmp_path: Path, content: str) -> None:
    prices = tmp_path / "prices.json"
    prices.write_text(content, encoding="utf-8")
    with pytest.raises(BrokenRun, match="price table .*expected"):
        load_prices(str(prices))


@pytest.mark.browser
@pytest.mark.slow
def test_a_runs_usage_comes_from_the_server_and_the_prices_setting(
    make_runtime: Callable[..., Runtime], fake: FakeLLM, tmp_path: Path
) -> None:
    _script(fake)
    prices = tmp_path / "prices.json"
    prices.write_text(json.dumps({"fake-model": [2.5, 10.0]}), encoding="utf-8")
    rt = make_runtime(model="fake-model", prices=str(prices))
    result = rt.run(parse(ONE_STEP, "replayed.reuseit.yaml"), None, "priced")
    assert result.status == "passed", result.message
    prompt = completion = 0
    for req in fake.requests:
        assert req.model == "fake-model"
        assert req.schema_name in ("condition_check", "agent_action")
        if req.schema_name == "condition_check":
            answer = _shows("Status: painted" if "The status says painted" in req.text else "Status: waiting")(req)
        else:
            answer = _agent(req)
        p, c = _expected_tokens(req, answer)
        prompt, completion = prompt + p, completion + c
    assert result.usage.calls == fake.calls() == 4
    assert (result.usage.prompt_tokens, result.usage.completion_tokens) == (prompt, completion)
    assert result.usage.cost == pytest.approx((prompt * 2.5 + completion * 10.0) / 1_000_000)
    assert result.to_dict()["usage"]["cost"] == pytest.approx(result.usage.cost)
