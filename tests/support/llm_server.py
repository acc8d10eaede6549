"""A scriptable, local, OpenAI-compatible chat-completions server for tests and benchmarks.

Why a real server: the plugin talks to vision models only through the ``openai`` client, whose
HTTP stack is not intercepted by httpx/respx mocks. So tests point ``base_url`` at a real HTTP
server on 127.0.0.1 that speaks just enough of the OpenAI protocol
(``POST /v1/chat/completions``, ``GET /v1/models``) and answers from rules the test scripts.
Nothing here touches the network beyond the loopback interface.

Python use::

    with FakeLLM() as fake:
        fake.add_rule("condition_check", None, {"met": True, "explanation": "default"})
        fake.add_rule("condition_check", "cart is empty", {"met": False, "explanation": "x"})
        client = openai.OpenAI(base_url=fake.base_url, api_key="test", max_retries=0)
        ...
        assert fake.calls("condition_check") == 2
        assert "sk-secret" not in fake.bodies_text()

Rules are tried newest-first (a test overrides a default by adding a later rule). A rule matches
when its ``schema`` is None or equals the request's ``response_format.json_schema.name`` *and*
its ``when`` is None, a substring of the request's text (all text parts of all messages joined
with newlines), or a predicate returning True. ``times`` makes a rule expire after that many
answers. A list answer is consumed one item per call, the last item repeating. An answer is a
dict (sent as the JSON message content), a :class:`Response` made by ``FakeLLM.error/raw/
refusal/hang/drop``, or a callable ``(Request) -> dict | Response``. When no rule matches the
server answers HTTP 500 (with ``x-should-retry: false``) naming the schema, so a test with a
missing rule fails loudly instead of silently retrying.

Servers other than OpenAI: ``FakeLLM(quirks=SERVERS["ollama"])`` (or ``--server ollama`` on the
command line) makes the double behave like that server in the ways that matter to a client:
which ``response_format`` types it refuses (HTTP 400, with that server's kind of message), how
it wraps the JSON answer (```json fences, a sentence around it, a ``<think>`` block), whether it
reports usage, and for Azure OpenAI the deployment path, ``api-version`` query and ``api-key``
header. A request sent without a json_schema ``response_format`` is matched to a rule's schema
by the sentence naming the schema in its prompt (``JSON schema named "NAME"``).

Command line (benchmarks, manual runs of example workflows)::

    python -m tests.support.llm_server --port 8199 --latency 0.5 --script rules.json \
        [--host 127.0.0.1] [--api-key KEY] [--model NAME ...]

It prints ``FakeLLM serving on http://127.0.0.1:PORT/v1`` on stdout (``--port 0`` picks a free
port) and serves until interrupted (Ctrl-C / SIGTERM).

Script file format: a JSON list of rule objects, added in file order. Because newer rules are
tried first, **the last matching entry wins**: put catch-all defaults first and specific
overrides after them. Each entry has:

- ``"schema"``: schema name to match (``"condition_check"``, ``"challenge_analysis"``, ...), or
  ``null``/absent for any request;
- ``"when"``: substring that must occur in the request's text, or ``null``/absent;
- ``"answer"``: one answer or a list of answers (consumed in order, the last repeats);
- ``"times"`` (optional): the rule expires after this many answers.

An answer is either the JSON object the model should return (e.g. ``{"met": true,
"explanation": "..."}``) or one special object, recognised by its single ``$`` key:

- ``{"$error": {"status": 429, "message": "slow down"}}`` -- an HTTP error (429 adds
  ``retry-after: 0``);
- ``{"$raw": "not json"}`` -- a 200 whose message content is exactly this string;
- ``{"$refusal": "I can't help with that"}`` -- a 200 with ``content: null`` and ``refusal`` set;
- ``{"$hang": 30}`` -- wait this many seconds, then answer 500 (client-timeout tests);
- ``{"$drop": true}`` -- close the connection without answering.

Example::

    [
      {"schema": "condition_check", "answer": {"met": true, "explanation": "looks right"}},
      {"schema": "condition_check", "when": "error banner",
       "answer": {"met": false, "explanation": "no banner visible"}},
      {"schema": "challenge_analysis",
       "answer": {"where": "login form", "why": "button renamed", "what": "click failed",
                  "guidance": ["use the 'Sign in' button"], "category": "ui_change"}},
      {"when": "flaky", "times": 1, "answer": {"$error": {"status": 500, "message": "boom"}}}
    ]
"""

from __future__ import annotations

import argparse
import base64
import binascii
import itertools
import json
import math
import re
import signal
import socket
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any, Literal, Union
from urllib.parse import parse_qs, unquote_to_bytes, urlsplit

