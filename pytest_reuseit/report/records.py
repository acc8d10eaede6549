"""The run record: one workflow run as the nightly history keeps it (docs/monitoring.md).

The plugin writes one record per run into the Allure results folder
(``reuseit-run-<sha1(node id)[:16]>.json``: Allure 2 reads only ``*-result.json``,
``*-container.json`` and attachments it is pointed to, so it ignores these), and ``reuseit report``
reads them all back to append one run of the suite to the history. Every string in a record comes
from the run's result, which is already masked: a record adds nothing of its own.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import re
import sys
from pathlib import Path
from typing import Any

from ..atomic import write_text_atomic
from ..engine.analysis import failing_verdict
from ..engine.result import ProvenEdit, RunResult, StepResult, Verdict

FORMAT = 1
PREFIX = "reuseit-run-"
SUFFIX = ".json"
# What a run's status counts as: a pass (the checks held, with or without help) or a failure.
PASSING = ("passed", "recovered", "healed")
FAILING = ("failed", "broken")

# A locator as ops and checks describe it: role='button'[name='Add'] >> text='x', css='#id'...
_LOCATOR = re.compile(r"(?:frame )?\b(?:role|text|label|placeholder|alt|title|test_id|css|xpath)=.+$")


def file_name(test: str) -> str:
    return f"{PREFIX}{hashlib.sha1(test.encode()).hexdigest()[:16]}{SUFFIX}"


def first_line(text: str) -> str:
    return next((line.strip() for line in text.splitlines() if line.strip()), "")


def record_of(result: RunResult, test: str) -> dict[str, Any]:
    """The record of ``result``, the run of the pytest item ``test`` (its node id)."""
    failing = _failing_step(result)
    verdict = _failing_verdict(result, failing)
    locator = ""
    if failing is not None and result.failed_phase == "action":
        locator = _op_locator(failing)
    if not locator and verdict is not None:
        locator = _check_target(verdict.check)
    usage = result.usage
    return {
        "format": FORMAT,
        "test": test,
        "workflow": result.file,
        "variation": result.variation,
        "name": result.workflow,
        "status": result.label,
        "started": result.started,
        "duration": round(result.duration, 3),
        "step": result.failed_step,
        "action": failing.action if failing is not None else "",
        "phase": result.failed_phase or "",
        "check": verdict.check if verdict is not None else "",
        "locator": locator,
        "expected": verdict.expected if verdict is not None else "",
        "actual": verdict.actual if verdict is not None else "",
        "error": first_line(result.message),
        "category": result.analysis.category if result.analysis is not None else "",
        "infrastructure": first_line(result.infrastructure),
        "recovered": _recovered(result),
        "usage": {
            "calls": usage.calls,
            "cache_hits": usage.cache_hits,
            "tokens": usage.prompt_tokens + usage.completion_tokens,
            "cost": round(usage.cost, 6),
        },
        "steps": _start(result) + [_step(s) for s in result.steps],
        "changed": result.changed,
        # What that comparison proves the file should say now (engine/proven.py): the report names
        # `reuseit heal` for each cause that has one.
        "proven": [proven_entry(e) for e in result.proven],
    }


def proven_entry(edit: ProvenEdit) -> dict[str, Any]:
    """A proven edit as records and healing.json keep it (``origin: history`` tells it from an
    agent's healed locator there)."""
    return {"origin": "history", **dataclasses.asdict(edit)}


def _step(step: StepResult) -> dict[str, Any]:
    return {
        "index": step.index,
        "action": step.action,
        "status": step.status,
        "duration": round(step.duration, 3),
        # The page after the step ("" when not taken).
        "url": step.page_url,
        "title": step.page_title,
        "aria": step.page_aria,
        "screenshot": (step.after.path or "") if step.after is not None else "",
    }


def _start(result: RunResult) -> list[dict[str, Any]]:
    """The page once start_url opened, as a step 0: a later run whose step 1 fails on its action
    (the page still as before it) is compared with it."""
    if not result.start_page_aria:
        return []
    # Step 1's picture before its action is this page (after step 1's pre checks, if any).
    before = result.steps[0].before if result.steps else None
    return [
        {
            "index": 0,
            "action": "open start_url",
            "status": "passed",
            "duration": 0.0,
            "url": result.start_page_url,
            "title": result.start_page_title,
            "aria": result.start_page_aria,
            "screenshot": (before.path or "") if before is not None else "",
        }
    ]


def _failing_step(result: RunResult) -> StepResult | None:
    if result.failed_step is None:
        return None
    return next((s for s in result.steps if s.index == result.failed_step), None)


def _failing_verdict(result: RunResult, step: StepResult | None) -> Verdict | None:
    """The check that still failed: the outcome's, or the failing step's (engine/analysis.py)."""
    if result.failed_phase == "outcome":
        return next((v for v in result.outcome if v.ok is False), None)
    if step is None or result.failed_phase not in ("pre", "post"):
        return None
    return failing_verdict(step, result.failed_phase)


def _op_locator(step: StepResult) -> str:
    """The locator of the step's own op that failed (``click role='button'[name='Go']``)."""
    failed = next((a for a in reversed(step.actions) if not a.ok and a.by != "fallback"), None)
    if failed is None:
        return ""
    if failed.locator:
        return failed.locator
    return _check_target(failed.description) or failed.description


def _check_target(words: str) -> str:
    """The element a check or an op names (``visible role='button'[name='Go']`` -> the locator)."""
    found = _LOCATOR.search(words)
    if found is None:
        return ""
    # Modifiers an op description ends with (``(new page)``, ``value='x'``) are not the element.
    return re.sub(r"\s+\(.*\)$", "", found.group(0)).strip()


def _recovered(result: RunResult) -> list[dict[str, Any]]:
    """Which step got past its trouble, and what got it past: a fallback or a healed locator."""
    out: list[dict[str, Any]] = []
    for step in result.steps:
        if step.status not in ("recovered", "healed"):
            continue
        helped = next((a.fallback for a in reversed(step.attempts) if a.ok), "")
        if step.status == "healed" or not helped:
            healing = next((h for h in result.healing if h.step == step.index), None)
            if healing is not None:
                helped = f"healed: {healing.replacement} (was {healing.broken})"
        if not helped and any(v.stale for v in step.pre + step.post):
            helped = "a promoted assertion out of date, judged met"
        out.append({"step": step.index, "action": step.action, "fallback": helped})
    return out


def write(results_dir: str | Path, record: dict[str, Any]) -> Path:
    """Write ``record`` into the results folder at once (a reader never sees half of it)."""
    path = Path(results_dir) / file_name(str(record["test"]))
    write_text_atomic(path, json.dumps(record, ensure_ascii=False, indent=None, separators=(",", ":")))
    return path


def read_all(results_dir: str | Path) -> list[dict[str, Any]]:
    """Every run record of the folder, by test id; an unreadable one is skipped with a warning."""
    records: list[dict[str, Any]] = []
    for path in sorted(Path(results_dir).glob(f"{PREFIX}*{SUFFIX}")):
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            print(f"warning: {path}: not a readable run record ({first_line(str(exc))}): skipped", file=sys.stderr)
            continue
        if not isinstance(data, dict) or not isinstance(data.get("test"), str) or "status" not in data:
            print(f"warning: {path}: not a run record: skipped", file=sys.stderr)
            continue
        if not isinstance(data.get("format", 1), int) or data.get("format", 1) > FORMAT:
            print(f"warning: {path}: a run record of another format ({data.get('format')!r}): skipped", file=sys.stderr)
            continue
        records.append(data)
    records.sort(key=lambda r: str(r["test"]))
    return records
