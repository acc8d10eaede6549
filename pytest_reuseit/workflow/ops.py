"""The op registry and the :class:`Op` model: every op a ``do:`` list may use, in one place.

One entry per op: its name (the YAML key), the type of its argument (validated by pydantic, so
the loader, ``reuseit validate`` and the published JSON Schema all follow it), a one-sentence
description (shown to the agent and in the docs' op table) and the handler that performs it.
Each entry becomes a field of :class:`Op`; the models of the arguments are in ``op_args.py``.

This module is in the workflow layer and never imports the browser: the browser layer attaches
the handlers of the built-in ops (``browser/ops.py``). A team adds its own op, with its handler,
by calling :func:`register` (from the ``pytest_reuseit_ops`` hook or a conftest)::

    from pytest_reuseit.workflow.ops import register

    def login_via_api(ctx, arg):          # ctx: browser.ops.OpContext; arg: the validated value
        ctx.page.request.post(ctx.render(arg), data={"user": "admin"})

    register("login_via_api", str, "Log in through the API at the given URL.", login_via_api)

after which ``- login_via_api: "{base_url}/api/login"`` validates, runs and is described to the
agent like any built-in op.
"""

from __future__ import annotations

import re
import typing
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any, Literal, Optional, cast

from pydantic import BaseModel, Field, model_validator
from pydantic.fields import FieldInfo
from pydantic_core import PydanticCustomError

from .locators import LOCATOR_KEYS, Loc, Locator, describe_value
from .op_args import (
    DialogAnswer,
    DispatchArgs,
    DragArgs,
    Extract,
    FillArgs,
    Point,
    Position,
    PressArgs,
    ScrollBy,
    ScrollTo,
    SelectArgs,
    SwitchPage,
    TypeArgs,
    UploadArgs,
    WaitArgs,
)
from .strict import Seconds, Strict, WaitMs, closest, exactly_one

# --------------------------------------------------------------------------- the Op model

# Keys written beside the op name that change how any op runs (not ops themselves).
OP_MODIFIERS = ("new_page", "dialog", "into", "timeout", "button", "at", "position")
# The ops a mouse ``button`` other than the left one may press.
BUTTON_OPS = ("click", "dblclick", "mouse_down", "mouse_up")
# The ops that move the mouse to an element: ``at`` moves it to another point than the middle.
POINT_OPS = ("click", "dblclick", "hover", "mouse_down", "mouse_up")
# The ops Playwright points at a place in their element (``position``, from its top-left corner).
POSITION_OPS = ("click", "dblclick", "hover")