__all__ = [
    "SERVERS",
    "Answer",
    "FakeLLM",
    "Predicate",
    "Quirks",
    "Request",
    "Response",
    "Rule",
    "load_script",
    "main",
]

#: Roughly what one image costs in prompt tokens (OpenAI's "low detail" price), for usage counts.
TOKENS_PER_IMAGE = 85
#: Per-message overhead in prompt tokens, for usage counts.
TOKENS_PER_MESSAGE = 4


# --------------------------------------------------------------------------------------------
# What the server received
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Request:
    """One chat-completions request as the server received it, pre-digested for assertions.

    ``headers`` has lower-cased names. ``text`` joins every text part (and every plain string
    content) of every message with newlines, in order -- this is what ``when`` substrings are
    matched against. ``images`` holds the decoded bytes of every ``data:`` image URL, in order,
    with their media types in ``image_types``. ``raw`` is the body exactly as sent.
    """

    schema_name: str | None
    body: dict[str, Any]
    text: str
    images: list[bytes]
    headers: dict[str, str]
    image_types: list[str] = field(default_factory=list)
    path: str = "/v1/chat/completions"
    raw: bytes = b""

    @property
    def model(self) -> str | None:
        """The ``model`` the client asked for."""
        model = self.body.get("model")
        return model if isinstance(model, str) else None

    @property
    def messages(self) -> list[dict[str, Any]]:
        """The ``messages`` list of the body (empty if absent)."""
        messages = self.body.get("messages")
        return messages if isinstance(messages, list) else []

    @property
    def schema(self) -> dict[str, Any] | None:
        """The JSON schema sent in ``response_format`` (to assert it is strict, say)."""
        json_schema = _json_schema_param(self.body)
        schema = json_schema.get("schema") if json_schema else None
        return schema if isinstance(schema, dict) else None

    @classmethod
    def from_http(cls, path: str, headers: Mapping[str, str], raw: bytes) -> Request:
        """Digest a request body.

        Raises ``ValueError`` (answered with HTTP 400) if the body is not a JSON object or an
        image is not a valid base64 ``data:`` URL: the plugin must never send those, so a test
        should see it rather than have the double shrug it off.
        """
        lowered = {name.lower(): value for name, value in headers.items()}
        try:
            body = json.loads(raw) if raw else {}
        except ValueError as exc:
            raise ValueError(f"request body is not JSON: {exc}") from None
        if not isinstance(body, dict):
            raise ValueError("request body is not a JSON object")

        texts: list[str] = []
        images: list[bytes] = []
        image_types: list[str] = []
        messages = body.get("messages")
        for message in messages if isinstance(messages, list) else []:
            content = message.get("content") if isinstance(message, dict) else None
            if isinstance(content, str):
                texts.append(content)
                continue
            for part in content if isinstance(content, list) else []:
                if not isinstance(part, dict):
                    continue
                if part.get("type") == "text":
                    texts.append(str(part.get("text", "")))
                elif part.get("type") == "image_url":
                    image_url = part.get("image_url")
                    url = image_url.get("url") if isinstance(image_url, dict) else image_url
                    media_type, data = _decode_data_url(str(url))
                    image_types.append(media_type)
                    images.append(data)

        json_schema = _json_schema_param(body)
        name = json_schema.get("name") if json_schema else None
        if name is None:
            # json_object or no response_format: the client names the schema in the prompt.
            named = _SCHEMA_IN_PROMPT.search("\n".join(texts))
            name = named.group(1) if named else None
        return cls(
            schema_name=name if isinstance(name, str) else None,
            body=body,
            text="\n".join(texts),
            images=images,
            headers=lowered,
            image_types=image_types,
            path=path,
            raw=raw,
        )


_SCHEMA_IN_PROMPT = re.compile(r'JSON schema named "([A-Za-z0-9_]+)"')


def _json_schema_param(body: Mapping[str, Any]) -> dict[str, Any] | None:
    response_format = body.get("response_format")
    if not isinstance(response_format, dict) or response_format.get("type") != "json_schema":
        return None
    json_schema = response_format.get("json_schema")
    return json_schema if isinstance(json_schema, dict) else None


def _decode_data_url(url: str) -> tuple[str, bytes]:
    """Split ``data:<type>[;base64],<data>`` into (media type, bytes); ValueError otherwise."""
    if not url.startswith("data:"):
        raise ValueError(f"image_url must be a data: URL (screenshots travel inline), got {url[:60]!r}")
    header, comma, data = url[len("data:") :].partition(",")
    if not comma:
        raise ValueError("image data URL has no ',' separating header and data")
    params = header.split(";")
    media_type = params[0] or "text/plain"
    if "base64" in params[1:]:
        try:
            return media_type, base64.b64decode(data, validate=True)
        except (binascii.Error, ValueError) as exc:
            raise ValueError(f"image data URL is not valid base64: {exc}") from None
    return media_type, unquote_to_bytes(data)


