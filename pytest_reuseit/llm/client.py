"""The one place that talks to the model: any OpenAI-compatible endpoint through ``openai``.

It adds what a test tool needs around a chat completion: the response cache and its modes,
retries with backoff on 429/5xx/timeouts/connection errors, answers validated against the
schema (a malformed answer is retried, then reported), and token/cost accounting. An endpoint
that stays down or keeps answering nonsense raises :class:`ModelUnavailable`, which the engine
turns into a *broken* run — never failed, never passed.
"""

from __future__ import annotations

import json
import logging
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar, cast
from urllib.parse import urlsplit

import openai
from openai.types.chat import ChatCompletionMessageParam
from openai.types.shared_params import ResponseFormatJSONSchema
from pydantic import BaseModel, ValidationError

from ..engine.result import ModelUsage
from ..errors import BrokenRun
from .cache import ResponseCache, cache_key
from .schemas import SCHEMAS

log = logging.getLogger(__name__)

T = TypeVar("T", bound=BaseModel)

# USD per million tokens (input, output); override with --reuseit-prices FILE.json.
DEFAULT_PRICES: dict[str, tuple[float, float]] = {
    "gpt-4o-mini": (0.15, 0.60),
    "gpt-4o": (2.50, 10.00),
    "gpt-4.1-mini": (0.40, 1.60),
    "gpt-4.1": (2.00, 8.00),
}


class ModelUnavailable(BrokenRun):
    """The model could not give a usable answer: the run is broken (category infrastructure)."""


@dataclass(frozen=True)
class LlmConfig:
    model: str = "gpt-4o-mini"
    mode: str = "auto"  # auto | live | replay | refresh (off means no client at all)
    cache_dir: str = ".reuseit/cache"
    timeout: float = 60.0
    retries: int = 3
    backoff: float = 1.0  # seconds; doubled each retry
    temperature: float = 0.0
    prices: dict[str, tuple[float, float]] = field(default_factory=lambda: dict(DEFAULT_PRICES))


def load_prices(path: str) -> dict[str, tuple[float, float]]:
    """The default price table, updated from a JSON file ``{"model": [input, output], ...}`` (USD per 1M tokens)."""
    prices = dict(DEFAULT_PRICES)
    if not path:
        return prices
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
        for model, pair in data.items():
            prices[str(model)] = (float(pair[0]), float(pair[1]))
    except (OSError, ValueError, TypeError, IndexError, AttributeError) as exc:
        raise BrokenRun(
            f'price table {path}: {exc}; expected {{"model": [input_usd_per_1M, output_usd_per_1M]}}'
        ) from None
    return prices


def endpoint_configured() -> bool:
    return bool(os.environ.get("OPENAI_API_KEY") or os.environ.get("OPENAI_BASE_URL"))


def endpoint_host() -> str:
    """Host of the endpoint for reports (never the key)."""
    url = os.environ.get("OPENAI_BASE_URL") or "https://api.openai.com/v1"
    return urlsplit(url).hostname or url


def _response_format(name: str, schema: dict[str, Any]) -> ResponseFormatJSONSchema:
    """Structured output: the answer must match ``schema`` (strict mode)."""
    return {"type": "json_schema", "json_schema": {"name": name, "schema": schema, "strict": True}}


