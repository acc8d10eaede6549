"""The last run of each workflow as Prometheus figures: ``metrics.prom`` and a Pushgateway push.

``records`` are run records (report/records.py, one per workflow run of the reported suite run).
Every figure is a gauge (the value of the last run, not a running count) labelled by ``workflow``
(the file as collected) and ``variation``:

| metric | value |
|---|---|
| ``reuseit_run_status{workflow,variation,status}`` | 1 for the run's status, 0 for the other five |
| ``reuseit_run_duration_seconds`` | the run's duration |
| ``reuseit_run_recovered`` | 1 when it passed only through a fallback or healing (recovered, healed) |
| ``reuseit_run_recovered_steps`` | steps a fallback got past |
| ``reuseit_run_started_timestamp_seconds`` | when the run started |
| ``reuseit_model_calls``, ``reuseit_model_cache_hits``, ``reuseit_model_tokens``, ``reuseit_model_cost_usd`` | the run's model use |
| ``reuseit_suite_runs{status}`` | runs of the suite run by status |
| ``reuseit_suite_duration_seconds``, ``reuseit_suite_model_calls``, ``reuseit_suite_model_cost_usd`` | summed over its runs |
| ``reuseit_report_timestamp_seconds`` | when the report was made (alert on it going stale) |
| ``reuseit_state{workflow,variation,state}`` | 1 for the run's state under the alert policy (passing, drifting, pending, failing, recovering, flapping, broken), 0 for the others |

Every status is written, 0 or 1, so that a query such as ``reuseit_run_status{status="failed"} == 1``
finds the failing runs and a run's series never vanish when it changes status. Two records with
the same workflow and variation (the same file collected twice) keep the last one's figures.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit, urlunsplit

from prometheus_client import CollectorRegistry, Gauge, push_to_gateway, write_to_textfile
from prometheus_client.exposition import basic_auth_handler, default_handler

from .alert_policy import STATES as POLICY_STATES
from .delivery import deliver, failure_line, http_error

STATUSES = ("passed", "recovered", "healed", "failed", "broken", "skipped")
LABELS = ("workflow", "variation")
FILE = "metrics.prom"
# Worst case of push() with its defaults: 3 attempts x 5 s + 0.5 s + 1 s of backoff = 16.5 s.


def registry_of(
    records: Iterable[dict[str, Any]], *, now: float | None = None, states: dict[str, str] | None = None
) -> CollectorRegistry:
    """The figures of ``records`` in a registry of their own (not the process's global one);
    ``states``: each test's state under the alert policy, when the history gave one."""
    registry = CollectorRegistry(auto_describe=True)

    def gauge(name: str, doc: str, labels: tuple[str, ...] = LABELS) -> Gauge:
        return Gauge(name, doc, labels, registry=registry)

    status = gauge("reuseit_run_status", "1 for the last run's status, 0 for the others", (*LABELS, "status"))
    duration = gauge("reuseit_run_duration_seconds", "duration of the last run")
    recovered = gauge("reuseit_run_recovered", "1 when the last run passed only through a fallback or healing")
    recovered_steps = gauge("reuseit_run_recovered_steps", "steps of the last run that a fallback got past")
    started = gauge("reuseit_run_started_timestamp_seconds", "when the last run started (Unix time)")
    calls = gauge("reuseit_model_calls", "model calls of the last run (cache hits excluded)")
    hits = gauge("reuseit_model_cache_hits", "model answers of the last run taken from the cache")
    tokens = gauge("reuseit_model_tokens", "model tokens of the last run")
    cost = gauge("reuseit_model_cost_usd", "model cost of the last run in US dollars")
    suite_runs = gauge("reuseit_suite_runs", "workflow runs of the reported suite run by status", ("status",))
    suite_duration = gauge("reuseit_suite_duration_seconds", "summed duration of the suite run's workflow runs", ())
    suite_calls = gauge("reuseit_suite_model_calls", "model calls of the suite run", ())
    suite_cost = gauge("reuseit_suite_model_cost_usd", "model cost of the suite run in US dollars", ())
    stamp = gauge("reuseit_report_timestamp_seconds", "when the report was made (Unix time)", ())
    state_of = gauge(
        "reuseit_state", "1 for the run's state under the alert policy, 0 for the others", (*LABELS, "state")
    )

    totals = dict.fromkeys(STATUSES, 0)
    total_duration = total_calls = total_cost = 0.0
    for record in records:
        labels = (str(record.get("workflow") or record.get("test") or "?"), str(record.get("variation") or ""))
        state = str(record.get("status") or "broken")
        raw_usage = record.get("usage")
        usage: dict[str, Any] = raw_usage if isinstance(raw_usage, dict) else {}
        for name in dict.fromkeys((*STATUSES, state)):
            status.labels(*labels, name).set(1 if name == state else 0)
        duration.labels(*labels).set(_number(record.get("duration")))
        recovered.labels(*labels).set(1 if state in ("recovered", "healed") else 0)
        steps = record.get("recovered")
        recovered_steps.labels(*labels).set(len(steps) if isinstance(steps, list) else 0)
        started.labels(*labels).set(_number(record.get("started")))
        calls.labels(*labels).set(_number(usage.get("calls")))
        hits.labels(*labels).set(_number(usage.get("cache_hits")))
        tokens.labels(*labels).set(_number(usage.get("tokens")))
        cost.labels(*labels).set(_number(usage.get("cost")))
        totals[state] = totals.get(state, 0) + 1
        if states is not None and str(record.get("test")) in states:
            now_state = states[str(record.get("test"))]
            for name in dict.fromkeys((*POLICY_STATES, now_state)):
                state_of.labels(*labels, name).set(1 if name == now_state else 0)
        total_duration += _number(record.get("duration"))
        total_calls += _number(usage.get("calls"))
        total_cost += _number(usage.get("cost"))
    for name, count in totals.items():
        suite_runs.labels(name).set(count)
    suite_duration.set(round(total_duration, 3))
    suite_calls.set(total_calls)
    suite_cost.set(round(total_cost, 6))
    stamp.set(time.time() if now is None else now)
    return registry


def write_textfile(path: Path | str, records: Iterable[dict[str, Any]], states: dict[str, str] | None = None) -> Path:
    """``path`` in the text exposition format, replaced at once: node_exporter's textfile collector
    never reads a half-written file (prometheus_client writes a temporary file and renames it)."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    write_to_textfile(str(target), registry_of(records, states=states))
    return target


def push(
    url: str,
    records: Iterable[dict[str, Any]],
    job: str = "reuseit",
    *,
    attempts: int = 3,
    timeout: float = 5.0,
    states: dict[str, str] | None = None,
) -> str | None:
    """PUT the figures to the Pushgateway at ``url`` under ``job`` (replacing that job's last push,
    so a workflow that was removed leaves with it); None when it took them, else one line.

    Retried on a connection error, a timeout, 408, 429, 500 and 502-504, with a short backoff, never started past a
    20 s deadline; the line names the gateway's host only (its URL may carry credentials).
    """
    registry = registry_of(records, states=states)
    shown = url
    url, handler = _with_credentials(url)

    def attempt() -> tuple[str, bool]:
        try:
            push_to_gateway(url, job=job, registry=registry, timeout=timeout, handler=handler)
        except (OSError, ValueError) as exc:  # urllib's errors are OSErrors
            return http_error(exc)
        return "", False

    error, tried, seconds = deliver(attempt, attempts=attempts, timeout=timeout)
    return failure_line("pushgateway", shown, error, tried, seconds, "figures not pushed") if error else None


def _with_credentials(url: str) -> tuple[str, Any]:
    """A gateway behind basic auth is given as http://user:password@host: urllib does not read
    credentials from a URL, so they travel as the Authorization header instead."""
    parts = urlsplit(url if "://" in url else f"http://{url}")
    if parts.username is None:
        return url, default_handler
    user, password = unquote(parts.username), unquote(parts.password or "")
    netloc = parts.netloc.rsplit("@", 1)[1]

    def handler(url: str, method: str, timeout: float | None, headers: list[tuple[str, str]], data: bytes) -> Any:
        return basic_auth_handler(url, method, timeout, headers, data, user, password)

    return urlunsplit(parts._replace(netloc=netloc)), handler


def _number(value: Any) -> float:
    try:
        number = float(value)
    except (TypeError, ValueError):
        return 0.0
    return number if number == number else 0.0  # NaN from a broken record counts as nothing
