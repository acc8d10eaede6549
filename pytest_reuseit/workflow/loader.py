"""Loading a workflow file: read its YAML with the line of every node (``yaml_reader``),
validate it against the models (each problem pointed at ``file:line``: ``source``), check what
the models cannot see alone (``placeholder_checks``; upload files exist), then replace each
``use:`` step by the used workflow's steps and load the ``session:`` workflow."""

from __future__ import annotations

import logging
import os
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from ..errors import WorkflowFormatError
from .model import Workflow
from .op_args import UploadArgs
from .ops import Op
from .placeholder_checks import (
    check_param_loops,
    check_placeholders,
    check_secret_words,
    check_use_before_extract,
    texts_of,
)
from .placeholders import MIN_SECRET_LENGTH, PLACEHOLDER, names_in
from .source import Source, digest_of, format_path, validation_problems
from .steps import Step
from .yaml_reader import index_lines, read_yaml

# The workflow files pytest collects (the ``reuseit_files`` ini default) and `reuseit validate` finds in a folder.
FILE_PATTERNS = ("*.reuseit.yaml", "*.reuseit.yml")

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class StepOrigin:
    """Where a step of the run was written: the workflow's own file, or a file it ``use``s."""

    file: str  # as messages name it
    group: str = ""  # "" for the workflow's own steps; the ``use`` chain otherwise ("login.reuseit.yaml")
    group_id: str = ""  # tells two uses of the same file apart: the use steps' indexes ("1", "1/0")
    index: int = -1  # 0-based, among the steps of ``file`` as written (-1: not known)
    digest: str = ""  # ``file``'s fingerprint as loaded (Source.digest)
    # The step as ``file`` writes it (a used file's placeholders not yet filled by the user).
    written: Any = field(default=None, compare=False, hash=False, repr=False)


@dataclass(frozen=True)
class LoadedWorkflow:
    workflow: Workflow
    source: Source
    folder: str = "."  # the file's folder: upload paths are relative to it
    # One per step of ``workflow.steps`` once ``use`` steps are expanded (empty: all the file's own).
    origins: tuple[StepOrigin, ...] = ()
    session: LoadedWorkflow | None = None  # the ``session: {from: ...}`` workflow, loaded
    # The steps as written (``use`` expanded, params filled), for a workflow that uses this one.
    raw_steps: tuple[Any, ...] = field(default=(), hash=False, compare=False, repr=False)

    def origin(self, index: int) -> StepOrigin:
        """Where step ``index`` (0-based) was written."""
        if index < len(self.origins):
            return self.origins[index]
        return StepOrigin(self.source.path, index=index, digest=self.source.digest)  # not expanded: its own

    # Every {env.X} / {secret.X} with where it is written ("file:line: path"), for `reuseit validate`.
    environment: tuple[tuple[str, str], ...] = ()
    # Each name of ``workflow.usefixtures`` with the "file:line" of the usefixtures that asked for it
    # first: a carried one was written in a used or session file, and an unknown one is named there.
    fixture_origins: tuple[tuple[str, str], ...] = ()

    def fixture_where(self, name: str) -> str:
        """The "file:line" of the ``usefixtures`` that asked for fixture ``name``."""
        return dict(self.fixture_origins).get(name) or self.source.where("usefixtures")

    @property
    def real_path(self) -> str:
        """The file's resolved path: two names of one file (``../login.reuseit.yaml`` from a
        subfolder, ``login.reuseit.yaml`` from beside it) are the same file."""
        return str((Path(self.folder) / Path(self.source.path).name).resolve())

    def unset_variables(self, environ: Mapping[str, str]) -> list[str]:
        """One problem per {env.X} / {secret.X} that ``environ`` does not provide (or a secret too short)."""
        problems = []
        for name, where in self.environment:
            var = name.split(".", 1)[1]
            if var not in environ:
                kind = "secret" if name.startswith("secret.") else "environment variable"
                problems.append(f"{where}: {kind} '{var}' (used as {{{name}}}) is not set: export {var}=...")
            elif name.startswith("secret.") and len(environ[var]) < MIN_SECRET_LENGTH:
                problems.append(f"{where}: secret '{var}' is shorter than {MIN_SECRET_LENGTH} characters")
        return problems


def _check_files(wf: Workflow, folder: str, source: Source) -> list[str]:
    """Every ``upload`` file written without placeholders must exist (relative to the workflow's folder)."""
    problems: list[str] = []

    def from_ops(ops: tuple[Op, ...] | None, where: tuple[str | int, ...]) -> None:
        for n, op in enumerate(ops or ()):
            if not isinstance(op.arg, UploadArgs):
                continue
            for k, name in enumerate(op.arg.files):
                if any(True for _ in names_in(name)):
                    continue  # computed at run time; checked then
                if not (Path(folder) / name).is_file():
                    path = (*where, n, "upload", "files", k)
                    problems.append(
                        f"{source.where(*path)}: {format_path(path)}: upload file {name!r} does not exist "
                        f"(paths are relative to the workflow file's folder)"
                    )

    for i, step in enumerate(wf.steps):
        from_ops(step.do, ("steps", i, "do"))
        for j, fb in enumerate(step.fallback):
            from_ops(fb.do, ("steps", i, "fallback", j, "do"))
    return problems