class Op(Strict):
    """One deterministic operation: a mapping with exactly one op name as key, plus modifiers.

    The op names are not listed here: each is a field added by the registry (``workflow/ops.py``),
    so an op is defined in one place and ops registered at run time validate like built-in ones.
    A bare word (``back``) is an op without a value.
    """

    new_page: bool | None = Field(
        None, description="this op opens a pop-up window or tab: wait for it (op timeout) and make it current"
    )
    dialog: DialogAnswer | None = Field(
        None, description="how to answer dialogs this op raises: accept | dismiss | {accept: true, text: ...}"
    )
    into: str | None = Field(
        None, pattern=r"^[A-Za-z_][A-Za-z0-9_]*$", description="(download) placeholder that receives the saved path"
    )
    timeout: Seconds | None = Field(
        None, description="seconds this op waits for its element (or page, pop-up, download); default: action_timeout"
    )
    button: Literal["left", "right", "middle"] | None = Field(
        None,
        description="(click, dblclick, mouse_down, mouse_up) the mouse button: left (the default), right or middle",
    )
    at: Point | None = Field(
        None,
        description="(click, dblclick, hover, mouse_down, mouse_up) where the mouse goes: {x, y} pixels from the "
        "element's middle (right and down), as Selenium's offsets from an element",
    )
    position: Position | None = Field(
        None,
        description="(click, dblclick, hover) where in the element, {x, y} pixels from its top-left corner, as "
        "Playwright's position (a canvas grid's cell); default: its middle",
    )

    @model_validator(mode="before")
    @classmethod
    def _shape(cls, data: Any) -> Any:
        if isinstance(data, str):
            bare = bare_names()
            if data in bare:
                return {data: True}
            guess = closest(data, names())
            hint = (
                f" (did you mean '{guess}'?)"
                if guess in bare
                else f" (did you mean '{{{guess}: ...}}'?)"
                if guess
                else ""
            )
            words = f" or a bare word ({', '.join(bare)})" if bare else ""
            raise PydanticCustomError(
                "op_shape",
                "an op is a mapping like '{click: \"#go\"}'{words}, got the string '{value}'{hint}",
                {"value": data, "hint": hint, "words": words},
            )
        return data

    @model_validator(mode="after")
    def _one_op(self) -> Op:
        exactly_one(self, names(), "an op")
        if self.into is not None and not spec(self.kind).takes_into:
            takers = [n for n in names() if spec(n).takes_into]
            raise PydanticCustomError(
                "into_not_allowed",
                "'into' goes with {takers}, not with '{kind}'",
                {"takers": " or ".join(takers), "kind": self.kind},
            )
        if self.button is not None and self.kind not in BUTTON_OPS:
            raise PydanticCustomError(
                "button_not_allowed",
                "'button' goes with {takers}, not with '{kind}'",
                {"takers": ", ".join(BUTTON_OPS), "kind": self.kind},
            )
        if self.at is not None and self.kind not in POINT_OPS:
            raise PydanticCustomError(
                "at_not_allowed",
                "'at' goes with {takers}, not with '{kind}'",
                {"takers": ", ".join(POINT_OPS), "kind": self.kind},
            )
        if self.position is not None and self.at is not None:
            raise PydanticCustomError(
                "position_and_at",
                "'position' (from the element's top-left corner) and 'at' (from its middle) say the same: write one",
                {},
            )
        if self.position is not None and self.kind not in POSITION_OPS:
            raise PydanticCustomError(
                "position_not_allowed",
                "'position' goes with {takers}, not with '{kind}'",
                {"takers": ", ".join(POSITION_OPS), "kind": self.kind},
            )
        return self

    @classmethod
    def __get_pydantic_json_schema__(cls, core_schema: Any, handler: Any) -> dict[str, Any]:
        schema = handler(core_schema)
        target = handler.resolve_ref_schema(schema)
        target["oneOf"] = [{"required": [n]} for n in names()]
        bare = list(bare_names())
        return {"anyOf": [{"type": "string", "enum": bare}, schema]} if bare else schema

    def __repr_args__(self) -> Any:
        # Only what is set: the registry makes every op a field, nearly all of them None.
        return [(k, v) for k, v in super().__repr_args__() if v is not None]

    @property
    def kind(self) -> str:
        return next(n for n in names() if getattr(self, n, None) is not None)

    @property
    def arg(self) -> Any:
        return getattr(self, self.kind)


def describe_op(op: Op) -> str:
    """One line for reports and the agent's history: ``click role='link'[name='Add'] (new page)``."""
    return _describe_arg(op.kind, op.arg) + _describe_modifiers(op)


def _describe_arg(kind: str, arg: Any) -> str:
    if arg is True:  # a bare word: back, reload, close_page
        return kind
    if isinstance(arg, DragArgs):  # two elements: the one dragged, the one it is dropped on
        return f"{kind} {arg.plain().describe()} to {arg.to.describe()}"
    if isinstance(arg, Locator):
        base = arg.plain().describe()
        extra = {k: v for k, v in arg.model_dump(exclude_none=True).items() if k not in LOCATOR_KEYS}
        return f"{kind} {base}" + ("".join(f" {k}={v!r}" for k, v in extra.items()))
    if isinstance(arg, BaseModel):
        return f"{kind} {describe_value(arg)}"
    return f"{kind} {arg!r}"


def _describe_modifiers(op: Op) -> str:
    text = ""
    if op.new_page:
        text += " (opens a new page)"
    if op.dialog is not None:
        answer = op.dialog if isinstance(op.dialog, str) else ("accept" if op.dialog.accept else "dismiss")
        text += f" (dialog: {answer})"
    if op.into is not None:
        text += f" into {op.into}"
    if op.button not in (None, "left"):
        text += f" ({op.button} button)"
    if op.at is not None:
        text += f" at {op.at.x},{op.at.y} from its middle"
    if op.position is not None:
        text += f" at ({op.position.x:g}, {op.position.y:g}) from its top-left corner"
    return text


# --------------------------------------------------------------------------- the registry

# A handler performs the op: ``handler(ctx, arg)`` with the browser layer's OpContext (current
# page, placeholder filling, timeouts) and the op's validated argument. Typed loosely here because
# this layer does not know the browser's types.
Handler = Callable[[Any, Any], None]