# --------------------------------------------------------------------------------------------
# What the server answers
# --------------------------------------------------------------------------------------------

ResponseKind = Literal["message", "error", "hang", "drop", "body"]


@dataclass(frozen=True)
class Response:
    """How the server should answer one call. Build these with the ``FakeLLM`` helpers.

    ``message``: a 200 chat.completion whose message has ``content``/``refusal`` and
    ``finish_reason``. ``error``: HTTP ``status`` with an OpenAI-style error body carrying
    ``error_message`` and extra ``headers``. ``hang``: wait ``seconds`` (cut short when the
    server closes) then answer 500. ``drop``: close the connection without a byte. ``body``: a
    200 with ``content`` as the whole HTTP body and ``content_type`` as its Content-Type (a proxy's
    web page, a body cut short).
    """

    kind: ResponseKind
    status: int = 200
    content: str | None = None
    refusal: str | None = None
    finish_reason: str = "stop"
    error_message: str = ""
    error_type: str | None = None
    content_type: str = "application/json"
    headers: Mapping[str, str] = field(default_factory=dict)
    seconds: float = 0.0


AnswerValue = Union[Mapping[str, Any], Response]  # noqa: UP007 - a runtime alias on Python 3.10
#: One scripted answer: a JSON object for the message content, a Response, or a callable.
Answer = Union[Mapping[str, Any], Response, Callable[[Request], AnswerValue]]  # noqa: UP007
#: When a rule applies: always (None), a substring of ``Request.text``, or a predicate.
Predicate = Union[Callable[[Request], bool], str, None]  # noqa: UP007


@dataclass
class Rule:
    """A scripted rule. ``uses`` counts the answers it gave (handy in assertions)."""

    schema: str | None
    when: Predicate
    answers: list[Answer]
    times: int | None = None
    uses: int = 0

    @property
    def expired(self) -> bool:
        return self.times is not None and self.uses >= self.times

    def matches(self, request: Request) -> bool:
        if self.expired:
            return False
        if self.schema is not None and self.schema != request.schema_name:
            return False
        if self.when is None:
            return True
        if isinstance(self.when, str):
            return self.when in request.text
        return bool(self.when(request))

    def take(self) -> Answer:
        """Consume one answer (caller holds the FakeLLM lock, so this is atomic)."""
        answer = self.answers[min(self.uses, len(self.answers) - 1)]
        self.uses += 1
        return answer


def _error_body(status: int, message: str, error_type: str | None = None) -> dict[str, Any]:
    """An error body shaped like OpenAI's, so the client builds its usual exception message."""
    default_type, code = {
        400: ("invalid_request_error", None),
        401: ("invalid_request_error", "invalid_api_key"),
        404: ("invalid_request_error", "not_found"),
        429: ("requests", "rate_limit_exceeded"),
    }.get(status, ("server_error" if status >= 500 else "invalid_request_error", None))
    return {
        "error": {
            "message": message,
            "type": error_type or default_type,
            "param": None,
            "code": code,
        }
    }


# --------------------------------------------------------------------------------------------
# Other servers' ways
# --------------------------------------------------------------------------------------------

ALL_FORMATS = frozenset({"json_schema", "json_object", "none"})


@dataclass(frozen=True)
class Quirks:
    """How one kind of OpenAI-compatible server differs from OpenAI, as a client sees it.

    ``formats``: the ``response_format`` types it takes ("none" = no response_format); any other
    gets HTTP ``refusal_status`` with ``refusal_message`` (``{fmt}`` is replaced by the type).
    ``wrap``: how the JSON answer is written -- "" bare, "fences" in a ```json block, "prose"
    with sentences around it, "think" after a reasoning block holding a draft object.
    ``usage``: whether answers report token usage. ``azure``: Azure OpenAI's routing
    (``/openai/deployments/{deployment}/chat/completions?api-version=...``, ``api-key`` header).
    """

    name: str = "openai"
    formats: frozenset[str] = ALL_FORMATS
    refusal_status: int = 400
    refusal_message: str = "response_format type {fmt} is not supported"
    wrap: str = ""
    usage: bool = True
    azure: bool = False

    def wrapped(self, content: str) -> str:
        if self.wrap == "fences":
            return f"```json\n{content}\n```"
        if self.wrap == "prose":
            return f"Looking at the screenshot, here is my answer:\n\n{content}\n\nLet me know if you need more."
        if self.wrap == "think":
            draft = '{"met": false, "explanation": "draft, not the answer"}'
            return f"<think>\nThe user wants a JSON object. A first draft: {draft}. Let me look again.\n</think>\n{content}"
        return content


