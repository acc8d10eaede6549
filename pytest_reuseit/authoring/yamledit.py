"""Round-trip editing of workflow files: small structured edits that leave everything else alone.

``reuseit heal`` and ``reuseit guide`` change a step or two of a file a person wrote and keeps
in version control. That file has comments that explain why a step is there, blank lines between
steps, a mix of quoting styles and flow mappings like ``{role: button, name: Go}``. The loader
reads with pyyaml, which is right for validation but cannot write a file back without losing all
of that: it drops every comment, and its dump re-quotes strings, re-indents and turns flow
mappings into blocks, so a one-locator fix would show up as a rewrite of the whole file. This
module therefore uses **ruamel.yaml** in round-trip mode (a dependency for this reason only): it
keeps comments, key order, blank lines, quoting and flow style where nothing was changed, so the
diff a user reviews shows exactly the edit.

Three ruamel habits are corrected here:

- indentation: the settings that reproduce the file best are found by trying the usual ones
  (``WorkflowDoc.exact`` says whether an unedited dump gives back the original text exactly);
- a one-key mapping in a flow sequence (``[{click: "#go"}]``) keeps its braces;
- comment and blank lines that follow the last item of a list or mapping are attached by ruamel
  to that item; when an edit appends after it they are moved behind the new item, so a blank line
  and a comment that introduce the next step stay in front of the next step.

Every edited text is validated with :func:`pytest_reuseit.workflow.loader.parse` before it is
shown or written (:meth:`WorkflowDoc.validated`); a result that does not validate raises
:class:`YamlEditError` naming what broke. Indexes in this API are 0-based, as in document paths
(``steps[1].do[0]``); the commands show steps 1-based, as users count them.
"""

from __future__ import annotations

import difflib
import io
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.error import CommentMark, YAMLError
from ruamel.yaml.scalarstring import DoubleQuotedScalarString, SingleQuotedScalarString
from ruamel.yaml.tokens import CommentToken

from ..errors import ReuseitError, WorkflowFormatError
from ..sites import LocalSites
from ..workflow.loader import LoadedWorkflow
from ..workflow.locators import LOCATOR_KINDS
from ..workflow.ops import written_name
from ..workflow.writer import literal, render

#: Keys of a locator mapping (the kind and its refinements); an op's other keys (value, option,
#: key, state) are its arguments and are kept when the locator is replaced.
LOCATOR_KEYS = (*LOCATOR_KINDS, "name", "exact", "nth", "has_text", "within", "or")
#: Ops whose argument may be a bare locator string (``click: 'role=button[name="Go"]'``).
BARE_LOCATOR_OPS = (
    "click",
    "dblclick",
    "hover",
    "mouse_down",
    "mouse_up",
    "mouse_out",
    "check",
    "uncheck",
    "focus",
    "scroll",
)
#: Ops whose argument is a mapping of locator keys plus their own keys.
MAPPING_LOCATOR_OPS = {
    "fill": "value",
    "type": "value",
    "change": "value",
    "select": "option",
    "press": "key",
    "wait": "state",
}
#: Where a new key goes in a step: after the nearest existing key that comes before it here.
STEP_KEY_ORDER = (
    "action",
    "pre",
    "do",
    "post",
    "fallback",
    "extract",
    "retries",
    "check_timeout",
    "step_timeout",
    "action_timeout",
    "navigation_timeout",
)
LIST_FIELDS = ("pre", "post", "fallback")


class YamlEditError(ReuseitError):
    """An edit cannot be made, or its result is not a valid workflow; ``problems`` says why."""

    def __init__(self, path: str, problems: list[str]) -> None:
        self.path = path
        self.problems = problems
        super().__init__("\n".join(problems))


def _yaml(mapping: int, sequence: int, offset: int) -> YAML:
    y = YAML(typ="rt")
    y.preserve_quotes = True
    y.width = 100_000  # never re-wrap a long line
    y.brace_single_entry_mapping_in_flow_sequence = True
    y.indent(mapping=mapping, sequence=sequence, offset=offset)
    return y


_INDENTS = ((2, 4, 2), (2, 2, 0), (4, 6, 4), (4, 4, 2), (4, 4, 0), (2, 4, 0), (4, 6, 2), (3, 5, 2))


