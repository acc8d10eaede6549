"""Edits of a workflow file that a failure's comparison with its last pass proves, without a model.

A run that fails where it passed before knows which lines of the page's accessibility tree left
and which appeared since (``RunResult.changed``, browser/aria.py compare). Two such changes say
exactly what the file should say now, and they are the ones a team meets most mornings:

- the element an op looked for by role and name (or by its label) left the page, and exactly one
  element of its role appeared: it was renamed. The edit is the op's new name.
- an op's click was refused because a dialog that the last pass did not see lies over the page
  ("... intercepts pointer events"): the edit is a fallback that dismisses the dialog by its own
  button and does the action again. Never a click through it (``force``), never a coordinate.
  An overlay without a dialog's role has no edges on the page's tree: its button is one of the
  buttons new since the last pass, and only its words (close, no thanks, accept...) prove which.

A check that no longer holds is never edited: what it expects is what the site must do, and the
change is the possible regression. It is listed (``kind="check"``) so that a person sees it
beside the edits, with what the page shows now. Anything less certain proves nothing: the
analysis' words are all it gets.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import replace
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from ..browser.aria import HIDDEN, renamed, role_names
from ..errors import PlaceholderError
from ..workflow.loader import LoadedWorkflow
from ..workflow.locators import Locator
from ..workflow.placeholders import Values, names_in
from ..workflow.steps import Step
from ..workflow.writer import literal
from .analysis import failing_verdict
from .result import ProvenEdit, RunResult, StepResult, Verdict
from .uses import elements, failing_op_locator, uses, written_locator

DIALOG_ROLES = ("dialog", "alertdialog")
# The roles a label names (``{label: Email}`` finds the field whose accessible name it is).
FIELD_ROLES = ("textbox", "searchbox", "combobox", "spinbutton", "checkbox", "radio", "slider", "switch", "listbox")
# Playwright's words when another element lies over the one a click aims at.
INTERCEPTS = "intercepts pointer events"
# The button that closes what it sits in, by its words: the plainest first. A dialog whose buttons
# match none of these, or several of one kind, proves no fallback.
_DISMISS = (
    re.compile(r"^(close|dismiss|×|✕|x)\b", re.I),
    re.compile(r"^(no,? thanks?|not now|maybe later|later|skip|got it|ok|okay|continue)\b", re.I),
    re.compile(r"^(accept|agree|i agree|allow)\b", re.I),
    re.compile(r"^(reject|decline|deny|refuse)\b", re.I),
)
# The element Playwright names as lying over the target, and the element whose subtree it is:
# "<p>Join</p> from <div id="promo" class="overlay">…</div> subtree intercepts pointer events".
_COVERING = re.compile(
    r"(<[^<>]*>[^<>]{0,80}(?:</[\w-]+>)?)(?: from (<[^<>]*>[^<>]{0,80}(?:</[\w-]+>)?) subtree)? " + INTERCEPTS
)
# One line of an ARIA snapshot: its indentation, role and (quoted) name.
_NODE = re.compile(r'^(?P<indent>\s*)- (?P<role>[\w-]+)(?: "(?P<name>(?:[^"\\]|\\.)*)")?')


def prove(result: RunResult, loaded: LoadedWorkflow, values: Values) -> list[ProvenEdit]:
    """What ``result``'s comparison with its last pass proves about the file (see the module)."""
    edits = _prove(result, loaded, values)
    site = _site(values)
    for edit in edits:  # its parts come from the masked result; a rendered name is masked too
        edit.summary = values.mask(edit.summary)
        edit.base_url = site
    return edits


def _site(values: Values) -> str:
    """The run's base URL, for ``reuseit heal --verify``; without the user and password an
    address may carry (those are given again with --base-url, never written into a file)."""
    url = str(values.builtins.get("base_url") or "")
    try:
        parts = urlsplit(url)
        host, port = parts.hostname or "", parts.port
    except ValueError:
        return ""
    if "@" in parts.netloc:
        parts = parts._replace(netloc=host + (f":{port}" if port else ""))
    return values.mask(urlunsplit(parts))