#: The servers the plugin is documented to work with (docs/models.md), as the client meets them.
SERVERS: dict[str, Quirks] = {
    "openai": Quirks(),
    "azure": Quirks(name="azure", azure=True),
    # A vision model under Ollama that ignores the schema and answers in a fenced block.
    "ollama": Quirks(name="ollama", wrap="fences"),
    # vLLM serving a reasoning model: a <think> block (with a draft object) before the answer.
    "vllm": Quirks(name="vllm", wrap="think"),
    # LM Studio: json_schema or text only, and a chatty model around the object.
    "lmstudio": Quirks(
        name="lmstudio",
        formats=frozenset({"json_schema", "none"}),
        refusal_message="'response_format.type' must be 'json_schema' or 'text', got '{fmt}'",
        wrap="prose",
    ),
    # llama.cpp's server (older builds): json_object only, no usage counts.
    "llamacpp": Quirks(
        name="llamacpp",
        formats=frozenset({"json_object", "none"}),
        refusal_message="Unsupported response_format type: {fmt}",
        usage=False,
    ),
    # A proxy that forwards plain chat only: any response_format is rejected.
    "plain": Quirks(
        name="plain",
        formats=frozenset({"none"}),
        refusal_status=422,
        refusal_message="Extra inputs are not permitted: response_format ({fmt})",
    ),
}


# --------------------------------------------------------------------------------------------
# HTTP plumbing
# --------------------------------------------------------------------------------------------


class _Server(ThreadingHTTPServer):
    """ThreadingHTTPServer that knows its FakeLLM and can cut its open connections.

    Open connections are tracked so ``close()`` can shut them down: otherwise keep-alive
    connections would outlive the server and handler threads would linger.
    """

    daemon_threads = True
    # 20+ parallel clients connect at once; the default backlog of 5 makes Linux drop SYNs and
    # the clients retry a second later, which would skew benchmarks and concurrency tests.
    request_queue_size = 128

    def __init__(self, address: tuple[str, int], fake: FakeLLM) -> None:
        self.fake = fake
        self._connections: set[socket.socket] = set()
        self._connections_lock = threading.Lock()
        super().__init__(address, _Handler)

    def process_request(self, request: Any, client_address: Any) -> None:
        with self._connections_lock:
            self._connections.add(request)
        super().process_request(request, client_address)

    def shutdown_request(self, request: Any) -> None:
        with self._connections_lock:
            self._connections.discard(request)
        super().shutdown_request(request)

    def close_connections(self) -> None:
        with self._connections_lock:
            connections = list(self._connections)
        for connection in connections:
            try:
                connection.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def handle_error(self, request: Any, client_address: Any) -> None:
        # A client that timed out or went away is business as usual here; keep stderr quiet.
        if isinstance(sys.exc_info()[1], OSError):
            return
        super().handle_error(request, client_address)