# --------------------------------------------------------------------------- use: and session:

# The files being loaded, outermost first: (resolved path, name as messages show it).
Chain = tuple[tuple[str, str], ...]


def _fill(raw: Any, values: dict[str, object]) -> Any:
    """``raw`` with every ``{name}`` of ``values`` replaced by its value's text (others untouched:
    the run fills them, in the using workflow's context, so a value may itself be ``{base_url}``)."""
    if isinstance(raw, str):
        text = raw
        for _ in range(10):  # a value may name another one (expected: "{word}"); a loop stops here
            if not any(name in values for name in names_in(text)):
                break
            text = PLACEHOLDER.sub(lambda m: str(values[m.group(1)]) if m.group(1) in values else m.group(0), text)
        return text
    if isinstance(raw, dict):
        return {k: _fill(v, values) for k, v in raw.items()}
    if isinstance(raw, list):
        return [_fill(v, values) for v in raw]
    return raw


def _load_other(
    written: str, folder: str, source: Source, doc_path: tuple[str | int, ...], chain: Chain, **kw: Any
) -> LoadedWorkflow:
    """Load a file this one refers to (``use``, ``session.from``), naming the chain on any problem."""
    target = (Path(folder) / written).resolve()
    shown = os.path.normpath(str(Path(source.path).parent / written))
    names = [name for _, name in chain] + [shown]
    where = f"{source.where(*doc_path)}: {format_path(doc_path)}"
    if any(str(target) == real for real, _ in chain):
        raise WorkflowFormatError(source.path, [f"{where}: a cycle: {' → '.join(names)}"])
    if not target.is_file():
        raise WorkflowFormatError(
            source.path,
            [
                f"{where}: file {written!r} does not exist ({' → '.join(names)}; paths are relative to the workflow file)"
            ],
        )
    try:
        return load(target, display=shown, _chain=(*chain, (str(target), shown)), **kw)
    except WorkflowFormatError as exc:
        if exc.path == source.path:
            raise  # a deeper cycle or missing file: already named with the whole chain
        raise WorkflowFormatError(
            source.path, [f"{where}: {shown} (used from here) is invalid:", *[f"  {p}" for p in exc.problems]]
        ) from None


def _remap(source: Source, old: int, new: int, into: dict[tuple[str | int, ...], int]) -> None:
    """Copy the lines of ``steps[old]`` in ``source`` as ``steps[new]``."""
    for key, line in source.lines.items():
        if len(key) >= 2 and key[0] == "steps" and key[1] == old:
            into[("steps", new) + key[2:]] = line


def _expand(loaded: LoadedWorkflow, data: dict[str, Any], chain: Chain, **kw: Any) -> LoadedWorkflow:
    """Replace every ``use`` step by the used workflow's steps (params filled), keeping where each
    step was written; load the ``session`` workflow.

    A used file brings what its steps need to run: its ``usefixtures`` (after the workflow's own,
    in the order of the use steps, each once; a used file's list already holds what its own used
    files brought, so the order is depth first) and its ``session`` when the workflow has none. The
    session workflow's ``usefixtures`` come last: it runs with the values of the first item that
    needs it, so every such item must request them. Its ``marks`` stay its own: a skip or an xfail
    says something about that file's test, not about every workflow that reuses its steps."""
    wf, source = loaded.workflow, loaded.source
    raw_steps = data.get("steps") or []
    steps: list[Step] = []
    raws: list[Any] = []
    origins: list[StepOrigin] = []
    own_where = source.where("usefixtures")
    fixtures: dict[str, str] = {name: own_where for name in wf.usefixtures}
    session = None
    if wf.session is not None:
        session = _load_other(wf.session.from_, loaded.folder, source, ("session", "from"), chain, **kw)
    lines = {k: v for k, v in source.lines.items() if not (k and k[0] == "steps")}
    for i, step in enumerate(wf.steps):
        if step.use is None:
            _remap(source, i, len(steps), lines)
            steps.append(step)
            raws.append(raw_steps[i])
            origins.append(StepOrigin(source.path, index=i, digest=source.digest, written=raw_steps[i]))
            continue
        used = _load_other(step.use, loaded.folder, source, ("steps", i, "use"), chain, **kw)
        _carry_fixtures(fixtures, used)
        session = _carried_session(session, used, source, i)
        values: dict[str, object] = {**used.workflow.params, **(step.params or {})}
        for j, raw in enumerate(used.raw_steps):
            filled = _fill(raw, values)
            _remap(used.source, j, len(steps), lines)
            steps.append(Step.model_validate(filled))
            raws.append(filled)
            inner = used.origin(j)
            group = step.use if not inner.group else f"{step.use} › {inner.group}"
            group_id = str(i) if not inner.group_id else f"{i}/{inner.group_id}"
            written = raw if not inner.group else inner.written
            origins.append(StepOrigin(inner.file, group, group_id, inner.index, inner.digest, written))
    if session is not None:
        _carry_fixtures(fixtures, session)
    update: dict[str, Any] = {}
    if any(s.use for s in wf.steps):
        update["steps"] = tuple(steps)
    if tuple(fixtures) != wf.usefixtures:
        update["usefixtures"] = tuple(fixtures)
    return LoadedWorkflow(
        wf.model_copy(update=update) if update else wf,
        Source(source.path, lines, source.digest),
        loaded.folder,
        tuple(origins),
        session,
        tuple(raws),
        environment=loaded.environment,
        fixture_origins=tuple(fixtures.items()),
    )