def _dump(y: YAML, data: Any) -> str:
    out = io.StringIO()
    y.dump(data, out)
    return out.getvalue()


def _changed_lines(a: str, b: str) -> int:
    return sum(1 for line in difflib.ndiff(a.splitlines(), b.splitlines()) if line[:1] in "+-")


@dataclass
class WorkflowDoc:
    """One workflow file loaded round-trip. Edit with the methods, then :meth:`validated`."""

    path: str
    original: str
    data: CommentedMap
    yaml: YAML = field(repr=False)
    newline: str = "\n"
    exact: bool = True  # an unedited dump reproduces ``original`` exactly

    # ------------------------------------------------------------------ loading and dumping

    @classmethod
    def from_text(cls, text: str, path: str) -> WorkflowDoc:
        newline = "\r\n" if "\r\n" in text else "\n"
        norm = text.replace("\r\n", "\n")
        best: tuple[int, YAML, Any] | None = None
        try:
            for m, s, o in _INDENTS:
                y = _yaml(m, s, o)
                data = y.load(norm)
                if not isinstance(data, CommentedMap):
                    raise YamlEditError(
                        path, [f"{path}:1: a workflow file must be a mapping with name, task, start_url and steps"]
                    )
                bad = _changed_lines(norm, _dump(y, data))
                if best is None or bad < best[0]:
                    best = (bad, y, data)
                if bad == 0:
                    break
        except YAMLError as exc:
            mark = getattr(exc, "problem_mark", None)
            line = mark.line + 1 if mark is not None else 1
            raise YamlEditError(
                path, [f"{path}:{line}: invalid YAML: {getattr(exc, 'problem', None) or exc}"]
            ) from None
        assert best is not None
        bad, y, data = best
        # Reload with the chosen settings: dumping mutates nothing, but a fresh tree is cheap.
        return cls(path=path, original=text, data=y.load(norm), yaml=y, newline=newline, exact=bad == 0)

    @classmethod
    def load(cls, path: str | Path, display: str | None = None) -> WorkflowDoc:
        shown = display or str(path)
        try:
            with open(path, encoding="utf-8", newline="") as fh:
                text = fh.read()
        except (OSError, UnicodeDecodeError) as exc:
            raise YamlEditError(shown, [f"{shown}:1: cannot read the file: {exc}"]) from None
        return cls.from_text(text, shown)

    def dump(self) -> str:
        """The document as text now, with the file's own line endings."""
        text = _dump(self.yaml, self.data)
        return text.replace("\n", self.newline) if self.newline != "\n" else text

    def validated(self) -> tuple[str, LoadedWorkflow]:
        """The edited text and the workflow it loads as; YamlEditError if it does not validate."""
        try:  # through the one writer: comments one line each, read back as meant, validated
            written = render(self.data, self.path, yaml=self.yaml, builtin_names=LocalSites.NAMES, newline=self.newline)
        except WorkflowFormatError as exc:
            raise YamlEditError(self.path, ["the edited workflow does not validate:", *exc.problems]) from None
        return written.text, written.loaded

    def diff(self, new_text: str | None = None) -> str:
        """Unified diff from the file as loaded to ``new_text`` (default: the document now)."""
        return unified_diff(self.original, self.dump() if new_text is None else new_text, self.path)

    # ------------------------------------------------------------------ finding things

    def _fail(self, message: str) -> YamlEditError:
        return YamlEditError(self.path, [f"{self.path}: {message}"])

    def steps(self) -> CommentedSeq:
        steps = self.data.get("steps")
        if not isinstance(steps, CommentedSeq):
            raise self._fail("'steps' is not a list")
        return steps

    def step(self, i: int) -> CommentedMap:
        steps = self.steps()
        if not 0 <= i < len(steps):
            raise self._fail(f"step {i + 1} does not exist: the workflow has {len(steps)} step(s)")
        step = steps[i]
        if not isinstance(step, CommentedMap):
            raise self._fail(f"steps[{i}] is not a mapping")
        return step

    def _do(self, i: int, fallback: int = -1) -> tuple[CommentedSeq, str]:
        """The ``do`` list of ``steps[i]`` (``fallback`` -1), or of its fallback ``fallback``; and
        its document path for messages."""
        step = self.step(i)
        holder: Any = step
        where = f"steps[{i}]"
        if fallback >= 0:
            fbs = step.get("fallback")
            if not isinstance(fbs, CommentedSeq) or not 0 <= fallback < len(fbs):
                raise self._fail(f"step {i + 1} has no fallback {fallback + 1}")
            holder, where = fbs[fallback], f"steps[{i}].fallback[{fallback}]"
        do = holder.get("do") if isinstance(holder, CommentedMap) else None
        if not isinstance(do, CommentedSeq):
            raise self._fail(f"{where} has no 'do' list")
        return do, f"{where}.do"

    def op(self, i: int, j: int, fallback: int = -1) -> tuple[CommentedMap, str]:
        """The op mapping at ``steps[i].do[j]`` (or ``steps[i].fallback[fallback].do[j]``) and its op name."""
        do, where = self._do(i, fallback)
        if not 0 <= j < len(do):
            raise self._fail(f"{where} has no op {j + 1} (it has {len(do)})")
        op = do[j]
        name = written_name(op)
        if not isinstance(op, CommentedMap) or name is None:
            raise self._fail(f"{where}[{j}] is not an op mapping with one op name")
        return op, name

    def line_of_op(self, i: int, j: int, fallback: int = -1) -> int:
        """1-based line of ``steps[i].do[j]`` or of a fallback's op (the line the loader reports for it)."""
        do, _ = self._do(i, fallback)
        return int(do.lc.item(j)[0]) + 1

    # ------------------------------------------------------------------ edits

    def replace_op_locator(self, i: int, j: int, selector: str) -> str:
        """Point the op at ``steps[i].do[j]`` at ``selector`` (a Playwright selector string).

        The op keeps its name and its own keys (``value``, ``option``, ``key``, ``state``); the old
        locator keys (kind and refinements such as ``nth`` or ``within``) go, since they refined
        the old locator. Returns the old locator, as written, for messages.
        """
        op, kind = self.op(i, j)
        arg = op[kind]
        new = _quoted(literal(selector))
        if kind in BARE_LOCATOR_OPS:
            if isinstance(arg, str):
                old = _inline(arg)
                _replace_value(op, kind, new)
                return old
            if isinstance(arg, CommentedMap) and any(k in arg for k in LOCATOR_KINDS):
                extras = [k for k in arg if k not in LOCATOR_KEYS]
                old = _inline(arg)
                if not extras:
                    _replace_value(op, kind, new)
                else:  # cannot happen for a valid file (Locator forbids other keys); keep them anyway
                    _swap_locator_keys(arg, new)
                return old
            raise self._fail(f"steps[{i}].do[{j}] ({kind}) has no locator to replace")
        if kind in MAPPING_LOCATOR_OPS:
            if isinstance(arg, CommentedMap) and any(k in arg for k in LOCATOR_KINDS):
                old = _inline({k: v for k, v in arg.items() if k in LOCATOR_KEYS})
                _swap_locator_keys(arg, new)
                return old
            raise self._fail(f"steps[{i}].do[{j}] ({kind} {_inline(arg)}) has no locator to replace")
        raise self._fail(f"steps[{i}].do[{j}] is a '{kind}' op, which has no locator to replace")

    def set_locator(
        self, i: int, j: int, old: dict[str, Any], new: dict[str, Any], fallback: int = -1, part: str = ""
    ) -> None:
        """Change the keys of the locator at ``steps[i].do[j]`` (or of fallback ``fallback``'s op
        ``j``; or of its ``part``, a drag's ``to``) that name its element (``name``, ``label``,
        ``exact``) from ``old`` to ``new``, each written as the file wrote it; every other key and
        the op's own stay. The op must still say ``old``: a file edited since the run that
        proposed the change is not changed again."""
        op, kind = self.op(i, j, fallback)
        arg = op[kind]
        where = f"steps[{i}].do[{j}]" if fallback < 0 else f"steps[{i}].fallback[{fallback}].do[{j}]"
        if part:
            arg = arg.get(part) if isinstance(arg, CommentedMap) else None
            where, kind = f"{where}.{kind}.{part}", part
        if not isinstance(arg, CommentedMap):
            raise self._fail(f"{where} ({kind} {_inline(arg)}) is not a locator mapping")
        now = {k: arg.get(k) for k in old}
        if now != old or any(k not in old and k in arg for k in new):
            raise self._fail(
                f"{where} now says {kind} {_inline(arg)}, not {_inline(old)}: the file changed since the run"
            )
        for key, value in new.items():
            if key in arg:
                if arg[key] != value:
                    arg[key] = _like(arg[key], value) if isinstance(value, str) else value
            else:
                keys = list(arg)
                arg.insert(keys.index(next(k for k in keys if k in old)) + len(old), key, value)

    def insert_fallback(self, i: int, fallback: dict[str, Any], comment: str = "") -> None:
        """Put ``fallback`` (a ``do`` fallback) first in ``steps[i].fallback``, creating the list if
        needed: it clears the way before the step's other fallbacks try anything. ``comment`` goes
        at the end of its first line (why it is there)."""
        step = self.step(i)
        item = CommentedMap((k, _flow_ops(v) if k == "do" else v) for k, v in fallback.items())
        if comment:
            item.yaml_add_eol_comment(comment, next(iter(item)))
        seq = step.get("fallback")
        if seq is None:
            _insert_key(step, "fallback", CommentedSeq([item]), STEP_KEY_ORDER)
            return
        if not isinstance(seq, CommentedSeq):
            raise self._fail(f"steps[{i}].fallback is not a list")
        seq.insert(0, item)

    def replace_action(self, i: int, text: str) -> str:
        """Reword ``steps[i].action``; returns the old wording. Quoting style is kept."""
        step = self.step(i)
        old = str(step.get("action", ""))
        _replace_value(step, "action", _like(step.get("action"), text))
        return old

    def add_entry(self, i: int, fld: str, text: str) -> None:
        """Append ``text`` to ``steps[i].<fld>`` (pre, post or fallback), creating the list if needed."""
        if fld not in LIST_FIELDS:
            raise self._fail(f"cannot add to '{fld}': only {', '.join(LIST_FIELDS)} are lists of entries")
        step = self.step(i)
        seq = step.get(fld)
        if seq is None:
            _insert_key(step, fld, CommentedSeq([_plain(text)]), STEP_KEY_ORDER)
            return
        if not isinstance(seq, CommentedSeq):
            raise self._fail(f"steps[{i}].{fld} is not a list")
        tail = _take_tail(seq)
        seq.append(_like(seq[-1] if len(seq) else None, text))
        _give_tail(seq, len(seq) - 1, tail)

    def replace_entry(self, i: int, fld: str, index: int, text: str) -> str:
        """Reword entry ``index`` of ``steps[i].<fld>``; returns the old wording.

        A check written as a mapping keeps its ``expect`` and ``votes`` (its ``check`` words are
        replaced or added); a fallback written as ``{agent: ...}`` keeps the form; anything else
        (a plain string, or a ``do`` fallback) becomes the new words.
        """
        if fld not in LIST_FIELDS:
            raise self._fail(f"cannot replace in '{fld}': only {', '.join(LIST_FIELDS)} are lists of entries")
        seq = self.step(i).get(fld)
        size = len(seq) if isinstance(seq, CommentedSeq) else 0
        if not 0 <= index < size:
            raise self._fail(f"step {i + 1} has no {fld} entry {index} to replace (it has {size}; indexes start at 0)")
        assert isinstance(seq, CommentedSeq)
        item = seq[index]
        words_key = "check" if fld in ("pre", "post") else "agent"
        if isinstance(item, CommentedMap) and (words_key in item or (fld != "fallback" and "expect" in item)):
            old = str(item.get(words_key) or _inline(item))
            if words_key in item:
                _replace_value(item, words_key, _like(item[words_key], text))
            else:
                item.insert(0, words_key, _plain(text))
            return old
        old = item if isinstance(item, str) else _inline(item)
        _replace_value(seq, index, _like(item, text))
        return str(old)

    def promote_entry(self, fld: str, i: int, index: int, expect: list[dict[str, Any]]) -> str:
        """Write ``expect`` (DOM assertions) and ``promoted: true`` beside the words of a check.

        ``fld`` is pre or post (of ``steps[i]``) or outcome (``i`` ignored). A check written as plain
        words becomes ``{check: words, expect: ..., promoted: true}``; the words stay as written.
        Returns the words.
        """
        if fld == "outcome":
            seq = self.data.get("outcome")
        elif fld in ("pre", "post"):
            seq = self.step(i).get(fld)
        else:
            raise self._fail(f"cannot promote a check in '{fld}': only pre, post and outcome hold checks")
        if not isinstance(seq, CommentedSeq) or not 0 <= index < len(seq):
            raise self._fail(f"no {fld} check {index} to promote")
        item = seq[index]
        value = _flow(expect[0] if len(expect) == 1 else expect)
        if isinstance(item, str):
            mapping = CommentedMap()
            mapping["check"] = item
            mapping["expect"] = value
            mapping["promoted"] = True
            _replace_value(seq, index, mapping)
            return str(item)
        if isinstance(item, CommentedMap) and "check" in item:
            tail = _take_tail(item)
            item["expect"] = value
            item["promoted"] = True
            _give_tail(item, "promoted", tail)
            return str(item["check"])
        raise self._fail(f"{fld} check {index} has no words to promote")