class _Handler(BaseHTTPRequestHandler):
    """Routes HTTP to the FakeLLM. HTTP/1.1 keep-alive, like real endpoints."""

    protocol_version = "HTTP/1.1"
    server: _Server
    # Idle keep-alive connections give up after this long, so threads don't pile up.
    timeout = 120

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib signature
        """Silence the per-request access log (it would flood test output)."""

    def do_GET(self) -> None:
        fake = self.server.fake
        path = urlsplit(self.path).path.rstrip("/")
        if not fake._authorized(self.headers.get("Authorization")):
            self._send_json(401, _error_body(401, "FakeLLM: incorrect API key provided"))
        elif path == "/v1/models":
            self._send_json(200, {"object": "list", "data": [fake._model_entry(m) for m in fake.models]})
        elif path.startswith("/v1/models/") and path[len("/v1/models/") :] in fake.models:
            self._send_json(200, fake._model_entry(path[len("/v1/models/") :]))
        else:
            self._send_json(404, _error_body(404, f"FakeLLM: no route GET {path}"))

    def do_POST(self) -> None:
        fake = self.server.fake
        parts = urlsplit(self.path)
        path = parts.path.rstrip("/")
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        route = fake._route_problem(path, parse_qs(parts.query))
        if route is not None:
            self._send_json(404, _error_body(404, route))
            return

        headers = {name.lower(): value for name, value in self.headers.items()}
        problem: str | None = None
        try:
            request = Request.from_http(path, headers, raw)
        except ValueError as exc:
            problem = str(exc)
            request = Request(None, {}, "", [], headers, path=path, raw=raw)
        # Log everything that arrived, even what is rejected below: bodies_text() must see all.
        fake._record(request)
        with fake._in_flight():
            self._answer(fake, request, headers, problem)

    def _answer(self, fake: FakeLLM, request: Request, headers: dict[str, str], problem: str | None) -> None:
        if not fake._sleep(fake.latency):
            self._drop()
            return
        if not fake._authorized(headers.get("api-key") if fake.quirks.azure else headers.get("authorization")):
            self._send_json(401, _error_body(401, "FakeLLM: incorrect API key provided"))
            return
        if problem is not None:
            self._send_json(400, _error_body(400, f"FakeLLM: {problem}"))
            return
        refused = fake._format_refusal(request)
        if refused is not None:
            status, message = refused
            self._send_json(status, _error_body(status, message))
            return
        if request.body.get("stream"):
            self._send_json(400, _error_body(400, "FakeLLM: streaming is not supported"))
            return

        response = fake._respond(request)
        if response.kind == "drop":
            self._drop()
        elif response.kind == "body":
            data = (response.content or "").encode()
            self.send_response(200)
            self.send_header("Content-Type", response.content_type)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
        elif response.kind == "hang":
            if not fake._sleep(response.seconds):
                self._drop()
                return
            message = f"FakeLLM: hung for {response.seconds:g}s as scripted"
            self._send_json(500, _error_body(500, message))
        elif response.kind == "error":
            body = _error_body(response.status, response.error_message, response.error_type)
            self._send_json(response.status, body, response.headers)
        else:
            self._send_json(200, fake._completion(request, response), response.headers)

    def _drop(self) -> None:
        """End the exchange without a response: the client sees the connection close."""
        self.close_connection = True

    def _send_json(self, status: int, payload: Any, headers: Mapping[str, str] | None = None) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.send_header("x-request-id", self.server.fake._next_id("req_fake"))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)


# --------------------------------------------------------------------------------------------
# The public double
# --------------------------------------------------------------------------------------------


