"""Per-workflow trends across report runs: model cost, calls, recovered and healed runs.

``reuseit report`` reads the Allure results of the run being reported (each workflow run's
status, its ``recovered``/``healed`` tag and its "model usage (json)" attachment), appends one
entry to the history kept beside the report (``trends.json``) and writes ``trends.html``: one
table per workflow, one row per reported run, newest last. A results folder reported twice
replaces its entry instead of adding one.
"""

from __future__ import annotations

import hashlib
import html
import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from .allure_adapter import USAGE_ATTACHMENT

FILE = "trends.json"
PAGE = "trends.html"
KEEP = 200  # entries kept in the history
COUNTS = ("runs", "passed", "recovered", "healed", "failed", "broken", "calls", "cache_hits", "tokens")


def summarize(results: Path) -> dict[str, dict[str, float]]:
    """Per workflow (Allure feature): run counts by outcome, model calls, tokens and cost."""
    out: dict[str, dict[str, float]] = {}
    for result in _results(results):
        labels = result.get("labels", [])
        workflow = next((lab["value"] for lab in labels if lab.get("name") == "feature"), result.get("name", "?"))
        tags = {lab["value"] for lab in labels if lab.get("name") == "tag"}
        row = out.setdefault(workflow, dict.fromkeys(COUNTS, 0) | {"cost_usd": 0.0})
        row["runs"] += 1
        status = result.get("status", "broken")
        label = "healed" if "healed" in tags else "recovered" if "recovered" in tags else status
        if label in row:
            row[label] += 1
        usage = _usage(results, result)
        for key in ("calls", "cache_hits", "tokens"):
            row[key] += int(usage.get(key, 0))
        row["cost_usd"] = round(row["cost_usd"] + float(usage.get("cost_usd", 0.0)), 6)
    return out


def update(results: Path, output: Path, history: list[dict[str, Any]] | None = None) -> Path:
    """Add this results folder to the history (``history`` or the one in ``output``); write both files."""
    entries = load(output) if history is None else list(history)
    key = _key(results)
    entry = {"key": key, "time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "workflows": summarize(results)}
    entries = [e for e in entries if e.get("key") != key] + [entry]
    entries = entries[-KEEP:]
    output.mkdir(parents=True, exist_ok=True)
    (output / FILE).write_text(json.dumps(entries, indent=1), encoding="utf-8")
    (output / PAGE).write_text(render(entries), encoding="utf-8")
    return output / PAGE


def load(output: Path) -> list[dict[str, Any]]:
    try:
        data = json.loads((output / FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    return data if isinstance(data, list) else []


def render(entries: list[dict[str, Any]]) -> str:
    esc = html.escape
    workflows = sorted({name for e in entries for name in e.get("workflows", {})})
    sections = []
    for name in workflows:
        rows = [(e["time"], e["workflows"][name]) for e in entries if name in e.get("workflows", {})]
        body = "".join(
            f"<tr><td>{esc(t)}</td>"
            + "".join(f"<td>{int(r.get(c, 0))}</td>" for c in COUNTS)
            + f"<td>${float(r.get('cost_usd', 0)):.4f}</td><td>{_bar(r, rows)}</td></tr>"
            for t, r in rows
        )
        head = "".join(f"<th>{c.replace('_', ' ')}</th>" for c in ("report", *COUNTS, "cost", ""))
        sections.append(f"<h2>{esc(name)}</h2><table><tr>{head}</tr>{body}</table>")
    return (
        "<!doctype html><meta charset='utf-8'><title>reuseit trends</title>"
        "<style>body{font-family:sans-serif;margin:1em}table{border-collapse:collapse}"
        "td,th{border:1px solid #ccc;padding:2px 8px;text-align:right}</style>"
        "<h1>Trends per workflow: outcomes, model calls and cost</h1>" + "".join(sections)
    )


def _bar(row: dict[str, float], rows: list[tuple[str, dict[str, float]]]) -> str:
    top = max(float(r.get("cost_usd", 0)) for _, r in rows) or 1.0
    width = int(120 * float(row.get("cost_usd", 0)) / top)
    return f"<svg width='120' height='10'><rect width='{width}' height='10' fill='#4a7'/></svg>"


def _results(results: Path) -> Iterator[dict[str, Any]]:
    for path in sorted(results.glob("*-result.json")):
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if isinstance(data, dict):
            yield data


def _attachments(node: dict[str, Any]) -> Iterator[dict[str, Any]]:
    yield from node.get("attachments", [])
    for step in node.get("steps", []):
        yield from _attachments(step)


def _usage(results: Path, result: dict[str, Any]) -> dict[str, Any]:
    for att in _attachments(result):
        if att.get("name") == USAGE_ATTACHMENT:
            try:
                data = json.loads((results / att["source"]).read_text(encoding="utf-8"))
            except (OSError, ValueError, KeyError):
                return {}
            return data if isinstance(data, dict) else {}
    return {}


def _key(results: Path) -> str:
    ids = sorted(p.name for p in results.glob("*-result.json"))
    return hashlib.sha256("\n".join(ids).encode()).hexdigest()[:16]