_NAME = re.compile(r"^[a-z][a-z0-9_]*$")


@dataclass(frozen=True)
class OpSpec:
    """One op. ``bare``: written as a bare word in a ``do`` list (``- back``), no value."""

    name: str
    args: Any
    description: str
    handler: Handler | None = None
    bare: bool = False
    takes_into: bool = False  # the ``into:`` modifier names a placeholder this op stores


REGISTRY: dict[str, OpSpec] = {}


def written_name(op: Any) -> str | None:
    """The op name of one op as a file writes it (``{click: ..., timeout: 5}`` -> ``click``): its
    one key that is no modifier, whatever order the keys are in; None for anything else."""
    if not isinstance(op, dict):
        return None
    keys = [k for k in op if k not in OP_MODIFIERS]
    return keys[0] if len(keys) == 1 and isinstance(keys[0], str) else None


def names() -> tuple[str, ...]:
    """Every registered op name, in registration order."""
    return tuple(REGISTRY)


def bare_names() -> tuple[str, ...]:
    return tuple(n for n, s in REGISTRY.items() if s.bare)


def spec(name: str) -> OpSpec:
    return REGISTRY[name]


def register(
    name: str,
    args: Any,
    description: str,
    handler: Handler | None = None,
    *,
    bare: bool = False,
    takes_into: bool = False,
    replace_existing: bool = False,
) -> OpSpec:
    """Add an op: ``name`` becomes a key of ``Op`` (validated as ``args``), usable in every ``do``.

    ``args`` is any type pydantic validates (``str``, ``int``, a model such as ``Loc``, a union);
    ``bare=True`` makes an op without a value, written as a bare word (``args`` is then ignored).
    Registering a name twice is an error unless ``replace_existing`` (a plugin overriding an op).
    """
    if not _NAME.match(name):
        raise ValueError(f"op name {name!r} must be lower_snake_case")
    if name in OP_MODIFIERS:
        raise ValueError(f"op name {name!r} is an op modifier")
    if name in REGISTRY and not replace_existing:
        raise ValueError(f"op {name!r} is already registered")
    if not description.strip():
        raise ValueError(f"op {name!r} needs a description (the agent and the docs show it)")
    entry = _add(OpSpec(name, Literal[True] if bare else args, description.strip(), handler, bare, takes_into))
    _rebuild()
    return entry


def _add(entry: OpSpec) -> OpSpec:
    REGISTRY[entry.name] = entry
    field = FieldInfo.from_annotated_attribute(cast(Any, Optional)[entry.args], None)  # noqa: UP045 - args may be Annotated
    field.description = entry.description
    Op.__pydantic_fields__[entry.name] = field
    return entry


def unregister(name: str) -> None:
    """Remove an op added at run time (tests; a plugin being unloaded)."""
    REGISTRY.pop(name, None)
    Op.__pydantic_fields__.pop(name, None)
    _rebuild()


def attach(name: str, handler: Handler) -> None:
    """Give a registered op its handler (the browser layer does this for the built-in ops)."""
    REGISTRY[name] = replace(REGISTRY[name], handler=handler)


def handles(name: str) -> Callable[[Handler], Handler]:
    """Decorator form of :func:`attach`."""

    def deco(fn: Handler) -> Handler:
        attach(name, fn)
        return fn

    return deco


def _models_in(tp: Any) -> list[type[BaseModel]]:
    """The pydantic models a field annotation refers to (through unions, tuples, Annotated)."""
    if isinstance(tp, type) and issubclass(tp, BaseModel):
        return [tp]
    return [m for arg in typing.get_args(tp) for m in _models_in(arg)]


def _rebuild() -> None:
    """Rebuild ``Op`` and, children first, every format model that contains it (so a step's
    ``do`` list validates the new op with exact error paths)."""

    def subclasses(cls: type[BaseModel]) -> list[type[BaseModel]]:
        out = []
        for sub in cls.__subclasses__():
            out.append(sub)
            out.extend(subclasses(sub))
        return out

    everything = [Op] + [c for c in dict.fromkeys(subclasses(Strict)) if c is not Op]
    deps = {c: {m for f in c.__pydantic_fields__.values() for m in _models_in(f.annotation)} for c in everything}
    holds_op: set[type[BaseModel]] = {Op}
    changed = True
    while changed:
        changed = False
        for c in everything:
            if c not in holds_op and deps[c] & holds_op:
                holds_op.add(c)
                changed = True
    done: set[type[BaseModel]] = set()

    def build(c: type[BaseModel]) -> None:
        if c in done:
            return
        done.add(c)
        for dep in deps[c]:
            if dep in holds_op and dep is not c:
                build(dep)
        c.model_rebuild(force=True)

    for c in everything:
        if c in holds_op:
            build(c)


