"""Line-aware, safe loading of workflow files.

pyyaml's SafeLoader composes a node tree that keeps a mark (line, column) on every node; we keep
the lines of that tree beside the plain data, so any validation error can be pointed at
``file:line`` with the path inside the document (``steps[2].post[0].expect.text``), as tavern does.

Each file is parsed once: the data is constructed from the same node tree the lines are read
from, and the tree is composed by libyaml (``CSafeLoader``) when pyyaml has it. Parsing in pure
Python, twice, was nearly all the time of collecting many files (benchmarks/README.md).
"""

from __future__ import annotations

import logging
import os
from collections.abc import Collection, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError
from pydantic_core import ErrorDetails

from ..errors import WorkflowFormatError
from .model import Extract, Op, Step, UploadArgs, Workflow, closest
from .placeholders import PLACEHOLDER, names_in

# The workflow files pytest collects (the ``reuseit_files`` ini default) and `reuseit validate` finds in a folder.
FILE_PATTERNS = ("*.reuseit.yaml", "*.reuseit.yml")

log = logging.getLogger(__name__)

# The one built-in of the language; others come from whoever runs the file (the plugin's
# pytest_reuseit_placeholders hook, the Python API) and are passed in as ``builtin_names``.
BUILTIN_NAMES = ("base_url",)

_TYPE_WORDS = {
    "valid tuple": "list",
    "valid list": "list",
    "valid dictionary or instance of": "mapping of",
    "valid dictionary": "mapping",
    "Tuple should have": "List should have",
}


@dataclass(frozen=True)
class Source:
    """Where a loaded workflow came from: the file and the line of every node by document path."""

    path: str
    lines: dict[tuple[str | int, ...], int] = field(default_factory=dict, hash=False, compare=False)

    def line(self, *doc_path: str | int) -> int:
        """Line of the deepest known node on ``doc_path`` (1-based)."""
        for cut in range(len(doc_path), -1, -1):
            if doc_path[:cut] in self.lines:
                return self.lines[doc_path[:cut]]
        return 1

    def where(self, *doc_path: str | int) -> str:
        return f"{self.path}:{self.line(*doc_path)}"


@dataclass(frozen=True)
class StepOrigin:
    """Where a step of the run was written: the workflow's own file, or a file it ``use``s."""

    file: str  # as messages name it
    group: str = ""  # "" for the workflow's own steps; the ``use`` chain otherwise ("login.reuseit.yaml")
    group_id: str = ""  # tells two uses of the same file apart: the use steps' indexes ("1", "1/0")


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
        return self.origins[index] if index < len(self.origins) else StepOrigin(self.source.path)


def format_path(doc_path: tuple[str | int, ...]) -> str:
    out = ""
    for part in doc_path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "(top level)"


class _UniqueKeys(yaml.constructor.SafeConstructor):
    """Refuses duplicate keys (plain YAML silently keeps the last one); mixed into both loaders."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        seen: dict[Any, int] = {}
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=deep)
            if key in seen:
                raise yaml.constructor.ConstructorError(
                    "while reading a mapping",
                    node.start_mark,
                    f"key '{key}' appears twice (first on line {seen[key] + 1})",
                    key_node.start_mark,
                )
            seen[key] = key_node.start_mark.line
        return super().construct_mapping(node, deep=deep)


class _UniqueKeyLoader(_UniqueKeys, yaml.SafeLoader):
    """pyyaml's own parser: the reference, and the one whose error messages users see."""


# libyaml's parser under pyyaml's safe constructor: the same data and marks, several times faster.
_FastLoader: type[yaml.SafeLoader] = (
    type("_FastUniqueKeyLoader", (_UniqueKeys, yaml.CSafeLoader), {}) if yaml.__with_libyaml__ else _UniqueKeyLoader
)


def _index_lines(node: yaml.Node, prefix: tuple[str | int, ...], out: dict[tuple[str | int, ...], int]) -> None:
    out[prefix] = node.start_mark.line + 1
    if isinstance(node, yaml.MappingNode):
        for key_node, value_node in node.value:
            key = key_node.value
            out[prefix + (key,)] = key_node.start_mark.line + 1
            _index_lines(value_node, prefix + (key,), out)
            out[prefix + (key,)] = key_node.start_mark.line + 1
    elif isinstance(node, yaml.SequenceNode):
        for i, item in enumerate(node.value):
            _index_lines(item, prefix + (i,), out)