class FakeLLM:
    """A local OpenAI-compatible chat-completions server answering from scripted rules.

    Starts immediately on ``host`` (loopback) and a free port (or ``port``), serving from a
    daemon thread; use it as a context manager or call ``close()``. Thread-safe: any number of
    concurrent requests, rules may be added while it serves. ``latency`` (seconds, settable at
    any time) delays every chat-completions answer. If ``api_key`` is set, requests without
    ``Authorization: Bearer <api_key>`` get 401.
    """

    def __init__(
        self,
        *,
        latency: float = 0.0,
        api_key: str | None = None,
        host: str = "127.0.0.1",
        port: int = 0,
        models: Sequence[str] = ("fake-llm",),
        quirks: Quirks | None = None,
    ) -> None:
        self.latency = latency
        #: How this double differs from OpenAI (see :class:`Quirks`); settable at any time.
        self.quirks = quirks or SERVERS["openai"]
        self.api_key = api_key
        self.models: tuple[str, ...] = tuple(models)
        #: Exceptions raised by rule predicates or answer callables (also answered as 500).
        self.errors: list[BaseException] = []
        self._rules: list[Rule] = []
        self._requests: list[Request] = []
        self._lock = threading.Lock()
        self._open = 0
        #: The most chat-completions requests this server held at once (to see clients overlap).
        self.most_in_flight = 0
        self._ids = itertools.count(1)
        self._closed = threading.Event()
        self._server = _Server((host, port), self)
        self._thread = threading.Thread(
            target=self._server.serve_forever,
            kwargs={"poll_interval": 0.05},  # so close() returns promptly
            name=f"FakeLLM:{self.port}",
            daemon=True,
        )
        self._thread.start()

    # -- lifecycle ---------------------------------------------------------------------------

    @property
    def host(self) -> str:
        return str(self._server.server_address[0])

    @property
    def port(self) -> int:
        return int(self._server.server_address[1])

    @property
    def base_url(self) -> str:
        """What to pass as the openai client's ``base_url`` (or ``OPENAI_BASE_URL``)."""
        return f"http://{self.host}:{self.port}/v1"

    @property
    def azure_endpoint(self) -> str:
        """What to pass as ``AZURE_OPENAI_ENDPOINT`` when ``quirks.azure`` is on."""
        return f"http://{self.host}:{self.port}"

    @property
    def closed(self) -> bool:
        return self._closed.is_set()

    def close(self) -> None:
        """Stop serving; cuts hangs, latency waits and open connections short. Idempotent."""
        if self._closed.is_set():
            return
        self._closed.set()
        self._server.shutdown()
        self._server.server_close()
        self._server.close_connections()
        self._thread.join(timeout=5)

    def __enter__(self) -> FakeLLM:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def __repr__(self) -> str:
        state = "closed" if self.closed else "serving"
        return f"<FakeLLM {state} {self.base_url} rules={len(self._rules)} calls={self.calls()}>"

    # -- scripting ---------------------------------------------------------------------------

    def add_rule(
        self,
        schema: str | None,
        when: Predicate,
        answer: Answer | list[Answer],
        times: int | None = None,
    ) -> Rule:
        """Script an answer; newest rules are tried first. Returns the rule (see ``Rule.uses``).

        ``schema``: response_format schema name to match, None for any. ``when``: None, a
        substring of the request's text, or a predicate. ``answer``: dict / Response / callable,
        or a list of those consumed one per call (the last repeats). ``times``: expire after
        that many answers.
        """
        answers = list(answer) if isinstance(answer, list) else [answer]
        if not answers:
            raise ValueError("answer list is empty")
        for item in answers:
            if not isinstance(item, (Mapping, Response)) and not callable(item):
                raise TypeError(f"an answer must be a dict, a Response or a callable, got {item!r}")
        if times is not None and times < 1:
            raise ValueError(f"times must be >= 1 or None, got {times}")
        rule = Rule(schema=schema, when=when, answers=answers, times=times)
        with self._lock:
            self._rules.append(rule)
        return rule

    def load_rules(self, entries: Iterable[Mapping[str, Any]]) -> list[Rule]:
        """Add rules from script-file entries (see the module docstring), in order."""
        return [self.add_rule(*_rule_args(index, entry)) for index, entry in enumerate(entries)]

    @contextmanager
    def _in_flight(self) -> Iterator[None]:
        with self._lock:
            self._open += 1
            self.most_in_flight = max(self.most_in_flight, self._open)
        try:
            yield
        finally:
            with self._lock:
                self._open -= 1

    def reset(self) -> None:
        """Forget all rules, logged requests and errors."""
        with self._lock:
            self._rules.clear()
            self._requests.clear()
            self.errors.clear()

    # -- answer helpers (return values for rules) --------------------------------------------

    @staticmethod
    def error(status: int, message: str = "", headers: Mapping[str, str] | None = None) -> Response:
        """An HTTP error with an OpenAI-style body. 429 gets ``retry-after: 0`` unless given."""
        merged = {"retry-after": "0"} if status == 429 else {}
        merged.update(headers or {})
        text = message or f"FakeLLM: scripted HTTP {status}"
        return Response(kind="error", status=status, error_message=text, headers=merged)

    @staticmethod
    def raw(text: str, finish_reason: str = "stop") -> Response:
        """A 200 whose message content is exactly ``text`` (not JSON, JSON missing fields...).

        ``finish_reason="length"`` simulates a truncated answer.
        """
        return Response(kind="message", content=text, finish_reason=finish_reason)

    @staticmethod
    def body(text: str, content_type: str = "application/json") -> Response:
        """A 200 whose whole HTTP body is ``text`` (not a chat completion): what a web server, a
        proxy's error page or a connection cut mid-answer sends."""
        return Response(kind="body", content=text, content_type=content_type)

    @staticmethod
    def refusal(text: str) -> Response:
        """A 200 where the model refuses: ``content`` null, ``refusal`` set."""
        return Response(kind="message", content=None, refusal=text)

    @staticmethod
    def hang(seconds: float) -> Response:
        """Wait ``seconds`` then answer 500, to trip client timeouts; ends early on close()."""
        return Response(kind="hang", seconds=seconds)

    @staticmethod
    def drop() -> Response:
        """Close the connection without answering (client sees a connection error)."""
        return Response(kind="drop")

    @staticmethod
    def json_answer(answer: Mapping[str, Any], finish_reason: str = "stop") -> Response:
        """A 200 whose content is ``answer`` as JSON -- same as a plain dict answer."""
        return Response(kind="message", content=json.dumps(answer), finish_reason=finish_reason)

    # -- request log -------------------------------------------------------------------------

    @property
    def requests(self) -> list[Request]:
        """Snapshot of every chat-completions request received (rejected ones included)."""
        with self._lock:
            return list(self._requests)

    def calls(self, schema: str | None = None) -> int:
        """How many chat-completions requests arrived (for ``schema``, or all if None)."""
        with self._lock:
            return sum(1 for r in self._requests if schema is None or r.schema_name == schema)

    def bodies_text(self) -> str:
        """Every raw request body, decoded and joined by newlines (to assert no secret leaks)."""
        with self._lock:
            return "\n".join(r.raw.decode("utf-8", errors="replace") for r in self._requests)

    # -- internals used by the handler -------------------------------------------------------

    def _record(self, request: Request) -> None:
        with self._lock:
            self._requests.append(request)

    def _authorized(self, credential: str | None) -> bool:
        if self.api_key is None:
            return True
        return credential == (self.api_key if self.quirks.azure else f"Bearer {self.api_key}")

    def _route_problem(self, path: str, query: Mapping[str, list[str]]) -> str | None:
        """Why a POST to ``path`` is not a chat completion here (None when it is)."""
        if not self.quirks.azure:
            return None if path == "/v1/chat/completions" else f"FakeLLM: no route POST {path}"
        deployment = re.fullmatch(r"/openai/deployments/([^/]+)/chat/completions", path)
        if deployment is None:
            return f"FakeLLM (azure): no route POST {path}; expected /openai/deployments/NAME/chat/completions"
        if not query.get("api-version"):
            return "FakeLLM (azure): Resource not found (no api-version query parameter)"
        return None

    def _format_refusal(self, request: Request) -> tuple[int, str] | None:
        response_format = request.body.get("response_format")
        fmt = response_format.get("type", "none") if isinstance(response_format, dict) else "none"
        if fmt == "text":
            fmt = "none"
        if fmt in self.quirks.formats:
            return None
        return self.quirks.refusal_status, self.quirks.refusal_message.format(fmt=fmt)

    def _sleep(self, seconds: float) -> bool:
        """Sleep unless closed meanwhile; False means the server closed (abandon the answer)."""
        if seconds > 0:
            return not self._closed.wait(seconds)
        return not self._closed.is_set()

    def _next_id(self, prefix: str) -> str:
        return f"{prefix}{next(self._ids)}"

    def _model_entry(self, model: str) -> dict[str, Any]:
        return {"id": model, "object": "model", "created": 0, "owned_by": "fake-llm"}

    def _respond(self, request: Request) -> Response:
        """Pick the newest matching rule and turn its answer into a Response (never raises)."""
        try:
            with self._lock:  # match + consume atomically, so `times`/lists hold under concurrency
                rule = next((r for r in reversed(self._rules) if r.matches(request)), None)
                answer = rule.take() if rule is not None else None
            if rule is None:
                return self._no_rule(request)
            value = answer(request) if callable(answer) else answer
            if isinstance(value, Response):
                return value
            if isinstance(value, Mapping):
                return Response(kind="message", content=self.quirks.wrapped(json.dumps(dict(value))))
            raise TypeError(f"answer callable returned {value!r}, expected a dict or a Response")
        except Exception as exc:  # a bug in a test's rule: report it loudly over HTTP
            with self._lock:
                self.errors.append(exc)
            message = f"FakeLLM: a rule raised {type(exc).__name__}: {exc}"
            return Response(kind="error", status=500, error_message=message, headers={"x-should-retry": "false"})

    def _no_rule(self, request: Request) -> Response:
        with self._lock:
            known = sorted({repr(r.schema) for r in self._rules})
        excerpt = request.text[:200].replace("\n", " ")
        message = (
            f"FakeLLM: no rule matched the request for schema {request.schema_name!r} "
            f"(rules exist for schemas: {', '.join(known) or 'none'}; text starts: {excerpt!r})"
        )
        return Response(
            kind="error",
            status=500,
            error_message=message,
            error_type="no_rule_matched",
            headers={"x-should-retry": "false"},  # fail the test now, not after client retries
        )

    def _completion(self, request: Request, response: Response) -> dict[str, Any]:
        """A chat.completion object with plausible usage counts."""
        prompt_tokens = (
            math.ceil(len(request.text) / 4)
            + TOKENS_PER_IMAGE * len(request.images)
            + TOKENS_PER_MESSAGE * len(request.messages)
        )
        answer_text = response.content if response.content is not None else response.refusal or ""
        completion_tokens = max(1, math.ceil(len(answer_text) / 4))
        usage = {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
        }
        return {
            "id": self._next_id("chatcmpl-fake"),
            "object": "chat.completion",
            "created": int(time.time()),
            "model": request.model or self.models[0],
            "system_fingerprint": "fp_fakellm",
            "choices": [
                {
                    "index": 0,
                    "message": {
                        "role": "assistant",
                        "content": response.content,
                        "refusal": response.refusal,
                        "annotations": [],
                    },
                    "logprobs": None,
                    "finish_reason": response.finish_reason,
                }
            ],
            "usage": usage if self.quirks.usage else None,
        }


