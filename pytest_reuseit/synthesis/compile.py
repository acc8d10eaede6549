"""Compile: where the successful runs agree on the concrete actions of a step, emit ``do:`` ops.

An agent action becomes an op when its locator is stable (a role/name selector, not a
per-snapshot ``aria-ref``). What the agent typed, pressed or answered is written as a literal
(braces doubled: the one writer's rule, ``workflow/writer.py``). Parameter values in typed text and in locator names are replaced by
``{name}``, so runs of different variations that did "the same thing" compare equal and the op
replays for every variation without a model while the site has not changed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from ..workflow.writer import literal
from .explore import RecordedAction, RunRecord

_EVIDENCE = re.compile(r"^\s*(?P<run>[A-Za-z0-9_.-]+)\s*:\s*(?P<nums>[\d,\s]+)\s*$")


@dataclass(frozen=True)
class Evidence:
    run: str
    actions: tuple[int, ...]


def parse_evidence(items: list[str]) -> list[Evidence]:
    out = []
    for item in items:
        m = _EVIDENCE.match(item)
        if m:
            nums = tuple(int(n) for n in re.findall(r"\d+", m.group("nums")))
            if nums:
                out.append(Evidence(m.group("run"), nums))
    return out


def templated(text: str, params: dict[str, str]) -> str:
    """``text`` with parameter values written as ``{name}`` (longest values first)."""
    out = literal(text)
    for name, value in sorted(params.items(), key=lambda kv: -len(kv[1])):
        if value and len(value) >= 2:
            out = out.replace(literal(value), "{" + name + "}")
    return out


def op_for(action: RecordedAction, params: dict[str, str]) -> Any:
    """The op replaying one agent action, or None when it cannot be replayed without the agent.

    A click that opened a pop-up or tab gets ``new_page: true``, as the agent followed it."""
    op = _op_for(action, params)
    if isinstance(op, dict) and action.opened_page:
        op["new_page"] = True
    return op


def _op_for(action: RecordedAction, params: dict[str, str]) -> Any:
    loc = action.locator
    stable = bool(loc) and not loc.startswith("aria-ref=")
    if action.action in ("click", "hover") and stable:
        return {action.action: templated(loc, params)}
    if action.action == "fill" and stable:
        return {"fill": {"selector": templated(loc, params), "value": templated(action.value, params)}}
    if action.action in ("check", "uncheck") and stable:
        return {action.action: templated(loc, params)}
    if action.action == "select" and stable:
        return {"select": {"selector": templated(loc, params), "option": templated(action.value, params)}}
    if action.action == "press":
        if stable:
            return {"press": {"selector": templated(loc, params), "key": literal(action.value)}}
        return {"press": literal(action.value)} if not action.element else None
    if action.action == "scroll":
        try:
            return {"scroll": {"by": int(float(action.value or 600))}}
        except ValueError:
            return None
    if action.action == "wait":
        try:
            return {"wait": int(float(action.value or 1000))}
        except ValueError:
            return None
    if action.action == "goto" and action.value:
        return {"goto": templated(action.value, params)}
    return _page_op(action, params, stable)


def _page_op(action: RecordedAction, params: dict[str, str], stable: bool) -> Any:
    """The page, history and file actions: the ops of the same names."""
    if action.action in ("back", "forward", "reload", "close_page"):
        return action.action  # a bare word
    if action.action == "switch_page" and action.value:
        value = action.value.strip()
        if value in ("main", "last"):
            return {"switch_page": value}
        return {"switch_page": int(value)} if value.isdigit() else {"switch_page": {"url": templated(value, params)}}
    if action.action == "upload" and stable:
        return {"upload": {"selector": templated(action.locator, params), "files": literal(action.value)}}
    return None


def _dialog_answer(value: str) -> Any:
    accept, _, text = value.partition(":")
    if accept.strip().lower() != "accept":
        return "dismiss"
    return {"accept": True, "text": literal(text.strip())} if text.strip() else "accept"


# A click on an option of a list box, by its stable locator: role=option[name="France"].
_OPTION = re.compile(r"""^role=option\[name=(["'])(?P<name>.*)\1\]$""")


def fold_option_clicks(ops: list[Any]) -> list[Any]:
    """A click that opened a dropdown followed by clicks on its options is one ``select`` (a
    list when several were clicked): the op a person means, which works however the library draws
    the list, not a click on an option that exists only while the list is open."""
    out: list[Any] = []
    for op in ops:
        option = (
            _OPTION.match(op["click"])
            if isinstance(op, dict) and isinstance(op.get("click"), str) and len(op) == 1
            else None
        )
        if option is None or not out:
            out.append(op)
            continue
        last = out[-1]
        if (
            isinstance(last, dict)
            and len(last) == 1
            and isinstance(last.get("click"), str)
            and not _OPTION.match(last["click"])
        ):
            out[-1] = {"select": {"selector": last["click"], "option": option.group("name")}}
        elif isinstance(last, dict) and "select" in last:
            chosen = last["select"]["option"]
            last["select"]["option"] = [*(chosen if isinstance(chosen, list) else [chosen]), option.group("name")]
        else:
            out.append(op)
    return out


def compile_step(evidence: list[Evidence], runs: dict[str, RunRecord]) -> tuple[list[dict[str, Any]] | None, list[str]]:
    """The ops all successful runs with evidence agree on, and the runs they come from; None if they disagree."""
    candidates: list[tuple[str, list[dict[str, Any]]]] = []
    for ev in evidence:
        run = runs.get(ev.run)
        if run is None or not run.success:
            continue
        by_n = {a.n: a for a in run.actions}
        ops: list[Any] = []
        dialog: Any = None
        for n in ev.actions:
            act = by_n.get(n)
            if act is None or not act.ok:
                continue  # a failed attempt inside a successful run is not part of the recipe
            if act.action == "dialog":  # how the next action's dialogs were answered: that op's modifier
                dialog = _dialog_answer(act.value)
                continue
            op = op_for(act, run.params)
            if op is None:
                return None, []
            if dialog is not None:
                op = {op: True, "dialog": dialog} if isinstance(op, str) else {**op, "dialog": dialog}
                dialog = None
            ops.append(op)
        if ops:
            candidates.append((run.run_id, fold_option_clicks(ops)))
    if not candidates:
        return None, []
    first = candidates[0][1]
    if any(ops != first for _, ops in candidates[1:]):
        return None, [r for r, _ in candidates]
    return first, [r for r, _ in candidates]
