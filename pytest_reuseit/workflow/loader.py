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
import re
from collections.abc import Collection, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError
from pydantic_core import ErrorDetails

from ..errors import WorkflowFormatError
from .model import Workflow
from .op_args import Extract, UploadArgs
from .ops import Op
from .placeholders import MIN_SECRET_LENGTH, PLACEHOLDER, names_in
from .steps import Step
from .strict import closest

# The workflow files pytest collects (the ``reuseit_files`` ini default) and `reuseit validate` finds in a folder.
FILE_PATTERNS = ("*.reuseit.yaml", "*.reuseit.yml")

log = logging.getLogger(__name__)

# The one built-in of the language; others come from whoever runs the file (the plugin's
# pytest_reuseit_placeholders hook, the Python API) and are passed in as ``builtin_names``.
BUILTIN_NAMES = ("base_url",)

# Bounds on input, so one hostile or broken file fails alone instead of exhausting the session:
# a real workflow is a few kilobytes, a few levels deep, with a few hundred YAML nodes.
MAX_FILE_BYTES = 256 * 1024
MAX_DEPTH = 64
MAX_NODES = 50_000  # after expanding aliases (*a): nine lines of nested aliases can mean billions

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


def _strings(data: Any) -> list[tuple[tuple[str | int, ...], str]]:
    """Every string in ``data`` with its path, in document order (into one list, not through nested
    generators: every workflow file is read this way at each collection)."""
    found: list[tuple[tuple[str | int, ...], str]] = []

    def walk(value: dict[Any, Any] | list[Any], prefix: tuple[str | int, ...]) -> None:  # as deep as MAX_DEPTH at most
        for key, item in value.items() if isinstance(value, dict) else enumerate(value):
            if isinstance(item, str):
                found.append(((*prefix, key), item))
            elif isinstance(item, (dict, list)):
                walk(item, (*prefix, key))

    if isinstance(data, str):
        return [((), data)]
    if isinstance(data, (dict, list)):
        walk(data, ())
    return found


@dataclass(frozen=True)
class _Text:
    """A string of the file, where it is, and the placeholder names it uses."""

    path: tuple[str | int, ...]
    text: str
    names: tuple[str, ...]


def _texts(data: Any) -> list[_Text]:
    return [_Text(path, text, tuple(names_in(text))) for path, text in _strings(data)]


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


def _check_placeholders(wf: Workflow, texts: list[_Text], source: Source, builtin_names: Collection[str]) -> list[str]:
    """Every ``{name}`` must be resolvable for every variation; say which and where if not."""
    problems: list[str] = []
    extracted = _extract_targets(wf)
    base = set(wf.params) | extracted | set(BUILTIN_NAMES) | set(builtin_names) | set(wf.usefixtures)
    for t in texts:
        path = t.path
        if path and path[0] == "variations" and len(path) > 2 and path[2] == "id":
            continue
        for name in t.names:
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


def _events(text: str, loader: type[yaml.SafeLoader]) -> Iterator[yaml.Event]:
    """The document's events, stopping early once it is deeper or larger than any workflow."""
    yield from yaml.parse(text, Loader=loader)


def _past_libyaml_depth(exc: yaml.YAMLError) -> bool:
    """libyaml's own bound (PyYAML 6.0.4 on): its scanner reads ahead and refuses 1,000 open flow
    levels before the parser has handed out the events that reach ours."""
    return isinstance(exc, yaml.MarkedYAMLError) and "maximum nesting depth" in str(exc.problem)


_INDENT = re.compile(r"^ *", re.MULTILINE)
# A line's chain of block indicators ("- - ", "? - ", ": "): the only way a line opens several
# block collections (after a key's ": " a block collection starts on the next line, not this one).
_CHAIN = re.compile(r"^ *((?:[-?:][ \t]+)+)", re.MULTILINE)


