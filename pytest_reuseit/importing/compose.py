"""A demonstration as a guarded workflow: the document written, comments and all.

One step per user action: its op with the locator a person writes, the source's assertions as
post checks, each other way to find the element as a fallback that answers only an action that
found nothing (``when: action``: after a failed post check it would do the action twice). URLs
of the site are written from ``{base_url}``. What is typed becomes a parameter, a secret or a
unique value (``values.py``). Derived checks are added by ``derive.py`` with a comment each.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from ruamel.yaml.comments import CommentedMap, CommentedSeq

from ..workflow.writer import Written, literal, one_line, render
from .demo import Demonstration, DemoStep
from .files import FILES
from .refs import holds_ref, only_ref, placeholders_in, ref
from .selectors import to_loc
from .values import TypedValues, is_secret_field, slug

# Ops whose argument is a bare locator; the others take a mapping of the locator and a value.
_VALUE_KEY = {
    "fill": "value",
    "change": "value",
    "type": "value",
    "select": "option",
    "upload": "files",
    "press": "key",
    "dispatch": "event",
}
# Steps typed values come from (parameters, secrets, unique values).
TYPED = ("fill", "type", "select", "change")


@dataclass
class Composed:
    """One workflow as it will be written, and what the summary counts."""

    title: str
    source: str
    doc: CommentedMap
    typed: TypedValues
    origins: tuple[str, ...]  # the addresses written from {base_url}
    source_checks: int = 0
    unexpressed: list[str] = field(default_factory=list)
    # Imported, but not quite as the source runs it (a verify that stops the run): said, counted.
    caveats: list[str] = field(default_factory=list)
    derived: int = 0
    dropped: int = 0
    # Per step of the file: the demonstration steps its ops came from (for derivation).
    groups: list[list[DemoStep]] = field(default_factory=list)
    # The first page opened, when it is the start_url: its checks are step 1's pre checks.
    first: DemoStep | None = None
    # What the import's runs found of a value the site accepts once, per value (pipeline.py).
    once_found: dict[str, str] = field(default_factory=dict)

    @property
    def step_count(self) -> int:
        return len(self.groups)

    def written(self, path: Path) -> Written:
        """The file's text, by the one writer's rules, as if it were the file at ``path`` (files
        it uploads are looked up beside it); WorkflowWriteError if it would not be as meant."""
        return render(
            self.doc, str(path), secrets=self.typed.secrets, folder=str(path.parent), builtin_names=BUILTIN_NAMES
        )

    def text(self) -> str:
        return self.written(Path(f"{slug(self.title)}.reuseit.yaml")).text


# The placeholders the import's own runs and ``pytest --base-url`` give every imported file.
BUILTIN_NAMES = ("base_url", "unique")


def flow(value: Any) -> Any:
    """``value`` as nested flow collections: one line per check or op."""
    if isinstance(value, dict):
        out = CommentedMap((k, flow(v)) for k, v in value.items())
        out.fa.set_flow_style()
        return out
    if isinstance(value, (list, tuple)):
        seq = CommentedSeq(flow(v) for v in value)
        seq.fa.set_flow_style()
        return seq
    return value


def origin_of(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}" if parts.scheme and parts.netloc else ""


def site_origin(demo: Demonstration, base_url: str) -> str:
    """Where the import's own runs go: ``--base-url``, else where the source started."""
    return origin_of(base_url or demo.start_url)


def relative(url: str, *origins: str) -> str:
    """A URL of the site written from ``{base_url}``: on one of ``origins`` (the ``--base-url``
    given, the address the source ran against); others as they are."""
    for origin in origins:
        if origin and (url == origin or url.startswith((origin + "/", origin + "?", origin + "#"))):
            return "{base_url}" + url[len(origin) :]
    return literal(url)


def site_url(url: str, *origins: str) -> str:
    """A URL as a step writes it: :func:`relative`, its path after ``{base_url}`` a literal too."""
    rel = relative(url, *origins)
    if rel.startswith("{base_url}"):
        return "{base_url}" + literal(rel[len("{base_url}") :])
    return rel


def _loc(selector: str) -> Any:
    loc = to_loc(selector)
    return loc["selector"] if list(loc) == ["selector"] else loc


# Input types Playwright's fill sets as the recorder's replay does (the value, then input and
# change events), beside the ones both type into.
_FILLED = {"", "text", "url", "tel", "search", "password", "number", "email", "textarea"}
_FILLED |= {"color", "date", "time", "datetime-local", "month", "range", "week"}


