"""Tests for the FakeLLM test double, driven through the real ``openai`` client.

The double stands in for every vision-model call in the suite, so it is tested the way the
plugin uses it: real HTTP on 127.0.0.1, ``response_format`` json_schema requests, ``data:``
image URLs, and the openai exception classes the plugin will have to handle.
"""

from __future__ import annotations

import base64
import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import openai
import pydantic
import pytest

from pytest_reuseit.llm.schemas import SCHEMAS as PLUGIN_SCHEMAS
from tests.support.fixtures import fake_llm  # noqa: F401 - fixture used by name below
from tests.support.llm_server import FakeLLM, Request
from tests.support.paths import ROOT

# The schemas the plugin sends, generated from its answer models (not a copy that could drift).
SCHEMAS = {name: PLUGIN_SCHEMAS[name][0] for name in ("condition_check", "challenge_analysis")}

MET = {"met": True, "explanation": "the cart shows one item"}
NOT_MET = {"met": False, "explanation": "the cart is empty"}
ANALYSIS = {
    "where": "checkout page",
    "why": "the button was renamed",
    "what": "click on 'Pay' found nothing",
    "guidance": ["use the 'Complete order' button"],
    "category": "site_changed",
}


class ConditionCheck(pydantic.BaseModel):
    met: bool
    explanation: str


@pytest.fixture
def fake() -> Iterator[FakeLLM]:
    with FakeLLM() as server:
        yield server


def make_client(fake: FakeLLM, *, timeout: float = 5.0, max_retries: int = 0, api_key: str = "test") -> openai.OpenAI:
    return openai.OpenAI(base_url=fake.base_url, api_key=api_key, max_retries=max_retries, timeout=timeout)


def ask(
    client: openai.OpenAI,
    schema: str,
    text: str,
    images: Sequence[tuple[str, bytes]] = (),
) -> Any:
    """Call the model the way the plugin does: text + data-URL images, strict json_schema."""
    content: list[dict[str, Any]] = [{"type": "text", "text": text}]
    for media_type, data in images:
        url = f"data:{media_type};base64,{base64.b64encode(data).decode()}"
        content.append({"type": "image_url", "image_url": {"url": url}})
    return client.chat.completions.create(
        model="vision-test",
        messages=[
            {"role": "system", "content": "You judge screenshots."},
            {"role": "user", "content": content},  # type: ignore[misc]
        ],
        response_format={
            "type": "json_schema",
            "json_schema": {"name": schema, "schema": SCHEMAS[schema], "strict": True},
        },
    )


def answer_of(completion: Any) -> dict[str, Any]:
    return json.loads(completion.choices[0].message.content)


# --- basics -----------------------------------------------------------------------------------


def test_parse_with_pydantic_model_returns_the_rule_answer(fake: FakeLLM) -> None:
    fake.add_rule("ConditionCheck", None, MET)
    completion = make_client(fake).chat.completions.parse(
        model="vision-test",
        messages=[{"role": "user", "content": "Is the cart non-empty?"}],
        response_format=ConditionCheck,
    )
    assert completion.choices[0].message.parsed == ConditionCheck(**MET)
    assert completion.object == "chat.completion"
    assert completion.model == "vision-test"
    assert completion.choices[0].finish_reason == "stop"
    assert completion.choices[0].message.role == "assistant"
    assert completion.choices[0].message.refusal is None
    usage = completion.usage
    assert usage is not None and usage.prompt_tokens > 0 and usage.completion_tokens > 0
    assert usage.total_tokens == usage.prompt_tokens + usage.completion_tokens
    assert fake.requests[0].schema_name == "ConditionCheck"
    assert fake.requests[0].schema is not None


def test_base_url_and_close_is_idempotent() -> None:
    fake = FakeLLM()
    assert fake.base_url == f"http://127.0.0.1:{fake.port}/v1"
    assert not fake.closed
    fake.close()
    fake.close()
    assert fake.closed
    with pytest.raises(openai.APIConnectionError):
        make_client(fake).models.list()


def test_models_endpoint(fake: FakeLLM) -> None:
    ids = [model.id for model in make_client(fake).models.list()]
    assert ids == ["fake-llm"]


def test_fixture_yields_a_started_server(fake_llm: FakeLLM) -> None:  # noqa: F811
    fake_llm.add_rule("condition_check", None, MET)
    assert answer_of(ask(make_client(fake_llm), "condition_check", "x")) == MET


# --- routing ----------------------------------------------------------------------------------


def test_rules_route_by_schema_name(fake: FakeLLM) -> None:
    fake.add_rule("condition_check", None, MET)
    fake.add_rule("challenge_analysis", None, ANALYSIS)
    client = make_client(fake)
    assert answer_of(ask(client, "challenge_analysis", "why did it fail?")) == ANALYSIS
    assert answer_of(ask(client, "condition_check", "is it ok?")) == MET
    assert answer_of(ask(client, "condition_check", "is it ok?")) == MET
    assert (fake.calls(), fake.calls("condition_check"), fake.calls("challenge_analysis")) == (3, 2, 1)