def _may_have_alias(text: str) -> bool:
    """A ``*`` where an alias can start (after a space, a line start, ``[``, ``{``, ``,`` or ``:``,
    before a name character). Only aliases make a document expand; an alias whose anchor is not
    defined is a parse error. A false match (``a *b`` in a script) only costs the full walk."""
    at = text.find("*")
    while at != -1:
        before, after = text[at - 1 : at] or " ", text[at + 1 : at + 2]
        if (before.isspace() or before in "[{,:") and after and not after.isspace() and after not in ",[]{}":
            return True
        at = text.find("*", at + 1)
    return False


def _within_limits_at_a_glance(text: str) -> bool:
    """True when cheap upper bounds already show ``text`` within MAX_NODES and MAX_DEPTH, so the
    event walk of ``_check_size`` (a Python object per YAML event: a third of the collection time
    of 500 files) is paid only by files that could be past a limit.

    Nodes: without an alias nothing expands, and every node takes at least one character.
    Depth: block collections nest at most two levels per column (a mapping, and a sequence under
    one of its keys at the same column); the columns are a line's indentation and the indicator
    chain after it ("- - k: v"). Flow collections nest at most as deep as there are opening
    brackets where one can open (``_flow_openers``): a closing bracket cannot be trusted to close
    one (``"]"`` in a quoted string closes nothing). Block collections never nest inside flow ones."""
    if len(text) * 2 >= MAX_NODES or _may_have_alias(text):
        return False
    indent = max(len(m) for m in _INDENT.findall(text))
    chain = max((len(m.split()) for m in _CHAIN.findall(text)), default=0)  # indicators in the chain
    return 2 * (indent + chain + 2) + _flow_openers(text) <= MAX_DEPTH


_BRACKET = re.compile(r"[\[{]")


def _flow_openers(text: str) -> int:
    """How many ``[``/``{`` stand where a flow collection can open: first on their line (after a
    comment, a key or a document marker on the line before), or after one of ``- ? : , [ { .`` on
    the same line (an entry, a key, a value, a document end), or after a tag or an anchor (a word
    holding ``!`` or ``&``). Brackets inside a plain scalar (``input[name=q]``) cannot open one;
    those inside quoted strings are counted (an upper bound is all this needs)."""
    count = 0
    for m in _BRACKET.finditer(text):
        i = m.start() - 1
        while i >= 0 and text[i] in " \t":
            i -= 1
        if i < 0 or text[i] in "\r\n-?:,[{.":
            count += 1
            continue
        word_start = i
        while word_start > 0 and text[word_start - 1] not in " \t\r\n":
            word_start -= 1
        if "!" in text[word_start : i + 1] or "&" in text[word_start : i + 1]:
            count += 1
    return count


def _check_size(text: str, path: str, loader: type[yaml.SafeLoader] = _FastLoader) -> None:
    """Walk the YAML events once (no recursion, nothing built) and refuse what is too big or deep."""
    # One entry per open collection: its anchor and how many nodes it holds so far (aliases expanded).
    open_: list[tuple[str | None, int]] = [(None, 0)]
    anchors: dict[str, int] = {}
    total = 0
    # One event at a time, so a hostile document stops at the first event past a limit: libyaml's
    # scanner slows down with every open flow level (200,000 unclosed `[` took minutes to read whole).
    events = _events(text, loader)
    while True:
        try:
            event = next(events)
        except StopIteration:
            return
        except yaml.YAMLError as exc:
            if loader is not _UniqueKeyLoader and _past_libyaml_depth(exc):
                # pyyaml's parser reads no further ahead than it must: the walk below then names
                # the line and column where the document passes our depth, as for any other.
                return _check_size(text, path, _UniqueKeyLoader)
            return  # not YAML: composing it reports the error with pyyaml's words
        mark = event.start_mark
        where = f"{path}:{mark.line + 1}:{mark.column + 1}" if mark is not None else f"{path}:1"
        if isinstance(event, yaml.CollectionStartEvent):
            if len(open_) > MAX_DEPTH:
                raise WorkflowFormatError(path, [f"{where}: nested more than {MAX_DEPTH} levels deep"])
            open_.append((event.anchor, 0))
            continue
        if isinstance(event, yaml.CollectionEndEvent):
            anchor, inside = open_.pop()
            size = inside + 1
        elif isinstance(event, yaml.AliasEvent):
            anchor, size = None, anchors.get(str(event.anchor), 1)
        elif isinstance(event, yaml.ScalarEvent):
            anchor, size = event.anchor, 1
        else:
            continue
        if anchor:
            anchors[anchor] = size
        parent_anchor, inside = open_[-1]
        open_[-1] = (parent_anchor, inside + size)
        total += size
        if total > MAX_NODES:
            raise WorkflowFormatError(
                path, [f"{where}: the document expands to more than {MAX_NODES} YAML nodes (aliases included)"]
            )


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


