"""``reuseit heal --verify``: each workflow a proven edit touches runs once against the site its
failing run used, from a copy of its files with the morning's edits, before anything is written.

The history proves an edit from what the page's tree shows; only the site can say that the edited
workflow then does what it says. Tools that heal from a cache or a model write back locators
nobody ran again; here a cause is written only when every workflow it touches passes with it.

- **Which runs.** The workflows whose failing runs proposed the cause's edits (their node ids in
  ``healing.json``), each variation that failed, once, however many causes touch it: all the
  morning's edits are in the copy together (a workflow that met two changes needs both).
- **From a copy.** A temporary folder holds each workflow file, the files it ``use``s, its session
  workflow and its upload files, laid out as they are (relative paths keep working), with the
  edited text in place of each edited file. The person's files are not touched until the verdict.
- **As any run.** Through the project's run path (:class:`~pytest_reuseit.runtime.Runtime`, as
  the plugin and the Python API run workflows), with the base URL the failing run used (or
  ``--base-url``), secrets read from the environment, nothing kept: no artifacts, no trace, no
  history (a check is no night), and every message masked as in any run.
- **The verdict.** A run that passes confirms; one that fails or breaks refutes, in its own words
  (the step, the phase, the reason); one that got through only by a fallback at a step that holds
  an edited op, or left checks in words unjudged, confirms nothing either.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from playwright.sync_api import Error as PlaywrightError

from .. import api
from ..authoring.heal import locate
from ..authoring.history_edits import Cause
from ..engine.result import RunResult
from ..errors import ReuseitError, WorkflowFormatError
from ..runtime import Runtime
from ..settings import default
from ..workflow.loader import LoadedWorkflow, load
from ..workflow.op_args import UploadArgs
from ..workflow.placeholders import names_in


@dataclass
class Run:
    """One workflow variation the edits touch, and what its run on the site said."""

    test: str  # the failing run's node id
    workflow: Path  # the file, where it is found from here
    variation: str
    base_url: str
    causes: set[str] = field(default_factory=set)
    ok: bool = False
    reason: str = ""

    @property
    def shown(self) -> str:
        return f"{self.test.split('::')[0]} [{self.variation}]"


def runs_of(causes: Iterable[Cause], healing: Path, base_url: str) -> list[Run]:
    """Each (workflow, variation) whose failing run proposed an edit of ``causes``, once."""
    runs: dict[tuple[str, str], Run] = {}
    for cause in causes:
        for edit in cause.changes:
            for test in edit.tests:
                file, _, rest = test.partition("::")
                variation = rest[rest.find("[") + 1 : -1] if rest.endswith("]") and "[" in rest else ""
                path = locate(file, healing)
                run = runs.setdefault(
                    (str(path.resolve()), variation), Run(test, path, variation, base_url or edit.base_url)
                )
                run.base_url = run.base_url or edit.base_url
                run.causes.add(cause.key)
    return sorted(runs.values(), key=lambda r: r.shown)


def verify(runs: list[Run], texts: dict[Path, str], say: Callable[[str], None] = print) -> None:
    """Run each of ``runs`` from a copy holding ``texts`` (resolved path -> edited text); set its
    ``ok`` and ``reason``."""
    if not runs:
        return
    sites = sorted({r.base_url for r in runs if r.base_url})
    say(
        f"verify: {len(runs)} run{'s' if len(runs) != 1 else ''} of the workflows the edits touch, from a copy, "
        f"against {', '.join(sites) or 'the start_url each file names'}"
    )
    with tempfile.TemporaryDirectory(prefix="reuseit-verify-") as tmp:
        # No model unless one is configured, as a night; nothing kept; no history read or written.
        settings = api.default_settings(
            screenshots="off", trace="off", artifacts="never", history="", llm=default("llm"), output=f"{tmp}/out"
        )
        runtime = Runtime(settings, Path(tmp))
        try:
            for n, run in enumerate(runs):
                _verify_one(runtime, run, texts, Path(tmp) / "copy" / str(n))
                say(f"  {'passed' if run.ok else 'not confirmed'}: {run.shown}" + ("" if run.ok else f": {run.reason}"))
        finally:
            runtime.close()


def _verify_one(runtime: Runtime, run: Run, texts: dict[Path, str], copy: Path) -> None:
    extra = ({"base_url": run.base_url.rstrip("/")},) if run.base_url else ()
    names = runtime.builtin_names(extra)
    shown = run.test.split("::")[0]
    if not run.workflow.is_file():
        run.reason = f"{shown} does not exist (any more): run it where the night's runs ran"
        return
    try:
        original = load(run.workflow.resolve(), builtin_names=names)
        where, origins = _copy(original, texts, copy)
        loaded = load(where, display=shown, builtin_names=names)
    except (WorkflowFormatError, OSError, ValueError) as exc:
        hint = "" if run.base_url else " (the run record names no base URL: pass --base-url)"
        run.reason = f"cannot run it from a copy: {str(exc).splitlines()[0]}{hint}"
        return
    try:
        result = runtime.run(
            loaded, run.variation or None, f"verify-{run.workflow.stem}-{run.variation}", placeholders=extra
        )
    except (ReuseitError, PlaywrightError) as exc:  # the browser would not start, a variation is gone
        run.reason = f"could not run it: {_first_line(str(exc))}"
        return
    run.ok, run.reason = _verdict(result, loaded, lambda f: origins.get(Path(f).resolve()) in texts)


def _verdict(result: RunResult, loaded: LoadedWorkflow, edited: Callable[[str], bool]) -> tuple[bool, str]:
    """(confirmed, why not): the run's own words for a failure."""
    if result.status in ("failed", "broken"):
        step = result.steps[result.failed_step - 1] if result.failed_step else None
        at = f"step {step.index} '{step.action}' ({result.failed_phase}): " if step is not None else ""
        why = result.analysis.why if result.analysis is not None and result.analysis.why else result.message
        return False, f"{result.status}: {at}{_first_line(why)}"
    if result.not_judged:
        return False, f"{len(result.not_judged)} check(s) in words not judged (no model configured)"
    for step in result.steps:
        origin = loaded.origin(step.index - 1)
        if step.status in ("recovered", "healed") and edited(origin.file):
            return False, f"step {step.index} '{step.action}' passed only by a fallback ({step.status})"
    return True, ""