def change_kind(facts: dict[str, str]) -> str:
    """What a recording's ``change`` is on this element: ``select`` for a select, ``fill`` for a
    field Playwright fills as replay does, else ``change`` (the op that does what replay does: a
    checkbox's value set, or an element the import never saw)."""
    tag = facts.get("tag", "")
    if tag == "select":
        return "select"
    if tag == "textarea" or facts.get("editable") == "true":
        return "fill"
    if tag == "input" and facts.get("type", "").lower() in _FILLED:
        return "fill"
    return "change"


def op_for(step: DemoStep, selector: str | None, typed_value: str) -> Any:
    """The op doing ``step`` with its element found by ``selector``, and how it answers the
    dialogs it raises when the source said so."""
    op = _op_for(step, selector, typed_value)
    if step.dialog is not None and isinstance(op, dict):
        op["dialog"] = step.dialog
    return op


def _op_for(step: DemoStep, selector: str | None, typed_value: str) -> Any:
    kind = step.kind
    if kind in ("back", "forward", "reload", "close_page"):
        return kind
    if kind == "goto":
        return {"goto": typed_value}
    if kind == "eval":  # the source's own script, its braces kept braces
        return {"eval": literal(typed_value)}
    if kind == "switch":
        if typed_value == "main" or typed_value.isdigit():
            return {"switch_page": "main" if typed_value == "main" else int(typed_value)}
        return {"switch_page": {"url": {"equals": typed_value}}}
    if kind == "scroll" and selector is None:  # the mouse wheel over the page: by pixels
        return {"scroll": {"by": int(typed_value)}}
    if kind == "wait":
        return {"wait": int(typed_value)}
    if kind == "extract" and step.extract is not None:
        return {"extract": _extract(step.extract, step.value, selector)}
    if selector is None:  # a key pressed on whatever has the focus
        return {"press": step.value}
    op = _element_op(step, _loc(selector), typed_value)
    return op if kind == "scroll" else _with_modifiers(step, op)  # a scroll to a position is written without modifiers


def _extract(extract: dict[str, str], script: str, selector: str | None) -> dict[str, Any]:
    """A value read from the page into a placeholder: an element's text (or attribute) or value,
    or a script's value (the source's own script, its braces kept braces)."""
    out: dict[str, Any] = {"into": extract["into"]}
    if extract["read"] == "js" or selector is None:
        out["js"] = literal(script)
        if selector is not None:  # a function of the element
            out["of"] = _loc(selector)
        return out
    out[extract["read"]] = _loc(selector)
    if extract.get("attribute"):
        out["attribute"] = extract["attribute"]
    return out


def _element_op(step: DemoStep, loc: Any, typed_value: str) -> dict[str, Any]:
    """The op of a step on an element found by ``loc`` (a selector string or a LOC mapping)."""
    kind = step.kind
    mapping: dict[str, Any] = dict(loc) if isinstance(loc, dict) else {"selector": loc}
    if kind == "scroll":  # an element scrolled to a position of its own: "x, y"
        left, top = (float(v) for v in step.value.split(","))
        mapping.update(left=int(left) if left == int(left) else left, top=int(top) if top == int(top) else top)
        return {"scroll": mapping}
    if kind == "drag" and step.to is not None:  # the element dragged, and ``to`` the one it is dropped on
        return {"drag": {**mapping, "to": _loc(step.to.selectors[0])}}
    if kind not in _VALUE_KEY:
        return {kind: loc}
    value: Any = typed_value
    if kind == "upload":  # copied beside the workflow by the import (files.py)
        names = [f.name for f in step.files] or [v.strip() for v in typed_value.split(",") if v.strip()]
        value = [f"{FILES}/{name}" for name in names]
    if kind == "select" and step.options:  # a list box's options, each as chosen
        value = [literal(o) for o in step.options]
    mapping[_VALUE_KEY[kind]] = value
    return {kind: mapping}


def _with_modifiers(step: DemoStep, op: dict[str, Any]) -> dict[str, Any]:
    """The op with what the source said about how it runs: it opens a page, its mouse button,
    how long it may wait for its element."""
    if step.new_page:
        op["new_page"] = True
    if step.button and step.kind in ("click", "dblclick", "mouse_down", "mouse_up"):
        op["button"] = step.button
    if step.position is not None and step.kind in ("click", "dblclick", "hover"):
        op["position"] = {"x": _number(step.position[0]), "y": _number(step.position[1])}
    if step.at is not None:
        op["at"] = {"x": step.at[0], "y": step.at[1]}
    if step.timeout:
        op["timeout"] = step.timeout
    return op


def _number(value: float) -> int | float:
    return int(value) if value == int(value) else round(value, 2)