def _doc_path(loc: tuple[Any, ...], data: Any) -> tuple[str | int, ...]:
    """Keep only the parts of a pydantic ``loc`` that exist in the document (drop union tags)."""
    path: list[str | int] = []
    cur = data
    for part in loc:
        if (
            isinstance(cur, dict)
            and part in cur
            or isinstance(cur, list)
            and isinstance(part, int)
            and 0 <= part < len(cur)
        ):
            path.append(part)
            cur = cur[part]
    return tuple(path)


def _message(err: ErrorDetails) -> str:
    msg = str(err["msg"])
    for old, new in _TYPE_WORDS.items():
        msg = msg.replace(old, new)
    if msg.startswith("Value error, "):
        msg = msg[len("Value error, ") :]
    if err["type"] == "missing":
        return "required key is missing"
    return msg[0].lower() + msg[1:] if msg else msg


def _problems(exc: ValidationError, data: Any, source: Source) -> list[str]:
    """One readable line per distinct place, ``file:line: path: message``."""
    found: list[tuple[tuple[str | int, ...], str, str]] = []
    for err in exc.errors():
        loc = tuple(err["loc"])
        path = _doc_path(loc, data)
        if err["type"] == "missing":
            path = path + (loc[-1],) if loc and loc[-1] not in path else path
        if err["type"] == "unknown_key":
            path = path + (err["ctx"]["key"],)
        found.append((path, str(err["type"]), _message(err)))

    def is_noise(path: tuple[str | int, ...], kind: str) -> bool:
        """A union reports every alternative it tried ("should be a string" beside the real problem
        inside the mapping form), and pydantic calls a list too short after dropping a bad item:
        both are noise when a real (non-type) error is listed at the same place or deeper."""
        if not (kind.endswith("_type") or kind == "too_short"):
            return False
        deeper = any(p != path and p[: len(path)] == path and not t.endswith("_type") for p, t, _ in found)
        beside = any(p == path and not t.endswith("_type") and t != "too_short" for p, t, _ in found)
        return (
            deeper or beside or (kind == "too_short" and any(p != path and p[: len(path)] == path for p, _, _ in found))
        )

    by_place: dict[tuple[str | int, ...], list[str]] = {}
    for path, kind, msg in found:
        if is_noise(path, kind):
            continue
        bucket = by_place.setdefault(path, [])
        if msg not in bucket:
            bucket.append(msg)
    lines = []
    for path, msgs in by_place.items():
        text = msgs[0] if len(msgs) == 1 else "expected one of the accepted forms: " + " | ".join(msgs)
        lines.append(f"{source.where(*path)}: {format_path(path)}: {text}")
    return lines


def _strings(data: Any, prefix: tuple[str | int, ...] = ()) -> Iterator[tuple[tuple[str | int, ...], str]]:
    if isinstance(data, str):
        yield prefix, data
    elif isinstance(data, dict):
        for k, v in data.items():
            yield from _strings(v, prefix + (k,))
    elif isinstance(data, list):
        for i, v in enumerate(data):
            yield from _strings(v, prefix + (i,))


def _extract_targets(wf: Workflow) -> set[str]:
    names: set[str] = set()

    def from_ops(ops: tuple[Op, ...] | None) -> None:
        for op in ops or ():
            if isinstance(op.arg, Extract):
                names.add(op.arg.into)
            if op.into is not None:  # download's saved path
                names.add(op.into)

    for step in wf.steps:
        names.update(e.into for e in step.extract)
        from_ops(step.do)
        for fb in step.fallback:
            from_ops(fb.do)
    return names


def _check_placeholders(
    wf: Workflow, data: dict[str, Any], source: Source, builtin_names: Collection[str]
) -> list[str]:
    """Every ``{name}`` must be resolvable for every variation; say which and where if not."""
    problems: list[str] = []
    extracted = _extract_targets(wf)
    base = set(wf.params) | extracted | set(BUILTIN_NAMES) | set(builtin_names) | set(wf.usefixtures)
    for path, text in _strings(data):
        if path and path[0] == "variations" and len(path) > 2 and path[2] == "id":
            continue
        for name in names_in(text):
            if name.startswith(("env.", "secret.")):
                continue
            if name.split(".", 1)[0] in wf.usefixtures:
                continue  # a fixture's value (or a key of it): known only once the fixture has run
            missing_in = [v.id for v in wf.all_variations() if name not in base and name not in v.params]
            if missing_in:
                known = sorted(base | {k for v in wf.all_variations() for k in v.params})
                # The name may exist in other variations: suggesting it back would be no help.
                guess = closest(name, [k for k in known if k != name])
                hint = f" (did you mean '{{{guess}}}'?)" if guess else ""
                scope = (
                    "" if len(missing_in) == len(wf.all_variations()) else f" in variation(s) {', '.join(missing_in)}"
                )
                problems.append(
                    f"{source.where(*path)}: {format_path(path)}: unknown placeholder {{{name}}}{scope}{hint}; "
                    f"known names: {', '.join(known)}"
                )
    return problems