def _first_line(text: str) -> str:
    return next((line.strip() for line in text.splitlines() if line.strip()), "")


def _copy(loaded: LoadedWorkflow, texts: dict[Path, str], copy: Path) -> tuple[Path, dict[Path, Path]]:
    """Copy the files ``loaded`` reads (itself, what it uses, its session, its uploads) under
    ``copy`` as they lie relative to one another, edited texts in place. Returns the workflow's
    copy, and each copy's original (resolved paths)."""
    origins: dict[Path, Path] = {}
    files = sorted(_files(loaded))
    top = Path(os.path.commonpath([str(f.parent) for f in files]))
    for f in files:
        target = copy / f.relative_to(top)
        target.parent.mkdir(parents=True, exist_ok=True)
        if f in texts:
            target.write_text(texts[f], encoding="utf-8")
        else:
            shutil.copyfile(f, target)
        origins[target.resolve()] = f
    return copy / Path(loaded.source.path).resolve().relative_to(top), origins


def _files(loaded: LoadedWorkflow) -> set[Path]:
    out = {Path(loaded.source.path).resolve()}
    out |= {Path(o.file).resolve() for o in loaded.origins}
    if loaded.session is not None:
        out |= _files(loaded.session)
    for step in loaded.workflow.steps:
        ops = [*(step.do or ()), *(op for fb in step.fallback for op in fb.do or ())]
        for op in ops:
            if isinstance(op.arg, UploadArgs):
                for name in op.arg.files:
                    path = Path(loaded.folder) / name
                    if not any(True for _ in names_in(name)) and path.is_file():
                        out.add(path.resolve())
    return out