def _read_yaml(text: str, path: str) -> tuple[yaml.Node | None, Any]:
    """Node tree and data of ``text``, once it is known to be of workflow size (one clear error
    on this file, never a session-wide MemoryError or RecursionError)."""
    if len(text.encode("utf-8", "replace")) > MAX_FILE_BYTES:
        raise WorkflowFormatError(
            path, [f"{path}:1: the file is larger than {MAX_FILE_BYTES // 1024} KiB; a workflow file is far smaller"]
        )
    if not _within_limits_at_a_glance(text):
        _check_size(text, path)
    try:
        return _compose_and_construct(text)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        where = f"{mark.line + 1}:{mark.column + 1}" if mark else "1"
        problem = exc.problem or "cannot be parsed"
        if "python/" in problem or "could not determine a constructor" in problem:
            problem += " (Python tags are not allowed in workflow files)"
        raise WorkflowFormatError(path, [f"{path}:{where}: invalid YAML: {problem}"]) from None
    except yaml.YAMLError as exc:
        raise WorkflowFormatError(path, [f"{path}:1: invalid YAML: {exc}"]) from None
    except RecursionError:  # a safety net behind _check_size: never abort the whole session
        raise WorkflowFormatError(path, [f"{path}:1: the document is nested too deeply"]) from None


def _is_words(path: tuple[str | int, ...]) -> bool:
    """Strings that go to the model as words: checks in words, fallbacks in words, model queries."""
    tail = path[-1] if path else None
    if tail == "query" and "extract" in path:
        return True
    if path[:1] == ("outcome",):
        return len(path) == 2 or path[2:] == ("check",)
    if len(path) >= 4 and path[0] == "steps" and path[2] in ("pre", "post"):
        return len(path) == 4 or path[4:] == ("check",)
    if len(path) >= 4 and path[0] == "steps" and path[2] == "fallback":
        return len(path) == 4 or path[4:] == ("agent",)
    return False


def _params_sets(wf: Workflow) -> list[dict[str, object]]:
    return [{**wf.params, **v.params} for v in wf.all_variations()]


def _secrets_reached(text: str, params: dict[str, object], seen: frozenset[str] = frozenset()) -> set[str]:
    """The ``{secret.X}`` a text leads to, directly or through params."""
    found: set[str] = set()
    for name in names_in(text):
        if name.startswith("secret."):
            found.add(name)
        elif name in params and name not in seen:
            found |= _secrets_reached(str(params[name]), params, seen | {name})
    return found


def _check_secret_words(wf: Workflow, texts: list[_Text], source: Source) -> list[str]:
    problems = []
    for t in texts:
        path, text = t.path, t.text
        if not _is_words(path) or not t.names:
            continue
        reached = set().union(*(_secrets_reached(text, p) for p in _params_sets(wf)))
        if reached:
            problems.append(
                f"{source.where(*path)}: {format_path(path)}: {{{sorted(reached)[0]}}} would be sent to the model: "
                "secrets may not appear in checks in words, fallbacks in words or queries "
                "(compare it with an expect, or type it with a do op)"
            )
    return problems