def _carry_fixtures(fixtures: dict[str, str], other: LoadedWorkflow) -> None:
    """Add the fixtures ``other`` (a used or session workflow) asks for, each once, with where it does."""
    for name in other.workflow.usefixtures:
        fixtures.setdefault(name, other.fixture_where(name))


def _carried_session(
    session: LoadedWorkflow | None, used: LoadedWorkflow, source: Source, index: int
) -> LoadedWorkflow | None:
    """The session a workflow starts from once it uses ``used``: its own, or the used file's; two
    different ones cannot both be the browser's starting state, so that is a load error."""
    if used.session is None:
        return session
    if session is None:
        return used.session
    if session.real_path != used.session.real_path:
        where = source.where("steps", index, "use")
        raise WorkflowFormatError(
            source.path,
            [
                f"{where}: steps[{index}].use: {used.source.path} starts from the session of "
                f"{used.session.source.path}, but this workflow starts from {session.source.path}; "
                "a run has one starting session: use the same one in both files"
            ],
        )
    return session


def parse(
    text: str,
    path: str,
    folder: str | None = None,
    *,
    builtin_names: Collection[str] = (),
    _chain: Chain = (),
) -> LoadedWorkflow:
    """Parse and validate one workflow's text; raise WorkflowFormatError with every problem found.

    ``folder`` is where relative file paths (``upload``) are looked up: the file's folder (by
    default the folder part of ``path``). ``builtin_names`` are the placeholders the runner will
    provide besides ``base_url``."""
    folder = folder if folder is not None else str(Path(path).parent)
    source_lines: dict[tuple[str | int, ...], int] = {}
    node, data = read_yaml(text, path)
    if node is not None:
        index_lines(node, (), source_lines)
    source = Source(path, source_lines, digest_of(text))
    if not isinstance(data, dict):
        kind = "empty" if data is None else f"a {type(data).__name__}"
        raise WorkflowFormatError(
            path,
            [f"{path}:1: a workflow file must be a mapping with name, task, start_url and steps; this one is {kind}"],
        )
    try:
        wf = Workflow.model_validate(data)
    except ValidationError as exc:
        raise WorkflowFormatError(path, validation_problems(exc, data, source)) from None
    texts = texts_of(data)
    problems = check_placeholders(wf, texts, source, builtin_names) + _check_files(wf, folder, source)
    problems += check_param_loops(wf, data, source)
    problems += check_secret_words(wf, texts, source)
    problems += check_use_before_extract(wf, texts, source, builtin_names)
    if problems:
        raise WorkflowFormatError(path, problems)
    environment = tuple(
        (name, f"{source.where(*t.path)}: {format_path(t.path)}")
        for t in texts
        for name in dict.fromkeys(t.names)
        if name.startswith(("env.", "secret."))
    )
    chain = _chain or ((str(Path(folder, Path(path).name).resolve()), path),)
    loaded = LoadedWorkflow(wf, source, folder, environment=environment)
    return _expand(loaded, data, chain, builtin_names=builtin_names)


def load(
    path: str | Path, display: str | None = None, *, builtin_names: Collection[str] = (), _chain: Chain = ()
) -> LoadedWorkflow:
    """Load one workflow file (see :func:`parse`); ``display`` is how messages name it."""
    p = Path(path)
    shown = display or str(p)
    try:
        text = p.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise WorkflowFormatError(shown, [f"{shown}:1: cannot read the file: {exc}"]) from None
    chain = _chain or ((str(p.resolve()), shown),)
    return parse(text, shown, str(p.parent), builtin_names=builtin_names, _chain=chain)


def placeholder_names(wf: Workflow, extra: dict[str, object] | None = None) -> set[str]:
    """Every placeholder name written anywhere in ``wf`` (and in ``extra`` params)."""
    data: dict[str, Any] = wf.model_dump(mode="json", exclude_none=True)
    return {name for t in texts_of([data, {str(k): str(v) for k, v in (extra or {}).items()}]) for name in t.names}