def _compose_and_construct(text: str) -> tuple[yaml.Node | None, Any]:
    """The node tree (for lines) and the data built from it, from one parse of ``text``.

    A file libyaml rejects is parsed again by pyyaml's own parser: its messages are the ones the
    error reports are written for ("mapping values are not allowed here"), and the slow path is
    paid by broken files only."""
    try:
        return _one_parse(text, _FastLoader)
    except yaml.YAMLError:
        if _FastLoader is _UniqueKeyLoader:
            raise
        return _one_parse(text, _UniqueKeyLoader)


def _one_parse(text: str, loader_type: type[yaml.SafeLoader]) -> tuple[yaml.Node | None, Any]:
    loader = loader_type(text)
    try:
        node = loader.get_single_node()
        data = loader.construct_document(node) if node is not None else None
        return node, data
    finally:
        loader.dispose()


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
    step was written; load the ``session`` workflow."""
    wf, source = loaded.workflow, loaded.source
    raw_steps = data.get("steps") or []
    steps: list[Step] = []
    raws: list[Any] = []
    origins: list[StepOrigin] = []
    lines = {k: v for k, v in source.lines.items() if not (k and k[0] == "steps")}
    for i, step in enumerate(wf.steps):
        if step.use is None:
            _remap(source, i, len(steps), lines)
            steps.append(step)
            raws.append(raw_steps[i])
            origins.append(StepOrigin(source.path))
            continue
        used = _load_other(step.use, loaded.folder, source, ("steps", i, "use"), chain, **kw)
        values: dict[str, object] = {**used.workflow.params, **(step.params or {})}
        for j, raw in enumerate(used.raw_steps):
            filled = _fill(raw, values)
            _remap(used.source, j, len(steps), lines)
            steps.append(Step.model_validate(filled))
            raws.append(filled)
            inner = used.origin(j)
            group = step.use if not inner.group else f"{step.use} › {inner.group}"
            group_id = str(i) if not inner.group_id else f"{i}/{inner.group_id}"
            origins.append(StepOrigin(inner.file, group, group_id))
    session = None
    if wf.session is not None:
        session = _load_other(wf.session.from_, loaded.folder, source, ("session", "from"), chain, **kw)
    expanded = wf.model_copy(update={"steps": tuple(steps)}) if any(s.use for s in wf.steps) else wf
    return LoadedWorkflow(expanded, Source(source.path, lines), loaded.folder, tuple(origins), session, tuple(raws))


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
    try:
        node, data = _compose_and_construct(text)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark else 1
        problem = exc.problem or "cannot be parsed"
        if "python/" in problem or "could not determine a constructor" in problem:
            problem += " (Python tags are not allowed in workflow files)"
        raise WorkflowFormatError(path, [f"{path}:{line}: invalid YAML: {problem}"]) from None
    except yaml.YAMLError as exc:
        raise WorkflowFormatError(path, [f"{path}:1: invalid YAML: {exc}"]) from None
    if node is not None:
        _index_lines(node, (), source_lines)
    source = Source(path, source_lines)
    if not isinstance(data, dict):
        kind = "empty" if data is None else f"a {type(data).__name__}"
        raise WorkflowFormatError(
            path,
            [f"{path}:1: a workflow file must be a mapping with name, task, start_url and steps; this one is {kind}"],
        )
    try:
        wf = Workflow.model_validate(data)
    except ValidationError as exc:
        raise WorkflowFormatError(path, _problems(exc, data, source)) from None
    problems = _check_placeholders(wf, data, source, builtin_names) + _check_files(wf, folder, source)
    if problems:
        raise WorkflowFormatError(path, problems)
    chain = _chain or ((str(Path(folder, Path(path).name).resolve()), path),)
    return _expand(LoadedWorkflow(wf, source, folder), data, chain, builtin_names=builtin_names)


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