# --------------------------------------------------------------------------------------------
# Script files and the command line
# --------------------------------------------------------------------------------------------

_RULE_KEYS = {"schema", "when", "answer", "times"}


def _rule_args(
    index: int, entry: Mapping[str, Any]
) -> tuple[str | None, str | None, Answer | list[Answer], int | None]:
    """Validate one script entry; errors name the entry so a broken script is easy to fix."""
    where = f"script entry {index}"
    if not isinstance(entry, Mapping):
        raise ValueError(f"{where}: expected an object, got {entry!r}")
    unknown = set(entry) - _RULE_KEYS
    if unknown:
        raise ValueError(f"{where}: unknown keys {sorted(unknown)} (allowed: {sorted(_RULE_KEYS)})")
    if "answer" not in entry:
        raise ValueError(f"{where}: missing 'answer'")
    schema, when, times = entry.get("schema"), entry.get("when"), entry.get("times")
    if schema is not None and not isinstance(schema, str):
        raise ValueError(f"{where}: 'schema' must be a string or null")
    if when is not None and not isinstance(when, str):
        raise ValueError(f"{where}: 'when' must be a substring (string) or null")
    if times is not None and (not isinstance(times, int) or isinstance(times, bool)):
        raise ValueError(f"{where}: 'times' must be an integer or null")
    raw_answer = entry["answer"]
    if isinstance(raw_answer, list):
        answer: Answer | list[Answer] = [_script_answer(where, item) for item in raw_answer]
    else:
        answer = _script_answer(where, raw_answer)
    return schema, when, answer, times


