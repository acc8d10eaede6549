"""The nightly alert message and its delivery to a real HTTP server on 127.0.0.1: delivered,
and a webhook that is down, slow or failing (retried, bounded, an error line, no exception)."""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from typing import Any

import pytest

from pytest_reuseit.report import alerts
from tests.support.serve import Served

CAUSES = [
    {
        "id": "c1",
        "summary": 'step 3 "add to cart": button "Add to cart" not found on /product',
        "tests": ["shop/cart.reuseit.yaml::cart[guest]", "shop/cart.reuseit.yaml::cart[member]"],
        "step": 3,
        "locator": 'role=button[name="Add to cart"]',
        "first_seen": "2024-05-02T02:23:00Z",
        "changed": {
            "removed": ['button "Add to cart"'],
            "added": ['button "Add to basket"'],
            "url": ["http://shop/product", "http://shop/product"],
            "title": ["Shop", "Shop"],
        },
    },
    {"id": "c2", "summary": "the site did not answer (timeout)", "tests": ["shop/login.reuseit.yaml::login"]},
]
EVENTS = [
    {
        "kind": "failing",
        "test": "shop/cart.reuseit.yaml::cart[guest]",
        "workflow": "shop/cart.reuseit.yaml",
        "variation": "guest",
        "cause": "c1",
        "since": "2024-05-02T02:23:00Z",
    },
    {
        "kind": "failing",
        "test": "shop/cart.reuseit.yaml::cart[member]",
        "workflow": "shop/cart.reuseit.yaml",
        "variation": "member",
        "cause": "c1",
        "since": "2024-05-02T02:23:00Z",
    },
    {
        "kind": "failing",
        "test": "shop/login.reuseit.yaml::login",
        "workflow": "shop/login.reuseit.yaml",
        "variation": "",
        "cause": "c2",
        "since": "2024-05-01T02:23:00Z",
    },
    {
        "kind": "fixed",
        "test": "shop/search.reuseit.yaml::search",
        "workflow": "shop/search.reuseit.yaml",
        "variation": "",
        "cause": None,
        "since": "2024-04-30T02:23:00Z",
    },
    {
        "kind": "drifting",
        "test": "shop/checkout.reuseit.yaml::checkout",
        "workflow": "shop/checkout.reuseit.yaml",
        "variation": "",
        "cause": 'step 2 recovered by its fallback "close the cookie overlay"',
        "since": "2024-05-02T02:23:00Z",
    },
]


def test_message_groups_failures_by_cause_with_what_changed() -> None:
    body = alerts.message(EVENTS, CAUSES)
    assert body["events"] == EVENTS
    text = body["text"]
    assert text.splitlines()[0] == "reuseit nightly: 3 failing (2 causes), 1 drifting, 1 fixed"
    paragraphs = text.split("\n\n")
    # The cause with the most runs first, its runs under it, what changed on the page named.
    first = paragraphs[1].splitlines()
    assert first[0] == 'Failing (2 runs): `step 3 "add to cart": button "Add to cart" not found on /product`'
    assert first[1] == 'since the last pass, left: `button "Add to cart"`'
    assert first[2] == 'since the last pass, appeared: `button "Add to basket"`'
    assert first[3:] == [
        "- `shop/cart.reuseit.yaml::cart[guest]` since 2024-05-02T02:23:00Z",
        "- `shop/cart.reuseit.yaml::cart[member]` since 2024-05-02T02:23:00Z",
    ]
    assert paragraphs[2].startswith("Failing (1 run): `the site did not answer (timeout)`\n- `shop/login")
    assert paragraphs[3].startswith("Drifting: ")
    assert (
        "- `shop/checkout.reuseit.yaml::checkout` since 2024-05-02T02:23:00Z: `step 2 recovered by its fallback"
        in (paragraphs[3])
    )
    assert paragraphs[4] == (
        "Fixed: passing again\n- `shop/search.reuseit.yaml::search` (failing since 2024-04-30T02:23:00Z)"
    )
    assert "**" not in text and "<" not in text  # nothing one of the three receivers would garble
    json.dumps(body)  # what post() sends


def test_message_neutralises_mentions_and_links_and_stays_short() -> None:
    events = [
        {"kind": "failing", "test": f"t.reuseit.yaml::t[{i}]", "workflow": "t", "variation": str(i), "cause": "x"}
        for i in range(40)
    ]
    causes = [{"id": "x", "summary": "text <!channel> @here <http://evil|click> `rm`", "changed": None}]
    text = alerts.message(events, causes)["text"]
    assert "<!channel>" not in text and "<http" not in text
    assert "`text ‹!channel› @here ‹http://evil|click› 'rm'`" in text  # inside a code span: no ping
    assert text.count("\n- `t.reuseit.yaml") == alerts.MAX_PER_GROUP
    assert text.endswith(f"- and {40 - alerts.MAX_PER_GROUP} more")
    assert alerts.message([], [])["text"] == "reuseit nightly: no change"