def test_substring_when_and_newest_rule_first(fake: FakeLLM) -> None:
    fake.add_rule("condition_check", None, MET)  # default
    fake.add_rule("condition_check", "cart is empty", NOT_MET)  # override, added later
    client = make_client(fake)
    assert answer_of(ask(client, "condition_check", "Check: the cart is empty")) == NOT_MET
    assert answer_of(ask(client, "condition_check", "Check: one item in cart")) == MET
    # The system message is part of the text too.
    fake.add_rule(None, "You judge screenshots", {"met": True, "explanation": "system"})
    assert answer_of(ask(client, "condition_check", "anything"))["explanation"] == "system"


def test_predicate_when_and_callable_answer(fake: FakeLLM) -> None:
    def echo(request: Request) -> dict[str, Any]:
        return {"met": True, "explanation": f"{request.model}: {request.text.splitlines()[-1]}"}

    fake.add_rule(None, lambda request: request.model == "vision-test", echo)
    assert answer_of(ask(make_client(fake), "condition_check", "hello"))["explanation"] == "vision-test: hello"


def test_times_expires_the_rule(fake: FakeLLM) -> None:
    fake.add_rule("condition_check", None, MET)
    override = fake.add_rule("condition_check", None, NOT_MET, times=2)
    client = make_client(fake)
    answers = [answer_of(ask(client, "condition_check", "q")) for _ in range(4)]
    assert answers == [NOT_MET, NOT_MET, MET, MET]
    assert override.uses == 2 and override.expired


def test_list_answers_are_consumed_in_order_and_the_last_repeats(fake: FakeLLM) -> None:
    fake.add_rule("condition_check", None, [NOT_MET, FakeLLM.error(500, "flake"), MET])
    client = make_client(fake)
    assert answer_of(ask(client, "condition_check", "q")) == NOT_MET
    with pytest.raises(openai.InternalServerError):
        ask(client, "condition_check", "q")
    assert answer_of(ask(client, "condition_check", "q")) == MET
    assert answer_of(ask(client, "condition_check", "q")) == MET


def test_add_rule_rejects_bad_arguments(fake: FakeLLM) -> None:
    with pytest.raises(ValueError):
        fake.add_rule(None, None, [])
    with pytest.raises(ValueError):
        fake.add_rule(None, None, MET, times=0)
    with pytest.raises(TypeError):
        fake.add_rule(None, None, "not an answer")  # type: ignore[arg-type]


# --- what was received --------------------------------------------------------------------------


def test_images_are_decoded_from_data_urls(fake: FakeLLM) -> None:
    jpeg = b"\xff\xd8\xff\xe0fake-jpeg\x00\x01"
    png = b"\x89PNG\r\n\x1a\nfake-png"
    fake.add_rule("condition_check", None, MET)
    completion = ask(make_client(fake), "condition_check", "look", [("image/jpeg", jpeg), ("image/png", png)])
    request = fake.requests[0]
    assert request.images == [jpeg, png]
    assert request.image_types == ["image/jpeg", "image/png"]
    assert request.text == "You judge screenshots.\nlook"
    assert completion.usage.prompt_tokens >= 2 * 85


def test_non_data_image_url_is_rejected(fake: FakeLLM) -> None:
    fake.add_rule(None, None, MET)
    with pytest.raises(openai.BadRequestError, match="data: URL"):
        make_client(fake).chat.completions.create(
            model="m",
            messages=[{"role": "user", "content": [{"type": "image_url", "image_url": {"url": "https://x/y.png"}}]}],
        )


def test_request_log_and_bodies_text() -> None:
    fake = FakeLLM(api_key="sk-header-only")
    try:
        fake.add_rule(None, None, MET)
        client = make_client(fake, api_key="sk-header-only")
        ask(client, "condition_check", "password is hunter2")
        assert "hunter2" in fake.bodies_text()
        assert "sk-header-only" not in fake.bodies_text()  # the key travels in a header only
        request = fake.requests[0]
        assert request.headers["authorization"] == "Bearer sk-header-only"
        assert request.body["response_format"]["json_schema"]["strict"] is True
    finally:
        fake.close()


# --- failure modes ------------------------------------------------------------------------------