# An action in words, by its kind: {what} is the element, {value} the value as written, {key} the
# source's own value (a key, an event, a position). A click with another button says so below.
_WORDS = {
    "close_page": "Close the page",
    "goto": "Open {value}",
    "back": "Go back",
    "forward": "Go forward",
    "reload": "Reload the page",
    "eval": "Run a script in the page",
    "dispatch": "Dispatch {key} on {what}",
    "blur": "Leave {what}",
    "type": "Type {value} into {what}",
    "fill": "Fill {what} with {value}",
    "change": "Fill {what} with {value}",
    "select": "Select {value} in {what}",
    "upload": "Attach {value} to {what}",
    "scroll": "Scroll {what} to {key}",
    "click": "Click {what}",
    "dblclick": "Double-click {what}",
    "check": "Check {what}",
    "uncheck": "Uncheck {what}",
    "hover": "Hover over {what}",
    "mouse_down": "Press the mouse button on {what}",
    "mouse_up": "Let go of the mouse button on {what}",
    "mouse_out": "Move the mouse off {what}",
    "focus": "Focus {what}",
}


def words(step: DemoStep, selector: str | None, typed_value: str) -> str:
    """The step's action in words, as a person says it."""
    said = _words(step, selector, typed_value)
    if step.position is not None and step.kind in ("click", "dblclick", "hover"):
        said += f" at ({_number(step.position[0])}, {_number(step.position[1])}) in it"
    return said


def _words(step: DemoStep, selector: str | None, typed_value: str) -> str:
    what = _element_words(selector)
    kind = step.kind
    if step.words:
        return step.words
    if kind == "switch":
        return "Switch to the main page" if typed_value == "main" else f"Switch to the page {typed_value}"
    if kind == "scroll" and not selector:
        return f"Scroll by {typed_value} pixels"
    if kind in ("fill", "change") and not typed_value:
        return f"Clear {what}"
    if kind == "press":
        return f"Press {literal(step.value)}" + (f" in {what}" if selector else "")
    if step.button and kind in ("click", "dblclick"):
        return f"{_WORDS[kind].format(what=what)} with the {step.button} mouse button"
    if kind == "drag":
        return f"Drag {what} to {_element_words(step.to.selectors[0] if step.to else None)}"
    if kind == "wait":
        return f"Wait {typed_value} ms"
    if kind == "extract" and step.extract is not None:
        read = step.extract.get("attribute") or step.extract["read"]
        if step.extract["read"] == "js" and selector:  # a script of the element (WebDriver's attribute)
            return f'Store the {step.extract.get("attribute") or "value a script reads"} of {what} as "{step.extract["into"]}"'
        source = "a script in the page" if step.extract["read"] == "js" else what
        return f'Store the {"value" if read == "js" else read} of {source} as "{step.extract["into"]}"'

    template = _WORDS.get(kind, kind.capitalize() + " {what}")
    value = literal(typed_value) if kind == "upload" else typed_value  # file names: the others are written already
    point = f" at {step.at[0]},{step.at[1]} from its middle" if step.at is not None else ""
    return template.format(what=what, value=value, key=literal(step.value)) + point


def _element_words(selector: str | None) -> str:
    if not selector:
        return "the page"
    return literal(_loc_words(to_loc(selector), selector))


def _loc_words(loc: dict[str, Any], selector: str) -> str:
    name = loc.get("name") or loc.get("label") or loc.get("placeholder") or loc.get("text") or loc.get("test_id")
    inside = loc.get("within")
    where = ""
    if isinstance(inside, dict) and (inside.get("has_text") or inside.get("name") or inside.get("text")):
        where = f' in "{inside.get("has_text") or inside.get("name") or inside.get("text")}"'
    if "role" in loc and name:
        return f'the "{name}" {loc["role"]}{where}'
    if name:
        return f'"{name}"{where}'
    if "role" in loc:
        return f"the {loc['role']}{where}"
    # A recorder's first match (Selenium IDE's ``css=#q >> nth=0``) reads as its CSS, in its frame.
    if isinstance(loc.get("selector"), str):
        plain = loc["selector"].removeprefix("css=")
        return f"the element {plain}" + (" in a frame" if "frame" in loc else "")
    return f"the element {selector}"


def _checks(step: DemoStep, typed: TypedValues, origins: tuple[str, ...]) -> list[Any]:
    waits = {"timeout": step.check_timeout} if step.check_timeout else {}
    return [CommentedMap(expect=flow(_written(check, typed, origins)), **waits) for check in step.checks]


