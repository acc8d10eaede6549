"""A model that reads what it is sent, for the fake endpoint (tests/support/llm_server.py).

A test's rules answer the way a well-behaved model would: from the page text and observation the
runner sent (a judge that reads ``<page_text>``: ``shows``; an agent that picks the ``[ref=eN]`` of
the button it wants: ``act``, ``ref``, ``clicks``), so a test sees what the runner really sends and
what it does with the answers. ``user_text``, ``page_text``, ``observation`` and ``already_done``
read a request's parts; ``requests`` lists the requests of one schema; ``ANALYSIS`` is the
analyst's answer for a run on tests/pages/model/app.html that failed.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from tests.support.llm_server import FakeLLM, Request

ANALYSIS = {
    "where": "step 1, post check 'The status says painted'",
    "why": "The Paint button was never pressed, so the status stayed unpainted.",
    "what": "The runner clicked Decoy; the agent clicked Decoy again.",
    "guidance": ["Click the Paint button instead of Decoy", "Add a fallback that clicks Paint"],
    "category": "wrong_element_or_value",
}


def between(text: str, start: str, end: str) -> str:
    m = re.search(re.escape(start) + r"\n?(.*?)\n?" + re.escape(end), text, re.S)
    return m.group(1) if m else ""


def user_text(req: Request) -> str:
    """The text parts of the user message (the system message names the delimiters too)."""
    return "\n".join(
        p["text"] for m in req.messages if m.get("role") == "user" for p in m["content"] if p.get("type") == "text"
    )


def page_text(req: Request) -> str:
    return between(user_text(req), "<page_text>", "</page_text>")


def observation(req: Request) -> str:
    return between(user_text(req), "<observation>", "</observation>")


def already_done(req: Request) -> str:
    return between(user_text(req), "Already done in this step:", "Page: ")


def ref(req: Request, role: str, name: str) -> str:
    """The ``[ref=eN]`` of the element with this role and name in the request's observation."""
    m = re.search(rf'- {role} "{re.escape(name)}"[^\n]*\[ref=(e\d+)\]', observation(req))
    assert m, f"no {role} {name!r} in the observation:\n{observation(req)}"
    return m.group(1)


def shows(needle: str) -> Callable[[Request], dict[str, Any]]:
    """A judge that answers from the page text it was given."""

    def answer(req: Request) -> dict[str, Any]:
        seen = needle in page_text(req)
        return {"met": seen, "explanation": f"The page {'shows' if seen else 'does not show'} '{needle}'."}

    return answer


def act(action: str, element: str = "", value: str = "", message: str = "") -> dict[str, str]:
    return {"thought": "looking at the page", "action": action, "element": element, "value": value, "message": message}


def clicks(name: str, until: str) -> Callable[[Request], dict[str, str]]:
    """An agent that clicks the button called ``name`` until the observation shows ``until``."""

    def answer(req: Request) -> dict[str, str]:
        if until in observation(req):
            return act("done", message=f"The page now shows '{until}'.")
        return act("click", ref(req, "button", name), message=f"I click the {name} button.")

    return answer


def requests(fake: FakeLLM, schema: str) -> list[Request]:
    return [r for r in fake.requests if r.schema_name == schema]
