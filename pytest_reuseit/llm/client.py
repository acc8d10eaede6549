"""The one place that talks to the model: any OpenAI-compatible endpoint through ``openai``.

It adds what a test tool needs around a chat completion: the response cache and its modes,
retries with backoff on 429/5xx/timeouts/connection errors (``Retry-After`` honoured), a time
budget for one call, retries included; the answer's shape asked the way the endpoint accepts
(``formats``); one JSON object read out of whatever text came back (``answer_text``) and
validated strictly against the schema (a malformed answer is retried, then reported); long
model text cut for reports (``long_text``); and token/cost accounting. An endpoint that stays
down or keeps answering nonsense raises :class:`ModelUnavailable`, which the engine turns into a
*broken* run — never failed, never passed.

Azure OpenAI is used when ``AZURE_OPENAI_ENDPOINT`` is set (key in ``AZURE_OPENAI_API_KEY``,
``OPENAI_API_VERSION`` optional); the model name is then the deployment name.
"""

from __future__ import annotations

import json
import logging
import os
import re
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar, cast
from urllib.parse import urlsplit

from pydantic import BaseModel, ValidationError

from ..engine.result import ModelUsage
from ..errors import BrokenRun
from . import formats as answer_formats
from .answer_text import json_objects
from .cache import ResponseCache, cache_key
from .cost import CostGuard
from .formats import response_format, with_schema_in_prompt
from .long_text import LongTexts

if TYPE_CHECKING:
    # openai is imported where a model is first asked: it takes as long to import as the rest of
    # the plugin, and a run without model checks (or a collection) never needs it.
    import openai
    from openai.types.chat import ChatCompletionMessageParam
from .schemas import SCHEMAS
from .waits import retry_after

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
    timeout: float = 60.0  # one request
    budget: float = 90.0  # one call: every try, wait and backoff together
    retries: int = 3
    backoff: float = 1.0  # seconds; doubled each retry
    temperature: float = 0.0
    max_cost: float = 0.0  # USD per session; 0: no limit
    cost_ledger: str = ""  # shared spend file of an xdist session ("" : in memory)
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


AZURE_API_VERSION = "2024-10-21"


def endpoint_configured() -> bool:
    return bool(
        os.environ.get("OPENAI_API_KEY") or os.environ.get("OPENAI_BASE_URL") or os.environ.get("AZURE_OPENAI_ENDPOINT")
    )


def endpoint_url() -> str:
    return os.environ.get("AZURE_OPENAI_ENDPOINT") or os.environ.get("OPENAI_BASE_URL") or "https://api.openai.com/v1"


def endpoint_host() -> str:
    """Host of the endpoint for reports (never the key)."""
    url = endpoint_url()
    return urlsplit(url).hostname or url