def _written(value: Any, typed: TypedValues, origins: tuple[str, ...]) -> Any:
    """A check as written: strings with typed values as placeholders, site URLs from ``{base_url}``."""
    if isinstance(value, dict):
        return {k: _written(v, typed, origins) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_written(v, typed, origins) for v in value]
    if isinstance(value, str):
        text = typed.in_text(value)
        for origin in origins:
            if origin:
                text = text.replace(origin, "{base_url}")
        return text
    return value


def compose(
    demo: Demonstration,
    selectors: list[list[str]],
    facts: list[dict[str, str]],
    base_url: str,
    once: tuple[str, ...] = (),
) -> Composed:
    """The workflow of ``demo``; ``selectors`` and ``facts`` per step (best first; what the
    element is), as ``locate.py`` read them; ``once``: typed values the site accepts once (the
    import's runs found it), written with ``{unique}``."""
    origins = (origin_of(base_url), origin_of(demo.start_url))
    typed = TypedValues(once=dict.fromkeys(once, ""), reserved=frozenset(demo.extracted()))
    doc = CommentedMap()
    doc["name"] = literal(demo.title)
    doc["task"] = literal(demo.title)
    steps = list(demo.steps)
    sels, fcts = list(selectors), list(facts)
    start = site_url(demo.start_url, *origins)
    doc["start_url"] = start
    hosts = _other_hosts(demo)
    if hosts:  # the source was on other hosts too (a frame, a pop-up): the workflow may open them
        doc["allowed_domains"] = flow(
            ["{base_url}" if start.startswith("{base_url}") else _host(demo.start_url), *hosts]
        )
    composed = Composed(demo.title, demo.source, doc, typed, origins)
    pending_pre: list[Any] = []
    first: DemoStep | None = None
    if steps and steps[0].kind == "goto" and len(steps) > 1:
        # The first page is the start_url; what was asserted on it is checked before step 2.
        pending_pre = _checks(steps[0], typed, origins)
        first = composed.first = steps[0]
        steps, sels, fcts = steps[1:], sels[1:], fcts[1:]
    seq = CommentedSeq()
    for group in _groups(steps):
        last = steps[group[-1]]
        ops, firsts = [], []
        for n in group:
            step, candidates, fact = steps[n], sels[n] if n < len(sels) else [], fcts[n] if n < len(fcts) else {}
            step, value = _as_written(step, candidates, fact, typed, origins)
            ops.append((step, candidates, value))
            firsts.append(words(step, candidates[0] if candidates else None, value))
        item = CommentedMap()
        if len(ops) == 2 and ops[1][0].kind == "press":  # typed, then submitted in the same field
            firsts[1] = f"press {literal(ops[1][0].value)}"
        item["action"] = " and ".join([firsts[0], *(w[0].lower() + w[1:] for w in firsts[1:])])
        if pending_pre:
            item["pre"] = CommentedSeq(pending_pre)
            pending_pre = []
        item["do"] = CommentedSeq(flow(_templated(op_for(st, c[0] if c else None, v), typed)) for st, c, v in ops)
        post = _checks(last, typed, origins)
        if post:
            item["post"] = CommentedSeq(post)
        # Another way to find the element(s): the k-th other selector of each op.
        others = max((len(c) for _, c, _ in ops), default=1) - 1
        if others > 0:
            item["fallback"] = CommentedSeq(
                CommentedMap(
                    do=CommentedSeq(
                        flow(_templated(op_for(st, c[min(k, len(c) - 1)] if c else None, v), typed)) for st, c, v in ops
                    ),
                    when="action",
                )
                for k in range(1, others + 1)
            )
            if others > 3:
                item["retries"] = others
        from_steps = [steps[n] for n in group] if seq or first is None else [first, *(steps[n] for n in group)]
        notes = [u for st in from_steps for u in st.unexpressed]
        caveats = [c for st in from_steps for c in st.caveats]
        composed.unexpressed.extend(notes)
        composed.caveats.extend(caveats)
        seq.append(item)
        lines = [
            *(one_line(r) for st in from_steps for r in st.remarks),
            *(f"not imported: {one_line(note)}" for note in notes),
            *(f"differs from the source: {one_line(c)}" for c in caveats),
        ]
        if lines:
            seq.yaml_set_comment_before_after_key(len(seq) - 1, before="\n".join(lines), indent=2)
        composed.groups.append([steps[n] for n in group])
    doc["steps"] = seq
    if typed.params:
        doc.insert(3, "params", CommentedMap(typed.params))
    _run_options(doc, demo)
    composed.source_checks = demo.checks_count()
    placeholders_in(doc)  # values the run reads (refs.py): placeholders, now that all else is literal
    doc.yaml_set_start_comment(
        f"Imported by `reuseit import` from {one_line(demo.source)}.\n"
        "Review it, then run it with pytest --base-url URL (URLs of the site are written from {base_url})."
    )
    return composed


