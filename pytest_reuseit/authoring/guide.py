"""``reuseit guide``: fold a user's guidance into a workflow (ReUseIt §4.3, guidance integration).

A failed run ends with a challenge analysis (where, why, what to change). The author answers
with guidance in words — or pastes the analysis itself — and this command asks the model to turn
it into edits of the execution guards: a pre/post check, a fallback, or a reworded action, on the
step it concerns (``guidance_edits`` schema). The edits are checked against the workflow (step
numbers and replace positions must exist), applied round-trip so comments and formatting stay,
validated, and shown as a diff with the model's summary; ``--apply`` writes the file.

The model is reached only through :class:`~pytest_reuseit.llm.client.LlmClient` (any
OpenAI-compatible endpoint from ``OPENAI_BASE_URL``/``OPENAI_API_KEY``, response cache in mode
auto). The workflow and the guidance travel as delimited data (prompts.GUIDE_SYSTEM).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ..engine.result import ModelUsage
from ..errors import ReuseitError
from ..llm.prompts import GUIDE_SYSTEM
from ..llm.schemas import GuidanceEdit, GuidanceEdits
from ..sites import LocalSites
from ..workflow.checks import Check
from ..workflow.loader import LoadedWorkflow, load
from ..workflow.model import Workflow
from ..workflow.ops import describe_op
from ..workflow.steps import Fallback
from .yamledit import WorkflowDoc

if TYPE_CHECKING:
    from ..llm.client import LlmClient

SCHEMA = "guidance_edits"
NO_ENDPOINT = (
    "reuseit guide needs a model: set OPENAI_API_KEY (and OPENAI_BASE_URL for another OpenAI-compatible endpoint)"
)


class GuideError(ReuseitError):
    """The model's edits do not fit the workflow; nothing was changed."""


# --------------------------------------------------------------------------- the request


def _check_text(c: Check) -> str:
    words = c.check or ""
    dom = c.model_copy(update={"check": None}).describe() if c.expect is not None else ""
    if words and dom:
        return f"{words}  [DOM assertion: {dom}]"
    return words or f"[DOM assertion: {dom}]"


def _fallback_text(f: Fallback) -> str:
    return f.agent if f.agent is not None else f"[deterministic] {f.describe()}"


def workflow_text(wf: Workflow) -> str:
    """The workflow as the model reads it: steps numbered from 1, list entries indexed from 0."""
    lines = [f"Workflow: {wf.name}", f"Task: {wf.task}", ""]
    for n, step in enumerate(wf.steps, start=1):
        lines.append(f"Step {n}: {step.action}")
        for name, entries in (
            ("pre checks", [_check_text(c) for c in step.pre]),
            ("deterministic ops (not edited here)", [describe_op(op) for op in step.do or ()]),
            ("post checks", [_check_text(c) for c in step.post]),
            ("fallbacks", [_fallback_text(f) for f in step.fallback]),
        ):
            if not entries:
                lines.append(f"  {name}: none")
                continue
            lines.append(f"  {name}:")
            lines.extend(f"    [{i}] {text}" for i, text in enumerate(entries))
    if wf.outcome:
        lines.append("Outcome checks (whole task): " + "; ".join(_check_text(c) for c in wf.outcome))
    return "\n".join(lines)


def _data(text: str) -> str:
    """Text that cannot close the delimiters it travels in."""
    for tag in ("workflow", "guidance"):
        text = text.replace(f"</{tag}>", f"</ {tag}>").replace(f"<{tag}>", f"< {tag}>")
    return text


def messages(wf: Workflow, guidance: str) -> list[dict[str, object]]:
    user = (
        f"<workflow>\n{_data(workflow_text(wf))}\n</workflow>\n\n"
        f"<guidance>\n{_data(guidance.strip())}\n</guidance>\n\n"
        f"The workflow has {len(wf.steps)} step(s). Answer with the edits that fold this guidance in."
    )
    return [{"role": "system", "content": GUIDE_SYSTEM}, {"role": "user", "content": user}]


# --------------------------------------------------------------------------- checking and applying


def _entries(wf: Workflow, step: int, fld: str) -> tuple[object, ...]:
    s = wf.steps[step - 1]
    return {"pre": s.pre, "post": s.post, "fallback": s.fallback}[fld]