class LlmClient:
    def __init__(self, config: LlmConfig) -> None:
        self.config = config
        self.cache = ResponseCache(config.cache_dir)
        self._client: openai.OpenAI | None = None
        self._client_lock = threading.Lock()
        self._usage_lock = threading.Lock()  # votes are counted from several threads
        self.costs = CostGuard(config.max_cost, Path(config.cost_ledger) if config.cost_ledger else None)

    def _openai(self) -> openai.OpenAI:
        with self._client_lock:
            if self._client is None:
                self._client = _make_client(self.config.timeout)
            return self._client

    def _endpoint(self) -> str:
        """The endpoint's identity for remembering which answer format it takes."""
        return f"{endpoint_url()}|{type(self._openai()).__name__}"

    def ask(
        self,
        schema: str,
        messages: list[dict[str, Any]],
        usage: ModelUsage,
        *,
        model: str | None = None,
        variant: int | str = 0,
        texts: LongTexts | None = None,
    ) -> BaseModel:
        """One structured answer for ``messages``.

        ``variant`` separates asks that must not share an answer (votes, parallel exploration runs):
        each gets its own cache entry and is sampled with some temperature, so they can differ.
        With ``texts``, long strings of the answer are cut and their full text kept there.
        """
        answer = self._ask(schema, messages, usage, model=model, variant=variant)
        return texts.clip_answer(answer, schema) if texts is not None else answer

    def cached(
        self, schema: str, messages: list[dict[str, Any]], *, model: str | None = None, variant: int | str = 0
    ) -> bool:
        """Whether ``ask`` would answer from the cache (a file lookup; nothing is asked)."""
        if self.config.mode not in ("auto", "replay"):
            return False
        return self.cache.get(self._key(schema, messages, model or self.config.model, variant)) is not None

    def _params(self, variant: int | str) -> dict[str, float]:
        return {"temperature": self.config.temperature if variant in (0, "") else 0.7}

    def _key(self, schema: str, messages: list[dict[str, Any]], model: str, variant: int | str) -> str:
        return cache_key(
            {
                "model": model,
                "schema": schema,
                "json_schema": SCHEMAS[schema][0],
                "messages": messages,
                "params": self._params(variant),
                "variant": variant,
            }
        )

    def _ask(
        self,
        schema: str,
        messages: list[dict[str, Any]],
        usage: ModelUsage,
        *,
        model: str | None,
        variant: int | str,
    ) -> BaseModel:
        json_schema, answer_type = SCHEMAS[schema]
        model = model or self.config.model
        params = self._params(variant)
        key = self._key(schema, messages, model, variant)
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
                        with self._usage_lock:
                            usage.cache_hits += 1
                        return answer
                if mode == "replay":
                    raise ModelUnavailable(
                        f"replay mode: no cached answer for this {schema} request (key {key[:12]}); "
                        "the page or the question changed since the cache was recorded: run with --reuseit-llm auto to record it"
                    )
            self.costs.check()
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
        price_in, price_out = self.config.prices.get(model, (0.0, 0.0))
        cost = (tokens["prompt_tokens"] * price_in + tokens["completion_tokens"] * price_out) / 1_000_000
        self.costs.add(cost)
        with self._usage_lock:
            usage.calls += 1
            usage.prompt_tokens += tokens["prompt_tokens"]
            usage.completion_tokens += tokens["completion_tokens"]
            usage.cost += cost
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
        """Ask until an answer fits, within ``retries`` and the time ``budget`` of one call."""
        cfg = self.config
        started = time.monotonic()
        deadline = started + cfg.budget
        endpoint = self._endpoint()
        tries = 0
        last = ""
        hint = False  # after an answer that did not fit, the schema is also written in the prompt
        while tries <= cfg.retries:
            remaining = deadline - time.monotonic()
            if remaining <= 0.05:
                break
            fmt = answer_formats.current(endpoint)
            tries += 1
            try:
                return self._attempt(schema, json_schema, answer_type, messages, model, params, fmt, hint, remaining)
            except _FormatRefused as exc:
                tries -= 1  # the server's limits, not the model's answer: not a try
                answer_formats.downgrade(endpoint, fmt)
                log.warning(
                    "%s refused response_format %s (%s); using %s from now on",
                    endpoint_host(),
                    fmt,
                    exc,
                    answer_formats.current(endpoint),
                )
                continue
            except _Retry as exc:
                last = exc.reason
                hint = hint or exc.malformed
                if tries > cfg.retries:
                    break
                delay = exc.retry_after if exc.retry_after is not None else cfg.backoff * (2 ** (tries - 1))
                if time.monotonic() + delay >= deadline:
                    if exc.retry_after is not None:
                        last += f"; the server asked to wait {exc.retry_after:g}s, beyond the budget"
                    break
                log.info("model call %s failed (%s); retry %d in %.1fs", schema, last, tries, delay)
                time.sleep(delay)
        elapsed = time.monotonic() - started
        figures = f"{tries} {'try' if tries == 1 else 'tries'} in {elapsed:.1f}s"
        if tries <= cfg.retries:
            where = f"within the {cfg.budget:g}s budget of one model call (--reuseit-llm-budget; {figures})"
        else:
            where = f"after {figures}"
        raise ModelUnavailable(f"model {model} at {endpoint_host()} gave no usable {schema} answer {where}: {last}")

    def _attempt(
        self,
        schema: str,
        json_schema: dict[str, Any],
        answer_type: type[T],
        messages: list[dict[str, Any]],
        model: str,
        params: dict[str, Any],
        fmt: str,
        hint: bool,
        remaining: float,
    ) -> tuple[T, dict[str, int]]:
        timeout = min(self.config.timeout, remaining)
        import openai  # noqa: PLC0415 - see the TYPE_CHECKING import

        sent = with_schema_in_prompt(messages, schema, json_schema) if hint or fmt != "json_schema" else messages
        try:
            resp = self._openai().chat.completions.create(
                model=model,
                # The messages are built in the API's own shape; its TypedDicts are not worth repeating.
                messages=cast("list[ChatCompletionMessageParam]", sent),
                timeout=timeout,
                **response_format(fmt, schema, json_schema),
                **params,
            )
        except openai.APIStatusError as exc:
            raise _status_problem(exc, fmt) from None
        except openai.APITimeoutError:
            raise _Retry(f"timed out after {timeout:.3g}s") from None
        except openai.APIConnectionError as exc:
            raise _Retry(f"cannot connect to {endpoint_host()}: {_short(exc)}") from None
        except ValueError as exc:  # the body was sent as JSON but is not: cut short, or not an API
            raise _Retry(f"an HTTP answer whose body is not valid JSON ({_short(exc)})") from None
        if not hasattr(resp, "choices"):
            # The SDK hands back the body as text when it is not JSON: a web page, not a model API.
            raise ModelUnavailable(
                f"model endpoint {endpoint_host()} answered with something that is not a chat completion "
                f"({_clip(str(resp), 120)}): is OPENAI_BASE_URL the model API's address (often ending in /v1)?"
            )
        choice = resp.choices[0] if resp.choices else None
        message = choice.message if choice else None
        if message is None:
            raise _Retry("an answer with no message")
        if getattr(message, "refusal", None):
            raise _Retry(f"the model refused: {_clip(str(message.refusal))}")
        answer = _fitting(answer_type, message.content or "")
        if answer is None:
            if not (message.content or "").strip():
                raise _Retry("an empty answer (the message has no text)", malformed=True)
            cut = (
                " (cut at the token limit: finish_reason length)" if choice and choice.finish_reason == "length" else ""
            )
            raise _Retry(
                f"an answer that does not fit the {schema} schema{cut} ({_clip(message.content or '')})", malformed=True
            )
        u = resp.usage
        return answer, {
            "prompt_tokens": u.prompt_tokens if u else 0,
            "completion_tokens": u.completion_tokens if u else 0,
        }