def _check_param_loops(wf: Workflow, data: dict[str, Any], source: Source) -> list[str]:
    """Params that refer to each other in a circle never resolve: name the circle."""
    problems: list[str] = []
    for params in _params_sets(wf):
        for start in params:
            chain = [start]
            while True:
                refs = [n for n in names_in(str(params[chain[-1]])) if n in params]
                nxt = next((n for n in refs if n in chain), None)
                if nxt is not None:
                    if nxt == start:
                        circle = " -> ".join(f"{{{n}}}" for n in [*chain, start])
                        line = f"{source.where('params', start)}: params.{start}: placeholders refer to each other in a loop: {circle}"
                        if line not in problems and not any(f"{{{start}}}" in p for p in problems):
                            problems.append(line)
                    break
                unvisited = [n for n in refs if n not in chain]
                if not unvisited:
                    break
                chain.append(unvisited[0])
    return problems


def _available_from(wf: Workflow) -> dict[str, float]:
    """For each extracted name, the first position where it has a value (see :func:`_position`)."""
    avail: dict[str, float] = {}
    for i, step in enumerate(wf.steps):
        for k, op in enumerate(step.do or ()):
            if isinstance(op.arg, Extract):
                avail.setdefault(op.arg.into, i + (k + 1) / 1000)  # for the ops after it, and the post checks
        for fb in step.fallback:
            for op in fb.do or ():
                if isinstance(op.arg, Extract):
                    avail.setdefault(op.arg.into, i + 1)
        for ex in step.extract:
            avail.setdefault(ex.into, i + 1)  # step extraction runs after the post checks
    return avail


def _position(path: tuple[str | int, ...]) -> float:
    """When a string is filled in: before step 1 (-1), during step i's pre checks, action and op k
    (i + k/1000), its post checks and fallbacks (i + 0.5), or after the last step (outcome)."""
    if path[:1] == ("outcome",):
        return float("inf")
    if path[:1] != ("steps",) or len(path) < 3 or not isinstance(path[1], int):
        return -1
    i = path[1]
    if path[2] == "do" and len(path) > 3 and isinstance(path[3], int):
        return i + path[3] / 1000
    if path[2] in ("post", "fallback", "extract"):
        return i + 0.5
    return i


def _check_use_before_extract(
    wf: Workflow, texts: list[_Text], source: Source, builtin_names: Collection[str] = ()
) -> list[str]:
    """A ``{name}`` that only an extraction provides must come after what extracts it."""
    given = {"base_url", *builtin_names} | {k for p in _params_sets(wf) for k in p}
    avail = _available_from(wf)
    problems: list[str] = []
    for t in texts:
        path = t.path
        for name in t.names:
            if name in given or name not in avail or avail[name] <= _position(path):
                continue
            problems.append(
                f"{source.where(*path)}: {format_path(path)}: {{{name}}} is used before it is extracted "
                f"(step {int(avail[name] - 0.001) + 1} extracts it)"
            )
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
            origins.append(StepOrigin(source.path))
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
            origins.append(StepOrigin(inner.file, group, group_id))
    if session is not None:
        _carry_fixtures(fixtures, session)
    update: dict[str, Any] = {}
    if any(s.use for s in wf.steps):
        update["steps"] = tuple(steps)
    if tuple(fixtures) != wf.usefixtures:
        update["usefixtures"] = tuple(fixtures)
    return LoadedWorkflow(
        wf.model_copy(update=update) if update else wf,
        Source(source.path, lines),
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
    node, data = _read_yaml(text, path)
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
    texts = _texts(data)
    problems = _check_placeholders(wf, texts, source, builtin_names) + _check_files(wf, folder, source)
    problems += _check_param_loops(wf, data, source)
    problems += _check_secret_words(wf, texts, source)
    problems += _check_use_before_extract(wf, texts, source, builtin_names)
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
    return {name for t in _texts([data, {str(k): str(v) for k, v in (extra or {}).items()}]) for name in t.names}