def check_edits(wf: Workflow, edits: list[GuidanceEdit]) -> list[str]:
    """Every way the model's edits do not fit this workflow (empty when they all fit)."""
    problems = []
    n = len(wf.steps)
    for k, e in enumerate(edits, start=1):
        what = f"edit {k} ({e.operation} {e.field} on step {e.step})"
        if not 1 <= e.step <= n:
            problems.append(f"{what}: step {e.step} does not exist; the workflow has steps 1-{n}")
            continue
        if not e.text.strip():
            problems.append(f"{what}: the text is empty")
        if e.field != "action" and e.operation == "replace":
            size = len(_entries(wf, e.step, e.field))
            if not 0 <= e.index < size:
                has = f"indexes 0-{size - 1}" if size else "none"
                problems.append(f"{what}: there is no {e.field} entry {e.index} to replace (step {e.step} has {has})")
    return problems


def _same(a: str, b: str) -> bool:
    return " ".join(a.split()).casefold() == " ".join(b.split()).casefold()


def _existing_words(wf: Workflow, step: int, fld: str) -> list[str]:
    out = []
    for entry in _entries(wf, step, fld):
        if isinstance(entry, Check) and entry.check:
            out.append(entry.check)
        elif isinstance(entry, Fallback) and entry.agent:
            out.append(entry.agent)
    return out


@dataclass
class GuideResult:
    doc: WorkflowDoc
    text: str  # the validated new text (== doc.original when nothing changed)
    changes: list[str]
    skipped: list[str]


def apply_edits(doc: WorkflowDoc, wf: Workflow, edits: list[GuidanceEdit]) -> GuideResult:
    """Apply checked edits (see :func:`check_edits`); raise YamlEditError if the result does not validate."""
    changes: list[str] = []
    skipped: list[str] = []
    # Replacements address the lists as they are in the file: do them before anything is appended.
    ordered = sorted(enumerate(edits), key=lambda pair: (pair[1].operation != "replace", pair[0]))
    for _, e in ordered:
        text = " ".join(e.text.split())
        i = e.step - 1
        if e.field == "action":
            if _same(wf.steps[i].action, text):
                skipped.append(f"step {e.step} action: already says that")
                continue
            old = doc.replace_action(i, text)
            changes.append(f"step {e.step} action: {old!r} -> {text!r}")
        elif e.operation == "replace":
            old = doc.replace_entry(i, e.field, e.index, text)
            changes.append(f"step {e.step} {e.field}[{e.index}]: {old!r} -> {text!r}")
        else:
            if any(_same(text, w) for w in _existing_words(wf, e.step, e.field)):
                skipped.append(f"step {e.step} {e.field}: already has {text!r}")
                continue
            doc.add_entry(i, e.field, text)
            changes.append(f"step {e.step} {e.field}: + {text!r}")
    if not changes:
        return GuideResult(doc, doc.original, changes, skipped)
    new_text, _ = doc.validated()
    return GuideResult(doc, new_text, changes, skipped)


def ask(client: LlmClient, wf: Workflow, guidance: str, usage: ModelUsage) -> GuidanceEdits:
    answer = client.ask(SCHEMA, messages(wf, guidance), usage)
    assert isinstance(answer, GuidanceEdits)
    return answer


def guide(path: Path, guidance: str, client: LlmClient, usage: ModelUsage) -> tuple[GuidanceEdits, GuideResult]:
    """Ask the model, check its edits and apply them (not written). Raises GuideError,
    WorkflowFormatError, YamlEditError or ModelUnavailable."""
    loaded: LoadedWorkflow = load(path, builtin_names=LocalSites.NAMES)
    doc = WorkflowDoc.load(path)
    answer = ask(client, loaded.workflow, guidance, usage)
    problems = check_edits(loaded.workflow, answer.edits)
    if problems:
        raise GuideError(
            "the model's edits do not fit the workflow, so nothing was changed:\n"
            + "\n".join(f"  {p}" for p in problems)
            + (f"\n  (its summary: {answer.summary})" if answer.summary else "")
        )
    return answer, apply_edits(doc, loaded.workflow, answer.edits)