_http_client: Any = None
_http_client_lock = threading.Lock()


def _shared_http_client() -> Any:
    """One HTTP client (connection pool and TLS context) for every model client of the process.

    Building one loads the CA store, tens of milliseconds of CPU, and every runtime (each pytest
    session, each ``run_workflow``) builds its own model client. What differs between model clients
    (endpoint, key, timeout) is sent with each request, not kept here."""
    global _http_client  # noqa: PLW0603 - the process's one pool
    import openai  # noqa: PLC0415 - see the TYPE_CHECKING import

    with _http_client_lock:
        if _http_client is None or _http_client.is_closed:
            _http_client = openai.DefaultHttpxClient()  # the SDK's own defaults (limits, redirects)
        return _http_client


def _make_client(timeout: float) -> openai.OpenAI:
    # Our own retry loop knows which errors are worth retrying; the client's is off.
    import openai  # noqa: PLC0415 - see the TYPE_CHECKING import

    try:
        if os.environ.get("AZURE_OPENAI_ENDPOINT"):
            return openai.AzureOpenAI(
                api_version=os.environ.get("OPENAI_API_VERSION") or AZURE_API_VERSION,
                timeout=timeout,
                max_retries=0,
                http_client=_shared_http_client(),
            )
        return openai.OpenAI(
            api_key=os.environ.get("OPENAI_API_KEY") or ("unused" if os.environ.get("OPENAI_BASE_URL") else None),
            timeout=timeout,
            max_retries=0,
            http_client=_shared_http_client(),
        )
    except openai.OpenAIError as exc:
        raise ModelUnavailable(
            f"model client: {exc}; set OPENAI_API_KEY (and OPENAI_BASE_URL for another endpoint), "
            "or AZURE_OPENAI_ENDPOINT and AZURE_OPENAI_API_KEY for Azure OpenAI"
        ) from None


class _Retry(Exception):
    """An attempt that may succeed when repeated."""

    def __init__(self, reason: str, *, retry_after: float | None = None, malformed: bool = False) -> None:
        super().__init__(reason)
        self.reason = reason
        self.retry_after = retry_after
        self.malformed = malformed


class _FormatRefused(Exception):
    """The server does not take this ``response_format``: ask again with the next one."""


_FORMAT_REFUSAL = re.compile(
    r"response_format|json_schema|json_object|structured output|guided|grammar|not supported|unsupported|"
    r"unknown (?:field|parameter|argument)|extra (?:fields|inputs)",
    re.I,
)


def _status_problem(exc: openai.APIStatusError, fmt: str) -> Exception:
    """What an HTTP error means for the next attempt."""
    status = exc.status_code
    if status == 429:
        return _Retry(f"rate limited (429): {_short(exc)}", retry_after=retry_after(exc.response.headers))
    if status >= 500 and status != 501:
        return _Retry(f"server error {status}: {_short(exc)}", retry_after=retry_after(exc.response.headers))
    if status in (400, 422, 501) and fmt != "prompt" and _FORMAT_REFUSAL.search(str(exc)):
        return _FormatRefused(_short(exc))
    # 400/401/403/404: asking again will not help.
    return ModelUnavailable(f"model endpoint {endpoint_host()} refused the request (HTTP {status}): {_short(exc)}")


def _fitting(answer_type: type[T], text: str) -> T | None:
    """The first JSON object in ``text`` that validates strictly against the schema's model."""
    for candidate in json_objects(text):
        try:
            return answer_type.model_validate(candidate)
        except ValidationError:
            continue
    return None


def _clip(text: str, limit: int = 200) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else f"{text[:limit]}… ({len(text) - limit:,} more characters)"


def _short(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return text[:200]