# --------------------------------------------------------------------------- built-in ops

_BUILTINS: tuple[tuple[str, Any, str, dict[str, bool]], ...] = (
    ("goto", str, "Open a URL (relative to the current page).", {}),
    ("click", Loc, "Click an element.", {}),
    ("dblclick", Loc, "Double-click an element.", {}),
    ("hover", Loc, "Move the mouse over an element.", {}),
    (
        "mouse_down",
        Loc,
        "Press the mouse button over an element's middle (or `at` a point from it) and hold it: no click follows.",
        {},
    ),
    ("mouse_up", Loc, "Let go of the mouse button over an element's middle (or `at` a point from it).", {}),
    (
        "mouse_out",
        Loc,
        "Move the mouse off an element: one pixel above it, else right of it, below it or left of it, in "
        "Selenium's mouseOut's order.",
        {},
    ),
    (
        "drag",
        DragArgs,
        "Drag an element and drop it on the element `to` (HTML5 drag and drop, sortable lists), "
        "as Playwright's dragTo does: from the middle of one to the middle of the other.",
        {},
    ),
    (
        "check",
        Loc,
        "Tick a checkbox, switch or radio button by its label, also one a component library draws.",
        {},
    ),
    ("uncheck", Loc, "Untick a checkbox or switch, also one a component library draws.", {}),
    ("focus", Loc, "Give an element the keyboard focus.", {}),
    ("blur", Loc, "Take the keyboard focus away from an element (ends an edit that saves on blur).", {}),
    (
        "dispatch",
        DispatchArgs,
        "Dispatch a DOM `event` (blur, change, input...) on an element, as Playwright's dispatchEvent does.",
        {},
    ),
    (
        "fill",
        FillArgs,
        "Replace the value of a form field with `value`; on a slider a number ([low, high] for two "
        "thumbs), on a date picker a date (2027-03-15).",
        {},
    ),
    ("type", TypeArgs, "Type `value` into a field key by key (for fields that react to each key).", {}),
    (
        "change",
        TypeArgs,
        "Set a field's value as Chrome's recorder replays a change: a select's option by value, a text "
        "field or editable element filled, any other input's value set with input and change events.",
        {},
    ),
    (
        "select",
        SelectArgs,
        "Choose an option (a list: exactly those) of any dropdown, combobox or autocomplete by its text "
        "(a native select's by label or value).",
        {},
    ),
    ("press", str | PressArgs, "Press a key (`Enter`, `Control+A`) on the page or on an element.", {}),
    (
        "scroll",
        ScrollBy | ScrollTo | Loc,
        "Scroll the page by `by` pixels, an element until it is in view, or an element to `top`/`left`.",
        {},
    ),
    ("wait", WaitMs | WaitArgs, "Wait N milliseconds, or until an element reaches a `state`.", {}),
    ("eval", str, "Run a JavaScript expression in the page.", {}),
    ("extract", Extract, "Store a value read from the page as a `{placeholder}`.", {}),
    ("switch_page", SwitchPage, "Make another open page current: `main`, `last`, an index, or `{url: ...}`.", {}),
    ("close_page", None, "Close the current page; its opener becomes current.", {"bare": True}),
    ("upload", UploadArgs, "Set files (paths relative to the workflow file) on a file input.", {}),
    (
        "download",
        Loc,
        "Click an element that starts a download and save the file in the run's output folder.",
        {"takes_into": True},
    ),
    ("back", None, "Go back one page in the history.", {"bare": True}),
    ("forward", None, "Go forward one page in the history.", {"bare": True}),
    ("reload", None, "Reload the current page.", {"bare": True}),
)

for _name, _args, _description, _flags in _BUILTINS:
    _bare = _flags.get("bare", False)
    _add(OpSpec(_name, Literal[True] if _bare else _args, _description, None, _bare, _flags.get("takes_into", False)))
_rebuild()