# --------------------------------------------------------------------------- text helpers


def _flow(value: Any) -> Any:
    """``value`` as nested flow collections (``{text: {css: ".x", contains: "y"}}``), one line per assertion."""
    if isinstance(value, dict):
        out = CommentedMap((k, _flow(v)) for k, v in value.items())
        out.fa.set_flow_style()
        return out
    if isinstance(value, list):
        seq = CommentedSeq(_flow(v) for v in value)
        seq.fa.set_block_style()
        return seq
    return _quoted(value) if isinstance(value, str) and value and not value.isalnum() else value


def _flow_ops(ops: list[Any]) -> CommentedSeq:
    """A fallback's ``do`` list on one line: ``[{click: {role: button, name: No thanks}}]``."""
    seq = CommentedSeq(_flow_plain(op) for op in ops)
    seq.fa.set_flow_style()
    return seq


def _flow_plain(value: Any) -> Any:
    """Nested flow mappings whose strings ruamel quotes only where YAML needs it (as people write
    ``{role: button, name: No thanks}``)."""
    if isinstance(value, dict):
        out = CommentedMap((k, _flow_plain(v)) for k, v in value.items())
        out.fa.set_flow_style()
        return out
    return value


def unified_diff(old: str, new: str, path: str) -> str:
    """A unified diff (``a/PATH`` → ``b/PATH``), empty when nothing changed."""
    lines = difflib.unified_diff(
        old.splitlines(keepends=True), new.splitlines(keepends=True), fromfile=f"a/{path}", tofile=f"b/{path}"
    )
    out = []
    for line in lines:
        out.append(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n")
    return "".join(out)


def _quoted(text: str) -> str:
    """A selector as a quoted scalar: single quotes unless it has one (it usually has ")."""
    return SingleQuotedScalarString(text) if "'" not in text else DoubleQuotedScalarString(text)


def _plain(text: str) -> str:
    """New words: a plain string; ruamel quotes it if YAML needs it."""
    return str(text)


def _like(old: Any, text: str) -> str:
    """``text`` in the quoting style of ``old`` (a string the user quoted stays quoted)."""
    if isinstance(old, SingleQuotedScalarString):
        return SingleQuotedScalarString(text)
    if isinstance(old, DoubleQuotedScalarString):
        return DoubleQuotedScalarString(text)
    return _plain(text)


def _inline(value: Any) -> str:
    """A short one-line form of a YAML value for messages."""
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {_inline(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(_inline(v) for v in value) + "]"
    return repr(str(value)) if isinstance(value, str) else str(value)


# A block collection of the document: what holds items, and their comments.
_Block = CommentedMap | CommentedSeq


# --------------------------------------------------------------------------- comment bookkeeping
#
# ruamel keeps a comment in ``node.ca.items[key]``: for a mapping key at position 2 (after the
# value), for a sequence item at position 0. The token holds the rest of the item's line (an
# end-of-line comment, or just "\n") followed by every comment and blank line up to the next
# item; for the last item of a nested collection that includes what introduces the next section.


def _slot(node: Any) -> tuple[Any, int] | None:
    """The last item of a block collection and the position of its comment (None for flow/empty)."""
    if not isinstance(node, (CommentedMap, CommentedSeq)) or not len(node) or node.fa.flow_style():
        return None
    if isinstance(node, CommentedMap):
        return list(node)[-1], 2
    return len(node) - 1, 0


def _chain(container: _Block, key: Any, pos: int) -> list[tuple[_Block, Any, int]]:
    """``(container, key, pos)`` and then the last item of each block collection nested in its value."""
    out = [(container, key, pos)]
    node = container[key]
    while (slot := _slot(node)) is not None:
        out.append((node, slot[0], slot[1]))
        node = node[slot[0]]
    return out


def _end_text(container: _Block) -> str:
    """Remove and return the comments ruamel keeps at the end of a collection (``ca.end``)."""
    end = getattr(container.ca, "end", None)
    if not end:
        return ""
    text = "".join(" " * (getattr(t.start_mark, "column", 0) or 0) + t.value for t in end if t is not None)
    container.ca.end = []
    return text


def _split_token(container: _Block, key: Any, pos: int) -> str:
    """Cut the lines after the item's own line off its comment token; return them."""
    entry = container.ca.items.get(key)
    token = entry[pos] if entry and len(entry) > pos else None
    if token is None:
        return ""
    value = token.value
    cut = value.find("\n")
    if cut < 0 or cut == len(value) - 1:
        return ""
    token.value = value[: cut + 1]
    return value[cut + 1 :]


def _take_tail_after(container: _Block, key: Any) -> str:
    """Remove and return the comment/blank lines between ``container[key]`` and what follows it."""
    pos = 2 if isinstance(container, CommentedMap) else 0
    chain = _chain(container, key, pos)
    parts = [_split_token(c, k, p) for c, k, p in reversed(chain)]
    parts += [_end_text(c) for c, _, _ in reversed(chain[1:])]
    return "".join(parts)


def _take_tail(node: Any) -> str:
    """Remove and return the comment/blank lines that follow the last item of ``node``."""
    slot = _slot(node)
    if slot is None:
        return ""
    return _take_tail_after(node, slot[0]) + _end_text(node)


def _give_tail(container: _Block, key: Any, tail: str) -> None:
    """Attach ``tail`` (lines from :func:`_take_tail`) after the (deepest last part of) ``container[key]``."""
    if not tail:
        return
    holder, k, pos = _chain(container, key, 2 if isinstance(container, CommentedMap) else 0)[-1]
    entry = holder.ca.items.setdefault(k, [None, None, None, None])
    while len(entry) <= pos:
        entry.append(None)
    existing = entry[pos]
    if existing is not None:
        existing.value = (existing.value if existing.value.endswith("\n") else existing.value + "\n") + tail
    else:
        entry[pos] = CommentToken("\n" + tail, CommentMark(0))


def _replace_value(container: _Block, key: Any, new: Any) -> None:
    """``container[key] = new`` keeping the lines that followed the old value after the new one."""
    old = container[key]
    tail = _take_tail(old)
    container[key] = new
    _give_tail(container, key, tail)


def _swap_locator_keys(arg: CommentedMap, selector: str) -> None:
    """Replace the locator keys of an op's mapping with ``selector: ...`` where the first one was."""
    keys = list(arg)
    loc_keys = [k for k in keys if k in LOCATOR_KEYS]
    first = keys.index(loc_keys[0])
    comment = arg.ca.items.get(loc_keys[0])
    last_key = keys[-1]
    tail = _take_tail(arg) if last_key in loc_keys else ""
    for k in loc_keys:
        del arg[k]
        arg.ca.items.pop(k, None)
    arg.insert(first, "selector", selector)
    if comment is not None:
        arg.ca.items["selector"] = comment
    if tail:
        _give_tail(arg, list(arg)[-1], tail)


def _insert_key(mapping: CommentedMap, key: str, value: Any, order: tuple[str, ...]) -> None:
    """Insert ``key`` after the nearest existing key that comes before it in ``order``.

    The lines after the previous key's value (a blank line, a comment introducing what comes
    next) belong in front of what comes next, so they move behind the new key.
    """
    keys = list(mapping)
    rank = order.index(key) if key in order else len(order)
    pos = 0
    for n, k in enumerate(keys):
        if k in order and order.index(k) < rank:
            pos = n + 1
    tail = ""
    if pos >= len(keys):
        tail = _take_tail(mapping)
    elif pos > 0:
        tail = _take_tail_after(mapping, keys[pos - 1])
    mapping.insert(pos, key, value)
    _give_tail(mapping, key, tail)