def _prove(result: RunResult, loaded: LoadedWorkflow, values: Values) -> list[ProvenEdit]:
    changed = result.changed
    if result.status != "failed" or not changed or result.failed_phase is None:
        return []
    if result.failed_phase == "outcome":
        bad = next((v for v in result.outcome if v.ok is False), None)
        step_no = result.steps[-1].index if result.steps else 0
        where: dict[str, Any] = {"file": loaded.source.path, "step": step_no, "digest": loaded.source.digest}
        return [_check(bad, step_no, "outcome", changed, {**where, "line": bad.line})] if bad is not None else []
    if result.failed_step is None:
        return []
    i = result.failed_step - 1
    sr = next((s for s in result.steps if s.index == result.failed_step), None)
    if sr is None or i >= len(loaded.workflow.steps):
        return []
    origin = loaded.origin(i)
    if origin.index < 0:
        return []
    # The step as its own file numbers it: a used file's, or the workflow's own after a use step.
    where = {"file": origin.file, "step": origin.index + 1, "digest": origin.digest}
    if result.failed_phase in ("pre", "post"):
        bad = failing_verdict(sr, result.failed_phase)
        if bad is None:
            return []
        return [_check(bad, sr.index, result.failed_phase, changed, {**where, "line": bad.line})]
    if result.failed_phase != "action":
        return []
    edit = _action_edit(loaded, i, sr, values, changed)
    if edit is None:
        return []
    proven = ProvenEdit(**where, **edit)
    return [proven, *_other_uses(loaded, i, proven)] if proven.kind == "locator" else [proven]


def _other_uses(loaded: LoadedWorkflow, i: int, proven: ProvenEdit) -> list[ProvenEdit]:
    """The same rename at every other place of the run's files that names the element as the
    failing op does (engine/uses.py), reached or not; the checks that name it, as possible
    regressions (listed, never edited)."""
    loc = failing_op_locator(loaded, i, proven.op_index, proven.part)
    if loc is None:
        return []
    ops, checks = uses(loaded, loc)
    me = (proven.file, proven.step - 1, -1, proven.op_index, "", proven.part)
    out = [
        replace(proven, file=p.file, step=p.step + 1, line=p.line, digest=p.digest, op_index=p.op_index,
                fallback=p.fallback, reached=False, part=p.part)
        for p in ops
        if p.key != me
    ]  # fmt: skip
    renamed_to = proven.summary.split(" renamed ", 1)
    for p in checks:
        out.append(
            replace(
                proven,
                kind="check",
                file=p.file,
                step=p.step + 1,
                line=p.line,
                digest=p.digest,
                op_index=-1,
                reached=False,
                summary=f"step {p.step + 1} {p.check} names the {renamed_to[0]}, renamed {renamed_to[-1]}",
                old=proven.old,
                new=proven.new,
            )
        )
    return out


def _action_edit(
    loaded: LoadedWorkflow, i: int, sr: StepResult, values: Values, changed: Mapping[str, Any]
) -> dict[str, Any] | None:
    """The fields of the edit a failed op proves (a dialog to dismiss, a renamed element), or None."""
    step = loaded.workflow.steps[i]
    found = _failed_op(sr)
    if found is None or step.do is None or found[0] >= len(step.do):
        return None
    j, error = found
    overlay = _overlay(step, sr, error, changed)
    if overlay is not None:
        summary, fallback, key = overlay
        line = loaded.source.line("steps", i, "fallback") if step.fallback else loaded.source.line("steps", i)
        return {
            "kind": "fallback",
            "line": line,
            "summary": summary,
            "cause": key,
            "new": fallback,
            **_evidence(changed),
        }
    arg = step.do[j].arg
    if not isinstance(arg, Locator):
        return None
    # The op's own element, then a drag's drop target: the one whose name left the page is proven.
    for part, loc in elements(arg):
        if loaded.origin(i).group and not _written_as_run(loaded.origin(i).written, j, loc, part):
            continue  # the using file filled the used file's placeholders: an edit of its words is not known
        edit = _renamed_op(loc, values, changed, sr.page_aria)
        if edit is None:
            continue
        summary, old, new, key = edit
        return {
            "kind": "locator",
            "line": loaded.source.line("steps", i, "do", j),
            "summary": summary,
            "cause": key,
            "op_index": j,
            "part": part,
            "old": old,
            "new": new,
            **_evidence(changed),
        }
    return None


def _written_as_run(written: Any, j: int, loc: Locator, part: str = "") -> bool:
    """Whether op ``j`` of a used file's step names its element (or its ``part``'s) as the run did
    (no placeholder)."""
    try:
        keys = written_locator(written["do"][j], part)
    except (KeyError, IndexError, TypeError):
        return False
    return keys is not None and keys.get("name") == loc.name and keys.get("label") == loc.label