class LlmClient:
    def __init__(self, config: LlmConfig) -> None:
        self.config = config
        self.cache = ResponseCache(config.cache_dir)
        self._client: openai.OpenAI | None = None

    def _openai(self) -> openai.OpenAI:
        if self._client is None:
            try:
                # Our own retry loop below knows which errors are worth retrying; the client's is off.
                self._client = openai.OpenAI(
                    api_key=os.environ.get("OPENAI_API_KEY")
                    or ("unused" if os.environ.get("OPENAI_BASE_URL") else None),
                    timeout=self.config.timeout,
                    max_retries=0,
                )
            except openai.OpenAIError as exc:
                raise ModelUnavailable(
                    f"model client: {exc}; set OPENAI_API_KEY (and OPENAI_BASE_URL for another endpoint)"
                ) from None
        return self._client

    def ask(
        self,
        schema: str,
        messages: list[dict[str, Any]],
        usage: ModelUsage,
        *,
        model: str | None = None,
        variant: int | str = 0,
    ) -> BaseModel:
        """One structured answer for ``messages``.

        ``variant`` separates asks that must not share an answer (votes, parallel exploration runs):
        each gets its own cache entry and is sampled with some temperature, so they can differ.
        """
        json_schema, answer_type = SCHEMAS[schema]
        model = model or self.config.model
        params = {"temperature": self.config.temperature if variant in (0, "") else 0.7}
        key = cache_key(
            {
                "model": model,
                "schema": schema,
                "json_schema": json_schema,
                "messages": messages,
                "params": params,
                "variant": variant,
            }
        )
        mode = self.config.mode
        with self.cache.lock(key):
            if mode in ("auto", "replay"):
                entry = self.cache.get(key)
                if entry is not None:
                    try:
                        answer = answer_type.model_validate(entry["answer"])
                    except ValidationError:
                        log.warning("cache entry %s does not fit %s; asking again", key[:12], schema)
                    else:
                        usage.cache_hits += 1
                        return answer
                if mode == "replay":
                    raise ModelUnavailable(
                        f"replay mode: no cached answer for this {schema} request (key {key[:12]}); "
                        "the page or the question changed since the cache was recorded: run with --reuseit-llm auto to record it"
                    )
            answer, tokens = self._call(schema, json_schema, answer_type, messages, model, params)
            self.cache.put(
                key,
                {
                    "model": model,
                    "schema": schema,
                    "answer": answer.model_dump(),
                    "usage": tokens,
                    "created": time.time(),
                },
            )
        usage.calls += 1
        usage.prompt_tokens += tokens["prompt_tokens"]
        usage.completion_tokens += tokens["completion_tokens"]
        price_in, price_out = self.config.prices.get(model, (0.0, 0.0))
        usage.cost += (tokens["prompt_tokens"] * price_in + tokens["completion_tokens"] * price_out) / 1_000_000
        return answer

    def _call(
        self,
        schema: str,
        json_schema: dict[str, Any],
        answer_type: type[T],
        messages: list[dict[str, Any]],
        model: str,
        params: dict[str, Any],
    ) -> tuple[T, dict[str, int]]:
        cfg = self.config
        last = ""
        for attempt in range(cfg.retries + 1):
            if attempt:
                delay = cfg.backoff * (2 ** (attempt - 1))
                log.info("model call %s failed (%s); retry %d in %.1fs", schema, last, attempt, delay)
                time.sleep(delay)
            try:
                resp = self._openai().chat.completions.create(
                    model=model,
                    # The messages are built in the API's own shape; its TypedDicts are not worth repeating.
                    messages=cast("list[ChatCompletionMessageParam]", messages),
                    response_format=_response_format(schema, json_schema),
                    **params,
                )
            except openai.RateLimitError as exc:
                last = f"rate limited (429): {_short(exc)}"
                continue
            except openai.APITimeoutError:
                last = f"timed out after {cfg.timeout:g}s"
                continue
            except openai.APIConnectionError as exc:
                last = f"cannot connect to {endpoint_host()}: {_short(exc)}"
                continue
            except openai.InternalServerError as exc:
                last = f"server error {exc.status_code}: {_short(exc)}"
                continue
            except openai.APIStatusError as exc:
                # 400/401/403/404: asking again will not help.
                raise ModelUnavailable(
                    f"model endpoint {endpoint_host()} refused the request (HTTP {exc.status_code}): {_short(exc)}"
                ) from None
            choice = resp.choices[0] if resp.choices else None
            message = choice.message if choice else None
            if message is None:
                last = "an answer with no message"
                continue
            if getattr(message, "refusal", None):
                last = f"the model refused: {message.refusal}"
                continue
            try:
                answer = answer_type.model_validate(json.loads(message.content or ""))
            except (ValueError, ValidationError) as exc:
                last = f"an answer that does not fit the {schema} schema ({_short(exc)})"
                continue
            u = resp.usage
            tokens = {
                "prompt_tokens": u.prompt_tokens if u else 0,
                "completion_tokens": u.completion_tokens if u else 0,
            }
            return answer, tokens
        raise ModelUnavailable(
            f"model {model} at {endpoint_host()} gave no usable {schema} answer after {cfg.retries + 1} tries: {last}"
        )


def _short(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return text[:200]