def _host(url: str) -> str:
    return urlsplit(url).hostname or "" if url.startswith(("http://", "https://")) else ""


def _other_hosts(demo: Demonstration) -> list[str]:
    """The hosts other than the start page's that the source's pages and frames were on."""
    urls = [s.value for s in demo.steps if s.kind == "goto"] + demo.visited
    start = _host(demo.start_url)
    return [h for h in dict.fromkeys(map(_host, urls)) if h and h != start]


def _run_options(doc: CommentedMap, demo: Demonstration) -> None:
    """The browser options and settings the source set (a recording's viewport and timeout),
    before the steps."""
    for key in ("browser", "settings"):
        if getattr(demo, key):
            doc.insert(len(doc) - 1, key, flow(getattr(demo, key)))


def _as_written(
    step: DemoStep, candidates: list[str], fact: dict[str, str], typed: TypedValues, origins: tuple[str, ...]
) -> tuple[DemoStep, str]:
    """The step as its op is written (a recording's change as what the element is), and its value
    as the file says it (a URL from ``{base_url}``, a typed value as a parameter or a secret)."""
    if step.kind == "change":
        step = replace(step, kind=change_kind(fact))
    if step.kind in ("goto", "switch"):
        return step, site_url(step.value, *origins)
    if step.kind in TYPED and holds_ref(step.value):
        # A value the run reads (a stored text, an environment variable): its placeholder, no
        # parameter; an environment variable typed into a password field is a secret.
        name = only_ref(step.value)
        if name is not None and name.startswith("env.") and is_secret_field(fact, candidates):
            return step, ref("secret." + name[len("env.") :])
        return step, literal(step.value)
    if step.kind in TYPED:
        return step, typed.typed(step.value, fact, candidates)
    return step, step.value


def _groups(steps: list[DemoStep]) -> list[list[int]]:
    """Which demonstration steps make one step of the file: a field filled and then submitted
    with a key (Enter) is one step, as a person writes it; every other action is a step."""
    out: list[list[int]] = []
    for n, step in enumerate(steps):
        previous = steps[out[-1][-1]] if out else None
        if previous is not None and previous.kind == "switch" and len(out[-1]) == 1 and not previous.checks:
            out[-1].append(n)  # the page the action is on, made current first
        elif previous is not None and _same_field_step(step, previous, [steps[k] for k in out[-1]]):
            out[-1].append(n)
        else:
            out.append([n])
    return out


def _same_field_step(step: DemoStep, previous: DemoStep, group: list[DemoStep]) -> bool:
    """Whether ``step`` goes with the step before it, as a person writes one step: a key pressed
    in the field just filled or typed into (submitted), or typing into the field just cleared."""
    if previous.checks or step.target is None or previous.target is None:
        return False
    if step.target.selectors[:1] != previous.target.selectors[:1]:
        return False
    kinds = [s.kind for s in group]
    if step.kind == "press":
        return kinds in (["fill"], ["type"], ["fill", "type"])
    return step.kind == "type" and kinds == ["fill"] and not previous.value


def _templated(op: Any, typed: TypedValues) -> Any:
    """An op's locator texts with the values typed earlier as their placeholders (a todo's row
    found by the todo's name); the typed value itself is already written."""
    if not isinstance(op, dict):
        return op
    out: dict[str, Any] = {}
    for key, value in op.items():
        if key == "dialog":  # accept, dismiss, or the text typed into a prompt: a literal
            out[key] = {**value, "text": literal(value["text"])} if isinstance(value, dict) else value
        elif isinstance(value, dict) and key != "switch_page":  # a page's URL is written already
            out[key] = {k: _loc_text(k, v, typed) for k, v in value.items()}
        elif isinstance(value, str) and key not in ("goto", "eval"):  # a bare selector, or a key pressed: text
            out[key] = literal(value) if key == "press" else typed.in_text(value)
        else:
            out[key] = value
    return out


def _loc_text(key: str, value: Any, typed: TypedValues) -> Any:
    if key in ("value", "option", "into", "js", "attribute"):  # written already (typed values, names, scripts)
        return value
    if key in ("key", "event"):
        return literal(value) if isinstance(value, str) else value
        return value
    if key == "files":
        return [literal(v) for v in value] if isinstance(value, list) else value
    if isinstance(value, dict):
        return {k: _loc_text(k, v, typed) for k, v in value.items()}
    return typed.in_text(value) if isinstance(value, str) else value


def file_name(title: str) -> str:
    return slug(title, limit=60) + ".reuseit.yaml"
