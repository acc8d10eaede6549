"""The nightly alert: one webhook message per report, only when something changed state.

``message(events, causes)`` builds the body: ``text`` for people and ``events`` for machines
(docs/monitoring.md, "Alerts"). ``post(url, body)`` delivers it with a few retries inside a bounded
time and returns an error line instead of raising: a webhook that is down must never cost the
night its report.

``text`` is read in Slack, Microsoft Teams and Mattermost incoming webhooks, whose markdown
dialects differ (Slack bolds ``*x*``, the others ``**x**``, so no bold). It keeps to what the
three render alike: plain lines, paragraphs separated by a blank line (Teams joins single line breaks), ``- ``
list items and inline code. Names from the suite (test ids, locators, page lines) go inside code
spans, so an underscore or bracket in a node id is not read as markup and an ``@channel`` inside
a page's text notifies nobody; ``<`` and ``>`` become look-alikes because Slack reads ``<...>`` as a
link or a mention even there. The inputs are already masked; nothing from the environment is
added.
"""

from __future__ import annotations

import json
import urllib.request
from collections.abc import Callable, Iterable
from typing import Any
from urllib.parse import urlsplit

from ..browser.aria import set_aside_words
from .delivery import deliver, failure_line, host, http_error
from .since_last import heal_extent

# What one message lists before "and N more": a night with a hundred failures still reads as a
# message, and stays under the receivers' size limits (Teams refuses about 28 KB).
MAX_PER_GROUP = 15
MAX_CHANGED_LINES = 3
MAX_FIELD = 200
# Worst case of post() with its defaults: 3 attempts x 5 s + 0.5 s + 1 s of backoff = 16.5 s.

KIND_ORDER = ("unhealthy", "failing", "flapping", "steady", "drifting", "fixed")


def message(events: list[dict[str, Any]], causes: list[dict[str, Any]]) -> dict[str, Any]:
    """The webhook body: ``{"text": human summary grouped by cause, "events": events as given}``."""
    by_kind: dict[str, list[dict[str, Any]]] = {kind: [] for kind in KIND_ORDER}
    reminders = []
    for event in events:
        if event.get("kind") == "failing" and event.get("reminder"):
            reminders.append(event)
            continue
        by_kind.setdefault(str(event.get("kind", "")), []).append(event)
    cause_of = {str(c.get("id", "")): c for c in causes}
    parts = [_headline(by_kind, reminders)]
    parts += [_unhealthy(e) for e in by_kind["unhealthy"]]
    parts += _failing(by_kind["failing"], cause_of)
    if reminders:
        parts.append("Still failing (reminder: the alert is open)\n" + _items(reminders, _run_line))
    if by_kind["flapping"]:
        parts.append(
            "Flapping: failing and passing by turns; held to this one message until steady\n"
            + _items(by_kind["flapping"], _flap_line)
        )
    if by_kind["steady"]:
        parts.append("Steady again: no longer flapping\n" + _items(by_kind["steady"], _steady_line))
    if by_kind["drifting"]:
        parts.append(
            "Drifting: passed only through a fallback or healing (the site changed; the test got around it)\n"
            + _items(by_kind["drifting"], lambda e: _drift_line(e, cause_of))
        )
    if by_kind["fixed"]:
        parts.append("Fixed: passing again\n" + _items(by_kind["fixed"], _fixed_line))
    for kind in sorted(set(by_kind) - set(KIND_ORDER)):
        if by_kind[kind]:
            parts.append(f"{_plain(kind) or 'other'}\n" + _items(by_kind[kind], _run_line))
    return {"text": "\n\n".join(parts), "events": events}


def post(url: str, body: dict[str, Any], *, attempts: int = 3, timeout: float = 5.0) -> str | None:
    """POST ``body`` as JSON; None when a 2xx answered, else one line saying what went wrong
    (report/delivery.py: the retries, the deadline, the host-only line)."""
    if urlsplit(url).scheme not in ("http", "https"):
        return f"alert webhook {host(url)!r}: not an http(s) URL; no message sent"
    data = json.dumps(body, ensure_ascii=False).encode("utf-8")
    request = urllib.request.Request(url, data=data, method="POST", headers={"Content-Type": "application/json"})

    def attempt() -> tuple[str, bool]:
        try:
            with urllib.request.urlopen(request, timeout=timeout) as response:
                response.read(65536)
                return ("", False) if 200 <= response.status < 300 else (f"answered {response.status}", False)
        except (OSError, ValueError) as exc:  # urllib's errors are OSErrors
            return http_error(exc)

    error, tried, seconds = deliver(attempt, attempts=attempts, timeout=timeout)
    return failure_line("alert webhook", url, error, tried, seconds, "no message delivered") if error else None


def _headline(by_kind: dict[str, list[dict[str, Any]]], reminders: list[dict[str, Any]]) -> str:
    counts = []
    for sick in by_kind["unhealthy"]:
        counts.append(f"unhealthy night ({sick.get('runs', '?')} of {sick.get('of', '?')} runs broken by one cause)")
    failing = by_kind["failing"]
    if failing:
        n_causes = len({str(e.get("cause", "")) for e in failing})
        counts.append(f"{len(failing)} failing ({n_causes} cause{'s' if n_causes != 1 else ''})")
    if reminders:
        counts.append(f"{len(reminders)} still failing")
    for kind in ("flapping", "steady", "drifting", "fixed"):
        if by_kind[kind]:
            counts.append(f"{len(by_kind[kind])} {kind}")
    return "reuseit nightly: " + (", ".join(counts) if counts else "no change")


