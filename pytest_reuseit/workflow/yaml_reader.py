"""Line-aware, safe reading of a workflow file's YAML.

pyyaml's SafeLoader composes a node tree that keeps a mark (line, column) on every node; the
loader keeps the lines of that tree beside the plain data (:func:`index_lines`), so any
validation error can be pointed at ``file:line`` with the path inside the document
(``steps[2].post[0].expect.text``), as tavern does.

Each file is parsed once: the data is constructed from the same node tree the lines are read
from, and the tree is composed by libyaml (``CSafeLoader``) when pyyaml has it. Parsing in pure
Python, twice, was nearly all the time of collecting many files (benchmarks/README.md). Before
that, a file larger or deeper than any workflow is refused with one clear error.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import yaml

from ..errors import WorkflowFormatError

# Bounds on input, so one hostile or broken file fails alone instead of exhausting the session:
# a real workflow is a few kilobytes, a few levels deep, with a few hundred YAML nodes.
MAX_FILE_BYTES = 256 * 1024
MAX_DEPTH = 64
MAX_NODES = 50_000  # after expanding aliases (*a): nine lines of nested aliases can mean billions


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


def index_lines(node: yaml.Node, prefix: tuple[str | int, ...], out: dict[tuple[str | int, ...], int]) -> None:
    out[prefix] = node.start_mark.line + 1
    if isinstance(node, yaml.MappingNode):
        for key_node, value_node in node.value:
            key = key_node.value
            out[prefix + (key,)] = key_node.start_mark.line + 1
            index_lines(value_node, prefix + (key,), out)
            out[prefix + (key,)] = key_node.start_mark.line + 1
    elif isinstance(node, yaml.SequenceNode):
        for i, item in enumerate(node.value):
            index_lines(item, prefix + (i,), out)


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


def read_yaml(text: str, path: str) -> tuple[yaml.Node | None, Any]:
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
