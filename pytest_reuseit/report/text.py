"""The failure text pytest prints, and the one-line summaries, read from a RunResult."""

from __future__ import annotations

import os

from ..engine.result import Attempt, RunResult, StepResult, Verdict


def _verdict_lines(v: Verdict, indent: str) -> list[str]:
    lines = [f"{indent}check: {v.check}" + (f"  (line {v.line})" if v.line else "")]
    if v.expected or v.actual:
        lines.append(f"{indent}  expected: {v.expected}")
        lines.append(f"{indent}  actual:   {v.actual}")
    if v.explanation:
        lines.append(f"{indent}  model:    {v.explanation}")
    return lines


def _attempt_lines(att: Attempt) -> list[str]:
    outcome = "recovered" if att.ok else "did not recover"
    lines = [f"  {att.number}. [{att.phase}] {att.fallback} -> {outcome}"]
    for rec in att.actions:
        state = "ok" if rec.ok else f"failed: {rec.error}"
        lines.append(f"       {rec.by}: {rec.description} ({state})")
    if att.note and not att.ok:
        lines.append(f"       note: {att.note}")
    for v in att.verdicts:
        if v.ok is False:
            lines.append(f"       still failing: {v.check}: " + (f"actual {v.actual}" if v.actual else v.explanation))
    return lines


def failure_text(result: RunResult) -> str:
    """Everything a reader needs to act on a failed or broken run, without opening the report."""
    head = "FAILED" if result.status == "failed" else "BROKEN (the run could not be judged)"
    out = [f"workflow '{result.workflow}' [{result.variation}] {head}", f"  file: {result.file}:{result.line}"]
    step: StepResult | None = result.steps[result.failed_step - 1] if result.failed_step else None
    if step is not None:
        out.extend(_step_header(result, step))
    out.append(f"  phase: {result.failed_phase or 'start'}")
    out.extend(_page_lines(result))
    if result.status == "broken" or step is None and result.failed_phase != "outcome":
        out.append(f"  error: {result.message}")
    if step is not None:
        out.extend(_step_lines(step))
    if result.failed_phase == "outcome":
        for v in result.outcome:
            if v.ok is False:
                out.extend(_verdict_lines(v, "  outcome "))
    if result.unvisited_pages:
        out.append("  opened but never switched to: " + ", ".join(result.unvisited_pages))
    if result.downloads:
        out.append("  downloads: " + ", ".join(f"{d.name} -> {_rel(d.path)}" for d in result.downloads))
    if result.blocked_navigation:
        out.append("  blocked navigation (outside allowed_domains): " + ", ".join(result.blocked_navigation))
    out.extend(_analysis_lines(result))
    if result.artifacts_dir:
        out.append(f"artifacts: {_rel(result.artifacts_dir)}")
    out.extend(_trace_lines(result))
    return "\n".join(out)


def _trace_lines(result: RunResult) -> list[str]:
    if result.trace:
        return [f"trace: {_rel(result.trace)}  (open with: reuseit trace {_rel(result.trace)})"]
    if result.trace_withheld:
        return [f"trace: not kept ({result.trace_withheld})"]
    return []


def _step_header(result: RunResult, step: StepResult) -> list[str]:
    """The failed step; one from a used workflow nested under its group, with its own file."""
    if not step.group:
        return [f"  step {step.index} of {result.total_steps} (line {step.line}): {step.action}"]
    members = [s.index for s in result.steps if s.group_id == step.group_id]
    return [
        f"  in use: {step.group} (steps {members[0]}-{members[-1]} of this run so far)",
        f"    step {step.index} of {result.total_steps} ({step.file}:{step.line}): {step.action}",
    ]


def _page_lines(result: RunResult) -> list[str]:
    """Where the page was, and what cut a failed run's recovery short (the verdict stands)."""
    out = []
    if result.final_url:
        title = f"'{result.final_title}' " if result.final_title else ""
        out.append(f"  page: {title}at {result.final_url}")
    if result.infrastructure and result.status == "failed":
        out.append(f"  infrastructure: {result.infrastructure} (it cut the recovery short; the check had failed)")
    return out


def _step_lines(step: StepResult) -> list[str]:
    """The failed step: its actions, the first failed check, its error and the recovery attempts."""
    out = []
    if step.actions:
        out.append("  actions:")
        for rec in step.actions:
            state = "ok" if rec.ok else f"failed: {rec.error}"
            out.append(f"    {rec.by}: {rec.description} ({state})")
    failed = [v for v in (step.pre if step.failed_phase == "pre" else step.post) if v.ok is False]
    for v in failed[:1]:
        out.extend(_verdict_lines(v, "  "))
    if step.failed_phase in ("action", "extract"):
        out.append(f"  error: {step.error}")
    if step.page:
        out.append(f"  current page: {step.page}")
    for d in step.dialogs:
        out.append(f"  dialog ({d.type}) {d.message!r}: {d.answer}")
    if step.attempts:
        out.append("  attempts:")
        for att in step.attempts:
            out.extend(_attempt_lines(att))
    return out


def _analysis_lines(result: RunResult) -> list[str]:
    a = result.analysis
    if a is None:
        return []
    out = [
        f"challenge analysis [{a.category}] ({'by the model' if a.source == 'model' else 'observed by the runner'}):",
        f"  where: {a.where}",
        f"  why:   {a.why}",
    ]
    if a.guidance:
        out.append("  what to change:")
        out.extend(f"    - {g}" for g in a.guidance)
    return out


def _rel(path: str) -> str:
    """Paths under the current folder are shown relative to it: shorter, and no machine paths in CI logs."""
    try:
        rel = os.path.relpath(path)
    except ValueError:
        return path
    return path if rel.startswith("..") else rel


def recovered_text(result: RunResult) -> list[str]:
    """What needed recovery or healing in a run that passed (for the terminal summary)."""
    lines = []
    for step in result.steps:
        for v in step.pre + step.post:
            if v.stale:
                lines.append(
                    f"step {step.index} ({step.action}): {v.phase} check '{v.check}' (line {v.line}): "
                    "its promoted assertion is stale (the model judged the words met); "
                    f"heal it with `reuseit promote {result.file} --apply`"
                )
        if step.status == "recovered" and step.attempts:
            ok = next((a for a in step.attempts if a.ok), None)
            how = ok.fallback if ok else "?"
            lines.append(
                f"step {step.index} ({step.action}): {step.attempts[0].phase} recovered by attempt "
                f"{ok.number if ok else '?'}: {how}"
            )
        elif step.status == "healed":
            lines.append(f"step {step.index} ({step.action}): healed by the agent")
    for h in result.healing:
        lines.append(f"suggestion {result.file}:{h.line}: replace '{h.broken}' with '{h.replacement}'")
    return lines