def test_http_errors_surface_as_openai_exceptions(fake: FakeLLM) -> None:
    fake.add_rule("condition_check", "server", FakeLLM.error(500, "model crashed"))
    fake.add_rule("condition_check", "busy", FakeLLM.error(429, "slow down"))
    client = make_client(fake)
    with pytest.raises(openai.InternalServerError, match="model crashed") as server_error:
        ask(client, "condition_check", "server")
    assert server_error.value.status_code == 500
    with pytest.raises(openai.RateLimitError, match="slow down") as rate_error:
        ask(client, "condition_check", "busy")
    assert rate_error.value.status_code == 429
    assert rate_error.value.response.headers["retry-after"] == "0"


def test_retrying_client_recovers_from_a_rate_limit(fake: FakeLLM) -> None:
    fake.add_rule("condition_check", None, [FakeLLM.error(429, "slow down"), MET])
    assert answer_of(ask(make_client(fake, max_retries=1), "condition_check", "q")) == MET
    assert fake.calls() == 2


def test_raw_content_is_passed_through(fake: FakeLLM) -> None:
    fake.add_rule("condition_check", "garbage", FakeLLM.raw("this is not JSON"))
    fake.add_rule("ConditionCheck", None, FakeLLM.raw('{"met": true}'))
    client = make_client(fake)
    completion = ask(client, "condition_check", "garbage")
    assert completion.choices[0].message.content == "this is not JSON"
    with pytest.raises(pydantic.ValidationError):  # JSON missing a required field
        client.chat.completions.parse(
            model="m", messages=[{"role": "user", "content": "q"}], response_format=ConditionCheck
        )


def test_truncated_answer(fake: FakeLLM) -> None:
    fake.add_rule(None, None, FakeLLM.raw('{"met": tr', finish_reason="length"))
    with pytest.raises(openai.LengthFinishReasonError):
        make_client(fake).chat.completions.parse(
            model="m", messages=[{"role": "user", "content": "q"}], response_format=ConditionCheck
        )


def test_refusal(fake: FakeLLM) -> None:
    fake.add_rule(None, None, FakeLLM.refusal("I can't help with that."))
    client = make_client(fake)
    message = ask(client, "condition_check", "q").choices[0].message
    assert message.content is None
    assert message.refusal == "I can't help with that."
    parsed = (
        client.chat.completions.parse(
            model="m", messages=[{"role": "user", "content": "q"}], response_format=ConditionCheck
        )
        .choices[0]
        .message
    )
    assert parsed.parsed is None and parsed.refusal == "I can't help with that."


def test_hang_trips_the_client_timeout_and_close_is_prompt() -> None:
    fake = FakeLLM()
    fake.add_rule(None, None, FakeLLM.hang(60))
    started = time.monotonic()
    with pytest.raises(openai.APITimeoutError):
        ask(make_client(fake, timeout=0.3), "condition_check", "q")
    assert time.monotonic() - started < 5
    started = time.monotonic()
    fake.close()  # the handler is still "hanging": close must cut it short
    assert time.monotonic() - started < 2


def test_short_hang_then_500(fake: FakeLLM) -> None:
    fake.add_rule(None, None, FakeLLM.hang(0.05))
    with pytest.raises(openai.InternalServerError, match="hung"):
        ask(make_client(fake), "condition_check", "q")


def test_drop_is_a_connection_error(fake: FakeLLM) -> None:
    fake.add_rule(None, None, [FakeLLM.drop(), MET])
    client = make_client(fake)
    with pytest.raises(openai.APIConnectionError) as excinfo:
        ask(client, "condition_check", "q")
    assert not isinstance(excinfo.value, openai.APITimeoutError)
    assert answer_of(ask(client, "condition_check", "q")) == MET  # the server survives a drop


def test_api_key_is_enforced() -> None:
    with FakeLLM(api_key="sk-right") as fake:
        fake.add_rule(None, None, MET)
        with pytest.raises(openai.AuthenticationError):
            ask(make_client(fake, api_key="sk-wrong"), "condition_check", "q")
        with pytest.raises(openai.AuthenticationError):
            make_client(fake, api_key="sk-wrong").models.list()
        assert answer_of(ask(make_client(fake, api_key="sk-right"), "condition_check", "q")) == MET


def test_no_matching_rule_fails_loudly_without_retries(fake: FakeLLM) -> None:
    fake.add_rule("challenge_analysis", None, ANALYSIS)
    with pytest.raises(openai.InternalServerError) as excinfo:
        ask(make_client(fake, max_retries=2), "condition_check", "is the cart empty?")
    message = str(excinfo.value)
    assert "no rule matched" in message and "'condition_check'" in message
    assert "is the cart empty?" in message
    assert fake.calls() == 1  # x-should-retry: false stops the client's own retries


def test_a_rule_that_raises_becomes_a_500(fake: FakeLLM) -> None:
    def broken(request: Request) -> dict[str, Any]:
        raise KeyError("oops")

    fake.add_rule(None, None, broken)
    with pytest.raises(openai.InternalServerError, match="KeyError"):
        ask(make_client(fake), "condition_check", "q")
    assert len(fake.errors) == 1