def _script_answer(where: str, item: Any) -> Answer:
    """Turn one script answer (a JSON object, maybe a ``$`` special) into an Answer."""
    if not isinstance(item, dict):
        raise ValueError(f"{where}: an answer must be a JSON object, got {item!r}")
    specials = [key for key in item if key.startswith("$")]
    if not specials:
        return item
    if len(item) != 1:
        raise ValueError(f"{where}: a special answer has exactly one '$' key, got {sorted(item)}")
    key, value = specials[0], item[specials[0]]
    if key == "$error" and isinstance(value, dict) and isinstance(value.get("status"), int):
        return FakeLLM.error(value["status"], str(value.get("message", "")))
    if key == "$raw" and isinstance(value, str):
        return FakeLLM.raw(value)
    if key == "$refusal" and isinstance(value, str):
        return FakeLLM.refusal(value)
    if key == "$hang" and isinstance(value, (int, float)) and not isinstance(value, bool):
        return FakeLLM.hang(float(value))
    if key == "$drop" and value is True:
        return FakeLLM.drop()
    raise ValueError(
        f"{where}: bad special answer {item!r}; expected one of "
        '{"$error": {"status": N, "message": S}}, {"$raw": S}, {"$refusal": S}, '
        '{"$hang": SECONDS}, {"$drop": true}'
    )


def load_script(fake: FakeLLM, path: str) -> list[Rule]:
    """Load a JSON script file (format in the module docstring) into ``fake``."""
    with open(path, encoding="utf-8") as handle:
        entries = json.load(handle)
    if not isinstance(entries, list):
        raise ValueError(f"{path}: the script must be a JSON list of rule objects")
    return fake.load_rules(entries)


def main(argv: Sequence[str] | None = None) -> int:
    """Serve scripted answers until interrupted (see the module docstring)."""
    parser = argparse.ArgumentParser(
        prog="python -m tests.support.llm_server",
        description="Local OpenAI-compatible chat-completions server answering from a JSON script.",
    )
    parser.add_argument("--host", default="127.0.0.1", help="interface to bind (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=0, help="port (default 0: pick a free one)")
    parser.add_argument("--latency", type=float, default=0.0, help="seconds added to every answer")
    parser.add_argument("--script", help="JSON rule file (format: see module docstring)")
    parser.add_argument("--api-key", help="require 'Authorization: Bearer KEY'")
    parser.add_argument("--model", action="append", help="model name(s) listed by /v1/models")
    parser.add_argument("--server", choices=sorted(SERVERS), default="openai", help="behave like this server")
    args = parser.parse_args(argv)

    fake = FakeLLM(
        latency=args.latency,
        api_key=args.api_key,
        host=args.host,
        port=args.port,
        models=args.model or ("fake-llm",),
        quirks=SERVERS[args.server],
    )
    try:
        if args.script:
            rules = load_script(fake, args.script)
            print(f"FakeLLM loaded {len(rules)} rule(s) from {args.script}", file=sys.stderr)
        else:
            print("FakeLLM: no --script given; every chat completion will get a 500", file=sys.stderr)
    except (OSError, ValueError) as exc:
        fake.close()
        print(f"FakeLLM: cannot load script: {exc}", file=sys.stderr)
        return 2

    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    print(f"FakeLLM serving on {fake.base_url}", flush=True)
    try:
        while not stop.wait(0.5):
            pass
    except KeyboardInterrupt:
        pass
    finally:
        fake.close()
        print(f"FakeLLM stopped after {fake.calls()} chat completion(s)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
