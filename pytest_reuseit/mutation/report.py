"""The mutation report: the terminal table, a suggested check for each survivor, and the JSON
report in Stryker's open mutation-testing report schema (schemaVersion 2: the workflow file is the
source file, each mutant sits at its step's line), so existing viewers render it. What that schema
cannot hold (benign mutants, localisation, healed around, the runs) is under ``reuseit``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import yaml

from ..browser.aria import aria_line_check, diff_lines
from . import operators
from .incremental import identity as incremental_identity
from .operators import Target
from .outcome import MutantResult, Summary
from .touches import RunTouches, StepState

_STRYKER_STATUS = {
    "killed": "Killed",
    "survived": "Survived",
    "healed around": "Survived",
    "broken": "RuntimeError",
    "timeout": "Timeout",
    "not applied": "Ignored",
    "not run": "Ignored",
    "ignored": "Ignored",
}
_SHORT_LINE = 80


def _flow(value: Any) -> str:
    """A YAML flow value: JSON is valid YAML, and keeps quotes where a string needs them."""
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {_flow(v)}" for k, v in value.items()) + "}"
    if isinstance(value, str) and value and all(c.isalnum() or c in " ._-#/" for c in value) and value[0].isalpha():
        return value
    return json.dumps(value)


def _new_lines(before: str, after: str) -> list[str]:
    seen = {line.strip() for line in before.splitlines()}
    return [
        line.strip()
        for line in after.splitlines()
        if line.strip() and line.strip() not in seen and len(line.strip()) <= _SHORT_LINE
    ]


def _words_of(text: str) -> set[str]:
    return {w.lower() for w in re.findall(r"[A-Za-z]{3,}", text)}


def _pick_line(lines: list[str], action: str, *, about_action: bool) -> str:
    """A new line of text to check: one sharing words with the step's action for a fault in the
    action, one that does not for a fault elsewhere (a request the page made on its own)."""
    words = _words_of(action)
    related = [line for line in lines if _words_of(line) & words]
    others = [line for line in lines if line not in related]
    preferred = related if about_action else others
    return (preferred or lines)[0]


def suggestion(result: MutantResult, run: RunTouches | None, existing: frozenset[str] = frozenset()) -> str:
    """What no check covers, and a check in the file's own syntax that would catch it: every
    value from the clean run, never a check the file already has (``existing``, file_checks)."""
    t = result.mutant.target
    if result.outcome == "healed around":
        return _healed(t)
    if t.what == "check":
        return _tighter_check(t, existing)
    if run is None:
        return ""

    def new(key: str, arg: Any) -> bool:
        return _normal(key, arg) not in existing

    if t.what == "storage":
        return _reload_step(run, new)
    if t.what == "request":
        seen = _request_effect(result, run, new)
        if seen is not None:
            return seen
    state = run.step_state(t.step) if t.step is not None else None
    if state is None:
        return "no step checks what this changes; add a post check to the step that uses it"
    return _step_change(t, state, new)


def _step_change(t: Target, state: StepState, new: Callable[[str, Any], bool]) -> str:
    """A check of what the step changed in the clean run: where it led, or a line it showed."""
    where = f"step {state.step + 1} (line {state.line}, '{state.action}')"
    before, after = urlsplit(state.url_before), urlsplit(state.url_after)
    if state.url_after and (before.path, before.fragment) != (after.path, after.fragment):
        part = after.fragment and f"#{after.fragment}" or after.path
        if new("url", {"contains": part}):
            return (
                f"nothing checks where {where} leads; add under its post:\n"
                f"  - expect: {{url: {{contains: {_flow(part)}}}}}"
            )
    if t.what == "request" and state.step == 0:
        # Made while the start page loaded: what it brought was there before the first action, so
        # the text that appeared after it says nothing about this request.
        return (
            f"nothing checks what {t.locator} brings to the start page; add a check of what it shows "
            f"(a heading, a list, a count) under the pre checks of {where}"
        )
    lines = [line for line in _new_lines(state.text_before, state.text_after) if new("visible", {"text": line})]
    if lines:
        line = _pick_line(lines, state.action, about_action=t.what == "op")
        what = f"what {t.locator} brings to the page" if t.what == "request" else f"what {where} changes on the page"
        return (
            f"nothing checks {what}; add under the post of {where}:\n  - expect: {{visible: {{text: {_flow(line)}}}}}"
        )
    return f"{where} showed no new text or address in the clean run; check what it should change (a count, a value)"


def _healed(t: Target) -> str:
    at = f"step {t.step + 1}" if t.step is not None else "the run"
    return (
        f"{at} passed only through its fallback: a user would have met this fault. Run CI with "
        "--reuseit-strict (a recovered run fails), or remove the fallback if what it walks around must not happen"
    )


def _reload_step(run: RunTouches, new: Callable[[str, Any], bool]) -> str:
    """Storage writes dropped: a last step that reloads and looks for what the last step showed."""
    last = run.steps[-1] if run.steps else None
    shown = _new_lines(last.text_before, last.text_after) if last else []
    lines = [line for line in shown if new("visible", {"text": line})]
    if not lines:
        return (
            "nothing reloads the page to see that what the workflow saved is kept; add a last step that "
            "reloads the page (do: [reload]) and checks that what the workflow saved is still shown"
        )
    return (
        "nothing reloads the page to see that what the workflow saved is kept; add a last step:\n"
        f"  - action: Reload the page; the data is still there\n    do: [reload]\n"
        f"    post: [{{expect: {{visible: {{text: {_flow(lines[0])}}}}}}}]"
    )


def _request_effect(result: MutantResult, run: RunTouches, new: Callable[[str, Any], bool]) -> str | None:
    """Compare the page, step by step, as its accessibility tree saw it in the clean run and under
    the request's fault: the same at every step says the fault had no visible effect; else a check
    of the first thing that left the page. None when the runs kept no such look."""
    t = result.mutant.target
    arias = {int(k): str(v) for k, v in dict(result.verdict.get("aria") or {}).items()}
    compared = 0
    for state in run.steps:
        if (t.step is not None and state.step < t.step) or not state.aria or not arias.get(state.step):
            continue
        compared += 1
        left, _ = diff_lines(state.aria, arias[state.step])
        checks = [c for c in (aria_line_check(line) for line in left) if c is not None and new("visible", c)]
        named = [c for c in checks if "role" in c] or checks
        if named:
            return (
                f"under the fault, the page lacked what this checks at the end of step {state.step + 1} "
                f"(line {state.line}, '{state.action}'), and no check looks at it; add under its post:\n"
                f"  - expect: {{visible: {_flow(named[0])}}}"
            )
        if left:
            return None  # it changed, though in nothing a check could name: say what the text shows
    if compared == 0:
        return None
    return (
        f"no visible effect: the page looked the same to its accessibility tree as in the clean run at the end of "
        f"every step from step {(t.step or 0) + 1} on; check what {t.locator} loads, or ignore it "
        f"(mutation: ignore in the workflow file, docs/mutation.md)"
    )


def _tighter_check(t: Target, existing: frozenset[str] = frozenset()) -> str:
    text = str(t.detail.get("text", "")).strip()
    loc = dict(t.detail.get("loc") or {})
    exact = t.detail.get("matcher") == "equals"
    if exact:
        # An exact check that read the fault would have failed: it did not read it changed.
        return (
            f"the check at line {t.line} already compares exactly; the fault did not change what it read "
            f"({t.locator}): check what the fault changes instead"
        )
    if t.key == "count":
        count = t.detail.get("count")
        if not isinstance(count, int):
            return f"the count at line {t.line} allows one more; give it equals: the number the clean run showed"
        if _normal("count", {**loc, "equals": count}) in existing:
            return f"the count at line {t.line} allows one more; the file compares the same count exactly elsewhere"
        return (
            f"the count at line {t.line} allows one more (the clean run showed {count}); give it equals:\n"
            f"  - expect: {{count: {_flow({**loc, 'equals': count})}}}"
        )
    if not text:
        return f"the check at line {t.line} does not notice the change; compare its text exactly"
    if t.key == "title":
        return f"the check at line {t.line} reads the title loosely; make it exact:\n  - expect: {{title: {{equals: {_flow(text)}}}}}"
    key = "value" if t.key == "value" else "text"
    if _normal(key, {**loc, "equals": text}) in existing:
        return f"the check at line {t.line} compares loosely; the file compares the same text exactly elsewhere"
    return (
        f"the check at line {t.line} does not notice when the text changes; compare it exactly:\n"
        f"  - expect: {{{key}: {_flow({**loc, 'equals': text})}}}"
    )


def _normal(key: str, arg: Any) -> str:
    """One form for a check written in the file and one suggested: a bare url is 'contains'."""
    if key == "url" and isinstance(arg, str):
        arg = {"contains": arg}
    return json.dumps([key, arg], sort_keys=True, default=str)


def file_checks(source: str) -> frozenset[str]:
    """Every DOM assertion of a workflow file (each key of each ``expect``), in ``_normal`` form."""
    try:
        data = yaml.safe_load(source)
    except yaml.YAMLError:
        return frozenset()
    out: set[str] = set()

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            expect = node.get("expect")
            for e in expect if isinstance(expect, list) else [expect]:
                if isinstance(e, dict):
                    out.update(_normal(str(k), v) for k, v in e.items())
            for v in node.values():
                walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)

    walk(data)
    return frozenset(out)


def _without_looks(verdict: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in verdict.items() if k != "aria"}


def _not_applied_why(r: MutantResult) -> str:
    why = str(r.verdict.get("why", ""))
    if why:
        return why
    if r.verdict.get("status") in ("failed", "broken"):
        return f"the run stopped before it reached the fault: {r.verdict.get('message', '')}".rstrip(": ")
    return "the fault could not be placed"


def _line_of(t: Target, run: RunTouches | None) -> int:
    if t.line:
        return t.line
    state = run.step_state(t.step) if run is not None and t.step is not None else None
    return state.line if state is not None else 1


def _record(r: MutantResult, run: RunTouches | None, existing: frozenset[str] = frozenset()) -> dict[str, Any]:
    t = r.mutant.target
    out: dict[str, Any] = {
        "id": r.mutant.id,
        "kind": r.mutant.kind,
        "operator": r.mutant.operator,
        "description": operators.get(r.mutant.operator).description if r.mutant.operator in operators.names() else "",
        "outcome": r.outcome,
        "target": {
            "file": r.mutant.file,
            "line": _line_of(t, run),
            "step": t.step + 1 if t.step is not None else None,
            "what": t.what,
            "op_or_check": t.key,
            "phase": t.phase,
            "locator": t.locator,
        },
        # The pages' looks (a request's fault) made the suggestion; they are no part of the report.
        "run": {"nodeid": r.mutant.nodeid, **_without_looks(r.verdict)},
        "runs": [_without_looks(x) for x in r.tries],
    }
    if r.localised is not None:
        out["localised"] = r.localised
    if r.outcome in ("survived", "healed around"):
        kept = (r.kept or {}).get("suggestion") if r.reused else None
        out["suggestion"] = kept or suggestion(r, run, existing)
    if r.outcome == "not applied":
        out["why"] = _not_applied_why(r)
    if r.outcome == "ignored":
        out["why"] = f"ignored: {r.mutant.ignored}"
    if r.basis:
        out["incremental"] = {"identity": incremental_identity(r.mutant), "basis": r.basis}
        out["reused"] = r.reused
    return out


def build(
    results: list[MutantResult],
    summary: Summary,
    runs: list[RunTouches],
    root: Path,
    *,
    not_clean: list[dict[str, Any]],
    thresholds: dict[str, int],
) -> dict[str, Any]:
    by_nodeid = {r.nodeid: r for r in runs}
    sources: dict[str, str] = {}
    for r in results:
        if r.mutant.file not in sources:
            try:
                sources[r.mutant.file] = (root / r.mutant.file).read_text(encoding="utf-8")
            except OSError:
                sources[r.mutant.file] = ""
    checks = {file: file_checks(source) for file, source in sources.items()}
    files: dict[str, Any] = {}
    for r in results:
        if r.mutant.kind != "breaking":
            continue
        entry = files.get(r.mutant.file)
        if entry is None:
            entry = files[r.mutant.file] = {"language": "yaml", "source": sources[r.mutant.file], "mutants": []}
        line = _line_of(r.mutant.target, by_nodeid.get(r.mutant.nodeid))
        entry["mutants"].append(
            {
                "id": r.mutant.id,
                "mutatorName": r.mutant.operator,
                "description": f"{operators.get(r.mutant.operator).description}: {r.mutant.target.locator}"
                if r.mutant.operator in operators.names()
                else r.mutant.target.locator,
                "replacement": r.mutant.target.locator,
                "location": {"start": {"line": line, "column": 1}, "end": {"line": line, "column": 2}},
                "status": _STRYKER_STATUS[r.outcome],
                "statusReason": (_not_applied_why(r) if r.outcome == "not applied" else "")
                or (f"ignored: {r.mutant.ignored}" if r.outcome == "ignored" else "")
                or str(r.verdict.get("message", ""))
                or r.outcome,
                "killedBy": [r.mutant.nodeid] if r.outcome == "killed" else [],
                "coveredBy": [nodeid for _, nodeid, _ in r.mutant.covering] or [r.mutant.nodeid],
            }
        )
    return {
        "$schema": "https://git.io/mutation-testing-schema",
        "schemaVersion": "2",
        "thresholds": thresholds,
        "projectRoot": ".",
        "files": files,
        "reuseit": {
            "summary": summary.to_json(),
            "summary_line": summary.line(),
            "mutants": [_record(r, by_nodeid.get(r.mutant.nodeid), checks[r.mutant.file]) for r in results],
            "not_clean": not_clean,
            # What each mutant's run time compares with: its workflow run's, clean, in this command.
            "clean_runs": [{"nodeid": r.nodeid, "status": r.status, "duration": r.duration} for r in runs],
        },
    }


def write(report: dict[str, Any], path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(report, indent=1), encoding="utf-8")
    tmp.replace(path)


def _pct(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.1f}%"


def table(results: list[MutantResult]) -> Iterator[str]:
    """One row per operator, then what to act on: survivors with their suggestion, false alarms."""
    yield f"{'operator':<20} {'kind':<9} {'mutants':>7} {'killed':>6} {'survived':>8} {'healed':>6} {'broken':>6} {'timeout':>7} {'n/a':>4} {'ignored':>7}  score / false alarms"
    for name in dict.fromkeys(r.mutant.operator for r in results):
        rs = [r for r in results if r.mutant.operator == name]
        count = {o: sum(r.outcome == o for r in rs) for o in {r.outcome for r in rs}}
        kind = rs[0].mutant.kind
        na = count.get("not applied", 0) + count.get("not run", 0)
        ign = count.get("ignored", 0)
        if kind == "benign":
            alarms = count.get("false alarm", 0)
            yield f"{name:<20} {kind:<9} {len(rs):>7} {'':>6} {'':>8} {'':>6} {'':>6} {'':>7} {na:>4} {ign:>7}  {alarms} false alarm(s)"
            continue
        killed, survived = count.get("killed", 0), count.get("survived", 0) + count.get("healed around", 0)
        score = _pct(100.0 * killed / (killed + survived) if killed + survived else None)
        yield (
            f"{name:<20} {kind:<9} {len(rs):>7} {killed:>6} {survived:>8} {count.get('healed around', 0):>6} "
            f"{count.get('broken', 0):>6} {count.get('timeout', 0):>7} {na:>4} {ign:>7}  {score}"
        )


def details(report: dict[str, Any]) -> Iterator[str]:
    """The mutants a reader must act on, each with where it is and what to do."""
    mutants = report["reuseit"]["mutants"]
    for title, outcomes in (
        ("HEALED AROUND A REGRESSION (passed only by a fallback, healing or the agent)", ("healed around",)),
        ("SURVIVED (no check noticed)", ("survived",)),
        ("FALSE ALARM (a harmless change failed the run)", ("false alarm",)),
        ("BROKEN (no verdict)", ("broken", "timeout")),
        ("NOT APPLIED (the run says nothing about the fault)", ("not applied",)),
        ("IGNORED (by a rule, out of the score)", ("ignored",)),
    ):
        # Benign mutants not applied are no news (a page with nothing to reorder).
        chosen = [
            m
            for m in mutants
            if m["outcome"] in outcomes and not (m["kind"] == "benign" and m["outcome"] == "not applied")
        ]
        if not chosen:
            continue
        yield ""
        yield f"{title}: {len(chosen)}"
        for m in chosen:
            t = m["target"]
            where = f"{t['file']}:{t['line']}" + (f" step {t['step']}" if t["step"] else "")
            yield f"  {m['id']} {m['operator']} on {t['locator']} ({where}): {m['description']}"
            if m["outcome"] in ("false alarm", "broken", "timeout") and m["run"].get("message"):
                yield f"      {m['run']['status']}: {m['run']['message']}"
            if m.get("why"):
                yield f"      {m['why']}"
            for line in str(m.get("suggestion", "")).splitlines():
                yield f"      {line}"
    for run in report["reuseit"]["not_clean"]:
        yield f"NOT CLEAN {run['nodeid']}: {run['status']} (left out: a workflow must pass before its mutants mean anything)"