class Hook:
    """A webhook on 127.0.0.1 answering each POST with the next of ``answers`` (status, delay)."""

    def __init__(self, answers: list[tuple[int, float]]) -> None:
        self.answers = answers
        self.bodies: list[Any] = []
        self.headers: list[dict[str, str]] = []
        self.lock = threading.Lock()
        hook = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: object) -> None:  # noqa: A002
                pass

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", 0))
                raw = self.rfile.read(length)
                with hook.lock:
                    hook.bodies.append(json.loads(raw))
                    hook.headers.append(dict(self.headers))
                    n = len(hook.bodies)
                status, delay = hook.answers[min(n, len(hook.answers)) - 1]
                time.sleep(delay)
                try:
                    self.send_response(status)
                    self.end_headers()
                    self.wfile.write(b"ok")
                except OSError:
                    pass  # the client gave up waiting

        self.served = Served(Handler)
        self.url = self.served.url + "/services/T000/B000/secret-token-in-path"


@pytest.fixture
def hook_factory() -> Iterator[Any]:
    made: list[Hook] = []

    def make(answers: list[tuple[int, float]]) -> Hook:
        made.append(Hook(answers))
        return made[-1]

    yield make
    for hook in made:
        hook.served.close()


def test_post_delivers_the_body(hook_factory: Any) -> None:
    hook = hook_factory([(200, 0.0)])
    body = alerts.message(EVENTS, CAUSES)
    assert alerts.post(hook.url, body) is None
    assert hook.bodies == [body]
    assert hook.headers[0]["Content-Type"] == "application/json"


def test_post_retries_after_a_500_and_succeeds(hook_factory: Any) -> None:
    hook = hook_factory([(500, 0.0), (204, 0.0)])
    assert alerts.post(hook.url, {"text": "x", "events": []}) is None
    assert len(hook.bodies) == 2


@pytest.mark.slow
def test_post_to_a_webhook_answering_500_gives_up_with_a_line(hook_factory: Any) -> None:
    hook = hook_factory([(500, 0.0)])
    start = time.monotonic()
    error = alerts.post(hook.url, {"text": "x", "events": []})
    elapsed = time.monotonic() - start
    assert len(hook.bodies) == 3  # retried
    assert error is not None and error.startswith(f"alert webhook {hook.served.url}: answered 500")
    assert "3 attempts" in error and "\n" not in error
    assert "secret-token-in-path" not in error  # the URL's path is the webhook's credential
    assert elapsed < 0.5 + 1.0 + 1.0  # the backoff, and no more


def test_post_does_not_retry_a_refusal_that_will_not_change(hook_factory: Any) -> None:
    hook = hook_factory([(404, 0.0)])
    error = alerts.post(hook.url, {"text": "x", "events": []})
    assert error is not None and "answered 404" in error and "1 attempt," in error
    assert len(hook.bodies) == 1


def _refused_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])  # closed again: nothing listens there


@pytest.mark.slow
def test_post_to_a_webhook_that_is_down() -> None:
    start = time.monotonic()
    error = alerts.post(f"http://127.0.0.1:{_refused_port()}/hook", {"text": "x", "events": []})
    elapsed = time.monotonic() - start
    assert error is not None and "connection refused" in error and "3 attempts" in error
    assert 1.5 <= elapsed < 3.0  # two pauses of backoff, no long wait


@pytest.mark.slow
def test_post_to_a_webhook_that_answers_too_late(hook_factory: Any) -> None:
    hook = hook_factory([(200, 1.5)])
    start = time.monotonic()
    error = alerts.post(hook.url, {"text": "x", "events": []}, timeout=0.4)
    elapsed = time.monotonic() - start
    assert error is not None and "no answer in time" in error and "3 attempts" in error
    assert len(hook.bodies) == 3
    assert elapsed < 3 * 0.4 + 1.5 + 1.0


def test_post_refuses_what_is_not_http() -> None:
    error = alerts.post("file:///etc/passwd", {"text": "x"})
    assert error is not None and "not an http(s) URL" in error


def test_lines_set_aside_as_the_page_s_own_churn_are_counted_in_the_message() -> None:
    causes = [{**CAUSES[0], "changed": {**CAUSES[0]["changed"], "set_aside": {"removed": 1, "added": 12}}}]
    text = alerts.message(EVENTS[:1], causes)["text"]
    assert "(13 lines that also differ between the last two passes set aside)" in text, text
    assert "set aside" not in alerts.message(EVENTS[:1], CAUSES)["text"]