def _evidence(changed: Mapping[str, Any]) -> dict[str, Any]:
    """What a person checks the edit against: the lines that left and appeared, and since when."""
    return {
        "since": str(changed.get("since") or ""),
        "removed": [str(x) for x in changed.get("removed") or []],
        "added": [str(x) for x in changed.get("added") or []],
    }


def _failed_op(sr: StepResult) -> tuple[int, str] | None:
    """(0-based index among the step's ``do`` ops, error) of the op that failed."""
    ops = [a for a in sr.actions if a.by == "do"]
    for n, rec in enumerate(ops):
        if not rec.ok:
            return n, rec.error
    return None


# ----------------------------------------------------------------------------- a renamed element


def _unescape(name: str) -> str:
    try:
        return str(json.loads(f'"{name}"'))
    except ValueError:
        return name


def _elements(aria: str) -> list[tuple[int, str, str, str]]:
    """(indent, role, name, line) of every line of an ARIA snapshot that names a role."""
    out = []
    for raw in aria.splitlines():
        m = _NODE.match(raw)
        if m is not None:
            out.append((len(m["indent"]), m["role"], _unescape(m["name"] or ""), raw.strip()))
    return out


def _renamed_op(
    loc: Locator, values: Values, changed: Mapping[str, Any], now_aria: str
) -> tuple[str, dict[str, Any], dict[str, Any], str] | None:
    """(summary, old LOC, new LOC, cause key) when the op's element was renamed (see the module)."""
    if loc.role is not None and loc.name is not None and "{" not in loc.role:
        kind, written = "name", loc.name
    elif loc.label is not None:
        kind, written = "label", loc.label
    else:
        return None
    if any(_role_of(line) in DIALOG_ROLES for line in changed.get("added") or []):
        return None  # a dialog came too: what left may only be hidden behind it
    try:
        shown = values.render(written)
    except PlaceholderError:
        return None
    roles = (loc.role,) if kind == "name" else FIELD_ROLES
    found = renamed({(str(r), _escaped(shown)) for r in roles}, changed)
    if found is None:
        return None
    role, _, new_escaped = found
    new = _unescape(new_escaped)
    if HIDDEN in new:
        return None  # the page shows a secret there: a name that holds one is not written in a file
    template = _template(written, shown, new, values)
    if template is None:
        return None
    # The new name must find that element alone: Playwright matches a name as a part of it, in
    # any case, unless exact (then the exact flag goes with the edit).
    same_role = [n for _, r, n, _ in _elements(now_aria) if r == role]
    if same_role.count(new) != 1:
        return None
    old_loc = _written(loc, kind)
    new_loc = {**old_loc, kind: template}
    if not loc.exact and sum(1 for n in same_role if new.lower() in n.lower()) > 1:
        new_loc["exact"] = True
    summary = f'{role} "{shown}" renamed "{new}"'
    return summary, old_loc, new_loc, f"renamed|{role}|{shown}|{new}"


def _written(loc: Locator, kind: str) -> dict[str, Any]:
    """The locator's keys that name the element, as the file has them (placeholders kept)."""
    if kind == "label":
        out: dict[str, Any] = {"label": loc.label}
    else:
        out = {"role": loc.role, "name": loc.name}
    if loc.exact is not None:
        out["exact"] = loc.exact
    return out


def _escaped(name: str) -> str:
    """A name as an ARIA snapshot line quotes it."""
    return json.dumps(name, ensure_ascii=False)[1:-1]


def _role_of(line: str) -> str:
    m = _NODE.match(line)
    return m["role"] if m is not None else ""


def _template(written: str, old: str, new: str, values: Values) -> str | None:
    """The new name written as the old one was: each placeholder kept where the new name shows its
    value, braces doubled. None when that cannot be done for sure: a secret or an environment
    value, a value the new name no longer shows, or shows twice."""
    as_text = literal(new)
    names = list(dict.fromkeys(names_in(written)))
    if not names:
        return as_text if written == old else None
    if any(n.startswith(("secret.", "env.")) for n in names):
        return None
    try:
        shown = {n: values.render("{" + n + "}") for n in names}
    except PlaceholderError:
        return None
    out = as_text
    for name, value in sorted(shown.items(), key=lambda kv: -len(kv[1])):
        if not value or out.count(value) != 1:
            return None  # a name without the value would be right for this variation only
        out = out.replace(value, "{" + name + "}")
    try:
        return out if values.render(out) == new else None
    except PlaceholderError:
        return None