def test_streaming_is_refused(fake: FakeLLM) -> None:
    fake.add_rule(None, None, MET)
    with pytest.raises(openai.BadRequestError, match="streaming"):
        make_client(fake).chat.completions.create(model="m", messages=[{"role": "user", "content": "q"}], stream=True)


# --- timing and concurrency ---------------------------------------------------------------------


def test_latency_delays_every_answer(fake: FakeLLM) -> None:
    fake.add_rule(None, None, MET)
    fake.latency = 0.3
    started = time.monotonic()
    ask(make_client(fake), "condition_check", "q")
    assert time.monotonic() - started >= 0.3


@pytest.mark.slow
def test_concurrent_calls_are_all_answered_in_parallel() -> None:
    with FakeLLM(latency=0.5) as fake:
        fake.add_rule(None, None, lambda request: {"met": True, "explanation": request.text.splitlines()[-1]})
        fake.add_rule(None, "call 7", NOT_MET, times=1)
        client = make_client(fake, timeout=10)
        results: dict[int, dict[str, Any]] = {}
        failures: list[BaseException] = []

        def worker(index: int) -> None:
            try:
                results[index] = answer_of(ask(client, "condition_check", f"call {index}"))
            except BaseException as exc:  # surfaced by the assertion below
                failures.append(exc)

        threads = [threading.Thread(target=worker, args=(i,)) for i in range(20)]
        started = time.monotonic()
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(15)
        elapsed = time.monotonic() - started

        assert failures == []
        assert len(results) == 20
        assert results[7] == NOT_MET
        assert all(results[i]["explanation"] == f"call {i}" for i in range(20) if i != 7)
        assert fake.calls() == 20
        assert elapsed < 5  # serially it would take 20 * 0.5 s


# --- script files and the command line ----------------------------------------------------------


def test_load_rules_special_answers(fake: FakeLLM) -> None:
    fake.load_rules(
        [
            {"schema": "condition_check", "answer": MET},
            {"when": "boom", "answer": {"$error": {"status": 429, "message": "later"}}},
            {"when": "raw", "answer": {"$raw": "nope"}},
            {"when": "refuse", "answer": {"$refusal": "no"}},
            {"when": "seq", "answer": [NOT_MET, {"$drop": True}], "times": 2},
        ]
    )
    client = make_client(fake)
    assert answer_of(ask(client, "condition_check", "plain")) == MET
    with pytest.raises(openai.RateLimitError):
        ask(client, "condition_check", "boom")
    assert ask(client, "condition_check", "raw").choices[0].message.content == "nope"
    assert ask(client, "condition_check", "refuse").choices[0].message.refusal == "no"
    assert answer_of(ask(client, "condition_check", "seq")) == NOT_MET
    with pytest.raises(openai.APIConnectionError):
        ask(client, "condition_check", "seq")
    assert answer_of(ask(client, "condition_check", "seq")) == MET  # expired after 2


@pytest.mark.parametrize(
    "entry",
    [
        {"schema": "x"},
        {"answer": MET, "whne": "typo"},
        {"answer": {"$hang": "soon"}},
        {"answer": {"$raw": "a", "extra": 1}},
        {"answer": "text"},
        {"answer": MET, "times": "1"},
    ],
)
def test_load_rules_rejects_bad_entries(fake: FakeLLM, entry: dict[str, Any]) -> None:
    with pytest.raises(ValueError, match="script entry 0"):
        fake.load_rules([entry])


@pytest.mark.slow
def test_command_line_serves_a_script(tmp_path: Path) -> None:
    script = tmp_path / "rules.json"
    script.write_text(json.dumps([{"schema": "condition_check", "answer": MET}]))
    process = subprocess.Popen(
        [sys.executable, "-m", "tests.support.llm_server", "--port", "0", "--latency", "0.01", "--script", str(script)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        assert line.startswith("FakeLLM serving on http://127.0.0.1:"), line
        base_url = line.split(" on ", 1)[1].strip()
        client = openai.OpenAI(base_url=base_url, api_key="test", max_retries=0, timeout=5)
        assert answer_of(ask(client, "condition_check", "q")) == MET
    finally:
        process.send_signal(signal.SIGTERM)
        _, stderr = process.communicate(timeout=10)
    assert process.returncode == 0, stderr
    assert "1 chat completion" in stderr


@pytest.mark.slow
def test_command_line_rejects_a_bad_script(tmp_path: Path) -> None:
    script = tmp_path / "rules.json"
    script.write_text(json.dumps({"not": "a list"}))
    result = subprocess.run(
        [sys.executable, "-m", "tests.support.llm_server", "--script", str(script)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=30,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert result.returncode == 2
    assert "JSON list" in result.stderr