def _unhealthy(event: dict[str, Any]) -> str:
    nights = int(event.get("nights") or 1)
    again = f" ({nights} nights in a row)" if nights > 1 else ""
    return (
        f"Unhealthy night{again}: {_code(event.get('cause') or 'infrastructure')} broke {event.get('runs', '?')} of "
        f"{event.get('of', '?')} runs. They were not judged: they count toward no workflow's rule and open no "
        "alert. Fix the runner's access to the site, the browser host or the model server, not the workflows."
    )


def _failing(failing: list[dict[str, Any]], cause_of: dict[str, dict[str, Any]]) -> list[str]:
    groups: dict[str, list[dict[str, Any]]] = {}
    for event in failing:
        groups.setdefault(str(event.get("cause") or ""), []).append(event)
    # The cause that breaks the most runs first: that is the one to look at.
    parts = []
    for cause_id, group in sorted(groups.items(), key=lambda kv: -len(kv[1])):
        cause = cause_of.get(cause_id, {})
        summary = cause.get("summary") or (f"cause {cause_id}" if cause_id else "cause not known")
        head = f"Failing ({len(group)} run{'s' if len(group) != 1 else ''}): {_code(summary)}"
        lines = [head, _heal(cause.get("heal")), *_changed(cause.get("changed")), _items(group, _run_line)]
        parts.append("\n".join(line for line in lines if line))
    return parts


def _heal(heal: Any) -> str:
    """The fix the history proves, as a command to run (it edits files; without --apply a diff)."""
    if not isinstance(heal, dict):
        return ""
    return f"fix proven by the history: {_code(str(heal.get('command', '')))} edits {heal_extent(heal)}"


def _changed(changed: Any) -> list[str]:
    """What differs from the last pass, a few lines: the first thing a reader wants to see."""
    if not isinstance(changed, dict):
        return []
    out = []
    for key, sign in (("removed", "left"), ("added", "appeared")):
        lines = [str(line) for line in changed.get(key) or []]
        if lines:
            # An ARIA snapshot line's leading list dash says nothing here.
            shown = ", ".join(_code(line.removeprefix("- ")) for line in lines[:MAX_CHANGED_LINES])
            more = f" and {len(lines) - MAX_CHANGED_LINES} more" if len(lines) > MAX_CHANGED_LINES else ""
            out.append(f"since the last pass, {sign}: {shown}{more}")
    url = changed.get("url")
    if isinstance(url, list) and len(url) == 2 and url[0] != url[1]:
        out.append(f"page was {_code(url[0])}, now {_code(url[1])}")
    aside = set_aside_words(changed)
    if aside:
        out.append(f"({aside} set aside)")
    return out


def _run_line(event: dict[str, Any]) -> str:
    since = f" since {_plain(event['since'])}" if event.get("since") else ""
    return f"{_code(event.get('test') or event.get('workflow') or '?')}{since}{_detail(event)}"


def _fixed_line(event: dict[str, Any]) -> str:
    since = f" (failing since {_plain(event['since'])})" if event.get("since") else ""
    return f"{_code(event.get('test') or event.get('workflow') or '?')}{since}{_detail(event)}"


def _flap_line(event: dict[str, Any]) -> str:
    # Whose flips first: it says what to look at (the site's page, or the test's waits).
    whose = f" {_plain(event['whose_words'])}." if event.get("whose_words") else ""
    return f"{_code(event.get('test') or event.get('workflow') or '?')}:{whose}{_detail(event).removeprefix(':')}"


def _steady_line(event: dict[str, Any]) -> str:
    state = _plain(event.get("state") or "?")
    return f"{_code(event.get('test') or event.get('workflow') or '?')} is {state}{_detail(event)}"


def _detail(event: dict[str, Any]) -> str:
    """The rule that fired in numbers, the recent runs as a strip and when it last passed."""
    out = []
    if event.get("rule"):
        out.append(_plain(event["rule"]))
    if event.get("strip"):
        out.append(f"last runs {_code(event['strip'])}")
    if "last_passed" in event:
        out.append(f"last passed {_plain(event['last_passed'])}" if event.get("last_passed") else "never passed")
    return ": " + "; ".join(out) if out else ""


def _drift_line(event: dict[str, Any], cause_of: dict[str, dict[str, Any]]) -> str:
    # What was got around: the cause's summary when the event names a cause, else its own words.
    cause = event.get("cause")
    if not cause:
        return _run_line(event)
    summary = cause_of.get(str(cause), {}).get("summary") or cause
    since = f" since {_plain(event['since'])}" if event.get("since") else ""
    return f"{_code(event.get('test') or event.get('workflow') or '?')}{since}: {_code(summary)}{_detail(event)}"


def _items(events: Iterable[dict[str, Any]], line: Callable[[dict[str, Any]], str]) -> str:
    events = list(events)
    shown = [f"- {line(e)}" for e in events[:MAX_PER_GROUP]]
    if len(events) > MAX_PER_GROUP:
        shown.append(f"- and {len(events) - MAX_PER_GROUP} more")
    return "\n".join(shown)


def _plain(value: Any) -> str:
    text = " ".join(str(value).split())[:MAX_FIELD]
    return text.replace("<", "‹").replace(">", "›")


def _code(value: Any) -> str:
    # A backtick inside would end the code span early.
    return "`" + (_plain(value).replace("`", "'") or " ") + "`"