# ----------------------------------------------------------------------------- a dialog in the way


def _overlay(
    step: Step, sr: StepResult, error: str, changed: Mapping[str, Any]
) -> tuple[str, dict[str, Any], str] | None:
    """(summary, fallback, cause key) when a dialog new since the last pass refused the op's click."""
    if INTERCEPTS not in error:
        return None
    nodes = _elements(sr.page_aria)
    added = {str(x) for x in changed.get("added") or []}
    dialogs = _new_dialogs(nodes, added)
    if len(dialogs) > 1:
        return None
    if dialogs:
        role, name, buttons = dialogs[0]
        choice = _dismiss_button(buttons)
    else:
        # An overlay without a dialog's role: its buttons are the ones new since the last pass,
        # and only words that close it prove which (a lone new button may be anything).
        role, name = "", ""
        new_buttons = [n for _, r, n, line in nodes if r == "button" and n and line in added]
        choice = _dismiss_button(new_buttons, by_words_only=True)
    if choice is None:
        return None
    click: dict[str, Any] = {"role": "button", "name": literal(choice)}
    page_buttons = [n for _, r, n, _ in nodes if r == "button"]
    if sum(1 for n in page_buttons if choice.lower() in n.lower()) > 1:
        click["exact"] = True
    if page_buttons.count(choice) > 1:
        if not name:
            return None  # the same button elsewhere and no name to find the dialog by
        click["within"] = {"role": role, "name": literal(name)}
    for fb in step.fallback:
        if fb.do and any(isinstance(op.arg, Locator) and op.arg.name == choice for op in fb.do):
            return None  # the step tried that already, and it did not help
    covering = _COVERING.search(error)
    called = (
        f'{role} "{name}"'
        if name
        else f"a {role}"
        if role
        else f"an overlay ({' '.join((covering.group(2) or covering.group(1)).split())})"
        if covering
        else "an overlay"
    )
    summary = f'{called}, new since the last pass, covers the page: dismiss it with its "{choice}" button'
    fallback = {"do": [{"click": click}], "redo": True, "when": "action"}
    return summary, fallback, f"overlay|{role}|{name}|{choice}"


def _new_dialogs(nodes: list[tuple[int, str, str, str]], added: set[str]) -> list[tuple[str, str, list[str]]]:
    """(role, name, its buttons' names) of each dialog of the page whose line is new since the last pass."""
    dialogs = []
    for k, (indent, role, name, line) in enumerate(nodes):
        if role not in DIALOG_ROLES or line not in added:
            continue
        inside = []
        for deeper, r, n, _ in nodes[k + 1 :]:
            if deeper <= indent:
                break
            if r == "button" and n:
                inside.append(n)
        dialogs.append((role, name, inside))
    return dialogs


def _dismiss_button(buttons: list[str], *, by_words_only: bool = False) -> str | None:
    """The button that closes what it sits in: a dialog's only one, else the one whose words say so."""
    if len(buttons) == 1 and not by_words_only:
        return buttons[0]
    for words in _DISMISS:
        matching = [b for b in buttons if words.match(b.strip())]
        if len(matching) == 1:
            return matching[0]
        if matching:
            return None  # two buttons of one kind: which one is not certain
    return None


# ----------------------------------------------------------------------------- a check


def _check(verdict: Verdict, step: int, phase: str, changed: Mapping[str, Any], where: dict[str, Any]) -> ProvenEdit:
    """A check that no longer holds: shown as the possible regression, never applied."""
    words = f'{phase} check "{verdict.check}"'
    found = renamed(role_names(verdict.expected), changed)
    if found is not None:
        role, old, new = found
        shows = f'the {role} "{_unescape(old)}" it names was renamed "{_unescape(new)}"'
    elif verdict.actual:
        shows = f"it expects {verdict.expected}; the page shows {verdict.actual}"
    else:
        shows = f"it expects {verdict.expected}" if verdict.expected else "it no longer holds"
    return ProvenEdit(
        "check",
        **where,
        summary=f"step {step} {words}: {shows}",
        cause=f"check|{verdict.check}|{verdict.expected}|{verdict.actual}",
        old=verdict.expected,
        new=verdict.actual,
        **_evidence(changed),
    )
