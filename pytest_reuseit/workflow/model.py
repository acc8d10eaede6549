"""Frozen models of a guarded workflow (the contract in ``workflow-format.md``).

pydantic does the validation and generates the published JSON Schema from the same classes, so
the loader, the schema and the engine can never disagree. Every model forbids unknown keys and
says which key it did not know and which one was probably meant.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable
from typing import Annotated, Any, ClassVar, Literal

from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, Field, field_validator, model_validator
from pydantic_core import PydanticCustomError

# An hour at most: a longer timeout or wait in a file is a mistake (or an attack), not a page that
# needs it, and infinity or NaN would wait for ever.
MAX_SECONDS = 3600
Seconds = Annotated[float, Field(gt=0, le=MAX_SECONDS, allow_inf_nan=False)]
WaitMs = Annotated[int, Field(ge=0, le=MAX_SECONDS * 1000)]
# How long a page may take to answer a navigation by default: Playwright's own navigation timeout.
# A login POST that hashes a password, a busy database: real sites take seconds, not one.
NAVIGATION_TIMEOUT_S = 30.0

SCHEMA_ID = "https://pytest-reuseit.dev/schema/workflow-1.json"

VARIATION_KINDS = ("original", "attribute", "category", "website", "other")
SEVERITIES = ("blocker", "critical", "normal", "minor", "trivial")
LOCATOR_KINDS = ("role", "text", "label", "placeholder", "alt", "title", "test_id", "css", "xpath", "selector")
# The ARIA roles Playwright's get_by_role accepts (a typo would otherwise wait, then blame the site).
ARIA_ROLES = [
    "alert",
    "alertdialog",
    "application",
    "article",
    "banner",
    "blockquote",
    "button",
    "caption",
    "cell",
    "checkbox",
    "code",
    "columnheader",
    "combobox",
    "complementary",
    "contentinfo",
    "definition",
    "deletion",
    "dialog",
    "directory",
    "document",
    "emphasis",
    "feed",
    "figure",
    "form",
    "generic",
    "grid",
    "gridcell",
    "group",
    "heading",
    "img",
    "insertion",
    "link",
    "list",
    "listbox",
    "listitem",
    "log",
    "main",
    "marquee",
    "math",
    "menu",
    "menubar",
    "menuitem",
    "menuitemcheckbox",
    "menuitemradio",
    "meter",
    "navigation",
    "none",
    "note",
    "option",
    "paragraph",
    "presentation",
    "progressbar",
    "radio",
    "radiogroup",
    "region",
    "row",
    "rowgroup",
    "rowheader",
    "scrollbar",
    "search",
    "searchbox",
    "separator",
    "slider",
    "spinbutton",
    "status",
    "strong",
    "subscript",
    "superscript",
    "switch",
    "tab",
    "table",
    "tablist",
    "tabpanel",
    "term",
    "textbox",
    "time",
    "timer",
    "toolbar",
    "tooltip",
    "tree",
    "treegrid",
    "treeitem",
]


def closest(word: str, choices: list[str] | tuple[str, ...]) -> str | None:
    """The valid name a typo most probably meant, or None."""
    found = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.6)
    return found[0] if found else None


class Strict(BaseModel):
    """Base of all format models: frozen, no unknown keys, helpful error for a typo."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    @model_validator(mode="before")
    @classmethod
    def _known_keys(cls, data: Any) -> Any:
        if isinstance(data, dict):
            known = list(cls.model_fields)
            for key in data:
                if str(key) not in known:
                    guess = closest(str(key), known)
                    hint = f" (did you mean '{guess}'?)" if guess else f"; expected one of: {', '.join(known)}"
                    raise PydanticCustomError(
                        "unknown_key", "unknown key '{key}'{hint}", {"key": str(key), "hint": hint}
                    )
        return data


def _exactly_one(obj: BaseModel, names: tuple[str, ...], what: str) -> None:
    given = [n for n in names if getattr(obj, n) is not None]
    if len(given) != 1:
        listed = ", ".join(names)
        if not given:
            raise PydanticCustomError("missing_one", "{what} needs one of: {listed}", {"what": what, "listed": listed})
        raise PydanticCustomError(
            "too_many", "{what} takes only one of: {given}", {"what": what, "given": ", ".join(given)}
        )


def _as_tuple(value: Any) -> Any:
    return [value] if isinstance(value, dict) else value


class _OneOrList:
    """Schema of a list that may also be written as its single item (``_as_tuple`` wraps it)."""

    def __get_pydantic_json_schema__(self, core_schema: Any, handler: Any) -> dict[str, Any]:
        schema = handler(core_schema)
        return {"anyOf": [schema["items"], schema]}


# --------------------------------------------------------------------------- locators


class Locator(Strict):
    """Where an element is: one of the kinds, optionally refined."""

    role: str | None = Field(None, description="ARIA role, e.g. button; use with name")
    name: str | None = Field(None, description="accessible name (with role)")
    text: str | None = None
    label: str | None = None
    placeholder: str | None = None
    alt: str | None = None
    title: str | None = None
    test_id: str | None = None
    css: str | None = None
    xpath: str | None = None
    selector: str | None = Field(None, description="any Playwright selector string")
    exact: bool | None = None
    nth: int | None = None
    has_text: str | None = None
    within: Loc | None = None
    frame: Loc | None = Field(None, description="look inside this <iframe> (a LOC of it, which may have a frame too)")

    @field_validator("role")
    @classmethod
    def _known_role(cls, value: str | None) -> str | None:
        if value is None or "{" in value or value in ARIA_ROLES:
            return value
        guess = closest(value, ARIA_ROLES)
        hint = f" (did you mean '{guess}'?)" if guess else ""
        raise PydanticCustomError("unknown_role", "'{role}' is not an ARIA role{hint}", {"role": value, "hint": hint})

    @model_validator(mode="after")
    def _one_kind(self) -> Locator:
        _exactly_one(self, LOCATOR_KINDS, "a locator")
        if self.name is not None and self.role is None:
            raise PydanticCustomError("name_without_role", "'name' is only used with 'role'", {})
        return self

    def plain(self) -> Locator:
        """Just the locator of an op's or assertion's arguments (which extend Locator with value, key, ...)."""
        if type(self) is Locator:
            return self
        return Locator.model_validate(
            {k: v for k, v in self.model_dump(exclude_none=True).items() if k in Locator.model_fields}
        )

    def describe(self) -> str:
        """Short human form for messages: ``role=button[name="Go"]``."""
        kind = next(k for k in LOCATOR_KINDS if getattr(self, k) is not None)
        text = f"{kind}={getattr(self, kind)!r}"
        if self.name is not None:
            text += f"[name={self.name!r}]"
        if self.has_text is not None:
            text += f"[has_text={self.has_text!r}]"
        if self.nth is not None:
            text += f"[nth={self.nth}]"
        if self.within is not None:
            text = f"{self.within.describe()} >> {text}"
        if self.frame is not None:
            text = f"frame {self.frame.describe()} >> {text}"
        return text


class _OrString:
    """JSON Schema of an object that may also be written as a string.

    The field's type is the object (what the code always gets: a ``BeforeValidator`` turns the
    string into it), while the published schema still offers the short string form to authors.
    """

    def __get_pydantic_json_schema__(self, core_schema: Any, handler: Any) -> dict[str, Any]:
        return {"anyOf": [{"type": "string"}, handler(core_schema)]}


def _wrap_string(key: str) -> Callable[[Any], Any]:
    """A before-validator: a plain string ``s`` becomes ``{key: s}``; anything else is validated as is."""

    def wrap(value: Any) -> Any:
        return {key: value} if isinstance(value, str) else value

    return wrap


# A locator is written as a Playwright selector string or a mapping; the engine always sees a Locator.
Loc = Annotated[Locator, BeforeValidator(_wrap_string("selector")), _OrString()]


# --------------------------------------------------------------------------- ops


class FillArgs(Locator):
    value: str


class SelectArgs(Locator):
    option: str | tuple[str, ...] = Field(description="label or value (a list selects several)")


class PressArgs(Locator):
    key: str


class WaitArgs(Locator):
    state: Literal["visible", "hidden", "attached", "detached"] = "visible"


class ScrollBy(Strict):
    by: int = Field(description="pixels to scroll down (negative: up)")


class Extract(Strict):
    """Stores a value for later ``{placeholders}`` and for the report."""

    into: str = Field(pattern=r"^[A-Za-z_][A-Za-z0-9_]*$")
    text: Loc | None = Field(None, description="inner text of an element")
    value: Loc | None = Field(None, description="input value of a form field")
    attribute: str | None = Field(None, description="with text: read this attribute instead of the text")
    js: str | None = Field(None, description="a JavaScript expression evaluated in the page")
    query: str | None = Field(None, description="the model reads it from the page")

    @model_validator(mode="after")
    def _one_source(self) -> Extract:
        _exactly_one(self, ("text", "value", "js", "query"), "extract")
        return self


class UploadArgs(Locator):
    files: Annotated[tuple[str, ...], Field(min_length=1), _OneOrList()] = Field(
        description="paths relative to the workflow file (one path or a list)"
    )

    @field_validator("files", mode="before")
    @classmethod
    def _files_list(cls, value: Any) -> Any:
        return [value] if isinstance(value, str) else value


class DialogReply(Strict):
    accept: bool = Field(description="accept (OK) or dismiss (Cancel)")
    text: str | None = Field(None, description="typed into a prompt() before accepting")


DialogAnswer = Literal["accept", "dismiss"] | DialogReply

# Keys written beside the op name that change how any op runs (not ops themselves).
OP_MODIFIERS = ("new_page", "dialog", "into", "timeout")


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

    @model_validator(mode="before")
    @classmethod
    def _shape(cls, data: Any) -> Any:
        if isinstance(data, str):
            bare = _op_registry().bare_names()
            if data in bare:
                return {data: True}
            guess = closest(data, _op_registry().names())
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
        _exactly_one(self, _op_registry().names(), "an op")
        if self.into is not None and not _op_registry().spec(self.kind).takes_into:
            takers = [n for n in _op_registry().names() if _op_registry().spec(n).takes_into]
            raise PydanticCustomError(
                "into_not_allowed",
                "'into' goes with {takers}, not with '{kind}'",
                {"takers": " or ".join(takers), "kind": self.kind},
            )
        return self

    @classmethod
    def __get_pydantic_json_schema__(cls, core_schema: Any, handler: Any) -> dict[str, Any]:
        schema = handler(core_schema)
        target = handler.resolve_ref_schema(schema)
        target["oneOf"] = [{"required": [n]} for n in _op_registry().names()]
        bare = list(_op_registry().bare_names())
        return {"anyOf": [{"type": "string", "enum": bare}, schema]} if bare else schema

    def __repr_args__(self) -> Any:
        # Only what is set: the registry makes every op a field, nearly all of them None.
        return [(k, v) for k, v in super().__repr_args__() if v is not None]

    @property
    def kind(self) -> str:
        return next(n for n in _op_registry().names() if getattr(self, n, None) is not None)

    @property
    def arg(self) -> Any:
        return getattr(self, self.kind)


def _op_registry() -> Any:
    """The registry module (imported late: it imports this one)."""
    from . import ops

    return ops


# --------------------------------------------------------------------------- DOM assertions


class TextMatch(Strict):
    equals: str | None = None
    contains: str | None = None
    matches: str | None = Field(None, description="a regular expression (re.search)")

    @model_validator(mode="after")
    def _one_match(self) -> TextMatch:
        _exactly_one(self, ("equals", "contains", "matches"), "a text assertion")
        if self.matches is not None:
            try:
                re.compile(self.matches)
            except re.error as exc:
                raise PydanticCustomError("bad_regex", "invalid regular expression: {err}", {"err": str(exc)}) from None
        return self


class PageUrl(Strict):
    url: str | TextMatch = Field(description="a text the page's URL contains, or {equals|contains|matches}")


SwitchPage = Literal["main", "last"] | Annotated[int, Field(ge=0)] | PageUrl


class DownloadExpect(Strict):
    """The last download: its suggested file name and, for a text file, what it contains."""

    name: TextMatch | None = None
    contains: str | None = Field(None, description="text the saved file contains")


class LocText(Locator, TextMatch):
    """An element's text or value compared with equals / contains / matches."""


def _whole_number_or_placeholder(value: int | str) -> int | str:
    if isinstance(value, str) and not re.fullmatch(r"\s*-?\d+\s*", value) and "{" not in value:
        raise PydanticCustomError(
            "not_a_count", "a whole number or a {placeholder} that holds one, not {value}", {"value": repr(value)}
        )
    return int(value) if isinstance(value, str) and "{" not in value else value


# A count bound: a whole number, or a placeholder filled when the check runs (``equals: "{count}"``).
CountBound = Annotated[int | str, AfterValidator(_whole_number_or_placeholder)]


class LocCount(Locator):
    equals: CountBound | None = None
    min: CountBound | None = None
    max: CountBound | None = None

    @model_validator(mode="after")
    def _some_bound(self) -> LocCount:
        if self.equals is None and self.min is None and self.max is None:
            raise PydanticCustomError("missing_one", "count needs equals, min and/or max", {})
        return self


EXPECT_KEYS = (
    "visible",
    "hidden",
    "enabled",
    "disabled",
    "checked",
    "unchecked",
    "text",
    "value",
    "count",
    "url",
    "title",
    "js",
    "dialog",
    "download",
)


class Expect(Strict):
    """DOM assertions; every key given must hold. They auto-wait up to ``check_timeout``."""

    visible: Loc | None = None
    hidden: Loc | None = None
    enabled: Loc | None = None
    disabled: Loc | None = None
    checked: Loc | None = None
    unchecked: Loc | None = None
    text: LocText | None = None
    value: LocText | None = None
    count: LocCount | None = None
    url: TextMatch | None = None
    title: TextMatch | None = None
    js: str | None = Field(None, description="a JavaScript expression that must be truthy")
    dialog: TextMatch | None = Field(None, description="the message of the last dialog shown")
    download: DownloadExpect | None = Field(None, description="the last download (name, contents)")

    @model_validator(mode="after")
    def _not_empty(self) -> Expect:
        if not any(getattr(self, k) is not None for k in EXPECT_KEYS):
            raise PydanticCustomError(
                "missing_one", "expect needs one of: {listed}", {"listed": ", ".join(EXPECT_KEYS)}
            )
        return self

    def items(self) -> list[tuple[str, Any]]:
        return [(k, getattr(self, k)) for k in EXPECT_KEYS if getattr(self, k) is not None]


ExpectList = Annotated[tuple[Expect, ...], Field(min_length=1), _OneOrList()]


# --------------------------------------------------------------------------- checks & fallbacks


class Check(Strict):
    """A condition: words judged by the model on a screenshot, DOM assertions, or both."""

    check: str | None = Field(None, description="the condition in words, judged by the model")
    expect: ExpectList | None = None
    votes: int = Field(1, ge=1, le=9, description="ask the model N times, take the majority")
    timeout: Seconds | None = Field(None, description="seconds this check waits to hold; default: check_timeout")
    promoted: bool = Field(
        False,
        description="written by 'reuseit promote': the expect decides alone while it holds; "
        "when it fails the model is asked once whether the words still hold (stale assertion) or not (defect)",
    )

    @field_validator("expect", mode="before")
    @classmethod
    def _expect_list(cls, value: Any) -> Any:
        return _as_tuple(value)

    @model_validator(mode="after")
    def _something(self) -> Check:
        if self.check is None and self.expect is None:
            raise PydanticCustomError("missing_one", "a check needs 'check' (words), 'expect' (DOM), or both", {})
        if self.promoted and (self.check is None or self.expect is None):
            raise PydanticCustomError("promoted", "'promoted: true' needs both 'check' (words) and 'expect'", {})
        return self

    def describe(self) -> str:
        if self.check:
            return self.check
        assert self.expect is not None
        return "; ".join(f"{k} {_short(v)}" for e in self.expect for k, v in e.items())


def _short(value: Any) -> str:
    if isinstance(value, Locator):
        # What the element must show (text, value, count) belongs in the name of the check too.
        wanted = {k: v for k, v in value.model_dump(exclude_none=True).items() if k not in Locator.model_fields}
        return " ".join([value.describe(), *(f"{k}={v!r}" for k, v in wanted.items())])
    if isinstance(value, BaseModel):
        return ", ".join(f"{k}={v!r}" for k, v in value.model_dump(exclude_none=True).items())
    return repr(value)


# A check is written as words or a mapping; the engine always sees a Check.
CheckArg = Annotated[Check, BeforeValidator(_wrap_string("check")), _OrString()]


class Fallback(Strict):
    """A recovery attempt: words for the agent, or deterministic ops (then optionally redo)."""

    agent: str | None = Field(None, description="instruction handed to the agent")
    do: tuple[Op, ...] | None = None
    redo: bool = Field(False, description="after the ops, perform the step's action again")

    @model_validator(mode="after")
    def _one(self) -> Fallback:
        _exactly_one(self, ("agent", "do"), "a fallback")
        if self.redo and self.do is None:
            raise PydanticCustomError("redo_without_do", "'redo' goes with 'do'", {})
        return self

    def describe(self) -> str:
        if self.agent is not None:
            return f"agent: {self.agent}"
        assert self.do is not None
        ops = ", ".join(describe_op(op) for op in self.do)
        return f"do: {ops}" + (" then redo the action" if self.redo else "")


def describe_op(op: Op) -> str:
    """One line for reports and the agent's history: ``click role='link'[name='Add'] (new page)``."""
    return _describe_arg(op.kind, op.arg) + _describe_modifiers(op)


def _describe_arg(kind: str, arg: Any) -> str:
    if arg is True:  # a bare word: back, reload, close_page
        return kind
    if isinstance(arg, Locator):
        base = arg.plain().describe()
        extra = {k: v for k, v in arg.model_dump(exclude_none=True).items() if k not in Locator.model_fields}
        return f"{kind} {base}" + ("".join(f" {k}={v!r}" for k, v in extra.items()))
    if isinstance(arg, BaseModel):
        return f"{kind} {_short(arg)}"
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
    return text


# A fallback is written as words for the agent or a mapping; the engine always sees a Fallback.
FallbackArg = Annotated[Fallback, BeforeValidator(_wrap_string("agent")), _OrString()]


# --------------------------------------------------------------------------- pytest integration

IDENTIFIER = r"^[A-Za-z_][A-Za-z0-9_]*$"
Identifier = Annotated[str, Field(pattern=IDENTIFIER)]
MarkValue = str | dict[str, str | int | float | bool] | None


def _check_mark(value: str | dict[str, MarkValue]) -> str | dict[str, MarkValue]:
    """A mark is a bare name or ``{name: reason}`` / ``{name: {keyword: value}}`` (one key)."""
    if isinstance(value, dict):
        if len(value) != 1:
            raise PydanticCustomError(
                "mark_shape",
                "a mark is a name or a mapping with one key, the mark's name (got keys: {keys})",
                {"keys": ", ".join(map(str, value)) or "none"},
            )
        name = next(iter(value))
    else:
        name = value
    if not re.match(IDENTIFIER, name):
        raise PydanticCustomError("mark_name", "'{name}' is not a mark name", {"name": name})
    if name in ("usefixtures", "parametrize"):
        raise PydanticCustomError(
            "mark_name", "the '{name}' mark is not available here (use the 'usefixtures' key)", {"name": name}
        )
    if name == "skipif" and isinstance(value, dict) and not isinstance(value[name], dict):
        raise PydanticCustomError("mark_skipif", "skipif needs a mapping: {{condition: ..., reason: ...}}", {})
    return value


MarkArg = Annotated[str | dict[str, MarkValue], AfterValidator(_check_mark)]


# --------------------------------------------------------------------------- steps & workflow


def _step_schema(schema: dict[str, Any]) -> None:
    # A step has an action, or is a `use:` step (whose action the loader fills in).
    schema["required"] = [r for r in schema.get("required", []) if r != "action"]
    schema["anyOf"] = [{"required": ["action"]}, {"required": ["use"]}]


class Step(Strict):
    """One unit: an action wrapped in pre/post checks and fallbacks; or ``use:`` another
    workflow's steps (expanded by the loader: the engine never sees a ``use`` step)."""

    model_config = ConfigDict(json_schema_extra=_step_schema)

    action: str = Field(description="the action in words")
    use: str | None = Field(None, description="run the steps of this workflow file here (relative to this file)")
    params: dict[str, str | int | float | bool] | None = Field(None, description="params for the used workflow")
    pre: tuple[CheckArg, ...] = ()
    do: tuple[Op, ...] | None = Field(
        None, description="deterministic way to do the action; [] when the step only checks (no agent, no op)"
    )
    post: tuple[CheckArg, ...] = ()
    fallback: tuple[FallbackArg, ...] = ()
    extract: Annotated[tuple[Extract, ...], _OneOrList()] = ()
    mask: tuple[Loc, ...] = Field(
        (), description="regions painted over in this step's screenshots, besides the workflow's mask"
    )
    retries: int | None = Field(None, ge=0, le=20)
    check_timeout: Seconds | None = None
    step_timeout: Seconds | None = None
    action_timeout: Seconds | None = None
    navigation_timeout: Seconds | None = Field(
        None, description="seconds a page this step loads may take to answer; default: settings.navigation_timeout"
    )

    @field_validator("extract", mode="before")
    @classmethod
    def _extract_list(cls, value: Any) -> Any:
        return _as_tuple(value)

    @model_validator(mode="after")
    def _empty_do_only_checks(self) -> Step:
        # `do: []` says the step has nothing to do and only checks (no agent is asked); without a
        # check it would be an empty `do:` left by mistake.
        if self.do == () and not (self.pre or self.post or self.extract):
            raise PydanticCustomError(
                "empty_do",
                "'do' is empty and the step has no checks: list an op, give the step pre/post checks "
                "(do: [] then means it only checks), or remove 'do' to let the agent act",
                {},
            )
        return self

    @model_validator(mode="before")
    @classmethod
    def _use_step(cls, data: Any) -> Any:
        """A ``use`` step takes only ``params``; it is named after the file it uses."""
        if isinstance(data, dict) and "use" in data:
            extra = [k for k in data if k not in ("use", "params")]
            if extra:
                raise PydanticCustomError(
                    "use_step",
                    "a 'use' step takes only 'params' (the used workflow's steps bring their own guards); "
                    "remove: {keys}",
                    {"keys": ", ".join(map(str, extra))},
                )
            return {**data, "action": f"use {data['use']}"}
        if isinstance(data, dict) and "params" in data:
            raise PydanticCustomError("params_without_use", "'params' on a step is only for 'use' steps", {})
        return data


ParamValue = str | int | float | bool


class Variation(Strict):
    id: str = Field(pattern=r"^[A-Za-z0-9_.-]+$", description="test id suffix")
    kind: Literal["original", "attribute", "category", "website", "other"] = "original"
    params: dict[str, ParamValue] = Field(default_factory=dict)
    description: str | None = None
    marks: tuple[MarkArg, ...] = Field((), description="pytest marks for this variation only")


class Viewport(Strict):
    width: int = Field(gt=0)
    height: int = Field(gt=0)


class HttpCredentials(Strict):
    """HTTP authentication (basic auth of a staging site); placeholders and secrets allowed."""

    username: str
    password: str


class Geolocation(Strict):
    latitude: float = Field(ge=-90, le=90)
    longitude: float = Field(ge=-180, le=180)
    accuracy: float | None = Field(None, ge=0)


class BrowserOptions(Strict):
    """Playwright browser-context options for this workflow."""

    viewport: Viewport | None = None
    locale: str | None = None
    timezone_id: str | None = None
    color_scheme: Literal["light", "dark", "no-preference"] | None = None
    user_agent: str | None = None
    extra_http_headers: dict[str, str] | None = None
    ignore_https_errors: bool | None = None
    java_script_enabled: bool | None = None
    device: str | None = Field(
        None, description="a Playwright device name, e.g. 'iPhone 13' (viewport, user agent, touch)"
    )
    http_credentials: HttpCredentials | None = None
    geolocation: Geolocation | None = None
    permissions: tuple[str, ...] | None = Field(None, description="browser permissions granted, e.g. [geolocation]")
    offline: bool | None = None
    storage_state: str | None = Field(
        None, description="saved cookies and local storage to start from (a file relative to the workflow file)"
    )

    # Options the runtime builds itself: a device expands to several options, credentials are
    # filled in (secrets revealed) only when the context is created, the storage path is resolved.
    RUNTIME_BUILT: ClassVar[tuple[str, ...]] = ("device", "http_credentials", "storage_state")

    def context_kwargs(self) -> dict[str, Any]:
        return self.model_dump(exclude_none=True, exclude=set(self.RUNTIME_BUILT))


class SessionFrom(Strict):
    """``session: {from: login.reuseit.yaml}``: start from the browser storage that workflow leaves."""

    model_config = ConfigDict(populate_by_name=True)

    from_: str = Field(alias="from", description="the login workflow file (relative to this file)")

    @model_validator(mode="before")
    @classmethod
    def _known_keys(cls, data: Any) -> Any:
        if isinstance(data, dict):
            unknown = [str(k) for k in data if k != "from"]
            if unknown:
                raise PydanticCustomError("unknown_key", "unknown key '{key}'; expected: from", {"key": unknown[0]})
        return data


class Settings(Strict):
    retries: int = Field(3, ge=0, le=20, description="recovery attempts per failing check")
    check_timeout: Seconds = Field(5, description="seconds a DOM assertion waits")
    step_timeout: Seconds = Field(30, description="seconds one step may take, recovery included")
    action_timeout: Seconds = Field(10, description="seconds one op waits for its element")
    navigation_timeout: Seconds = Field(
        NAVIGATION_TIMEOUT_S,
        description="seconds a page may take to answer a navigation (a link, a form's submission, goto, a "
        "script's) before it counts as not answering; element waits do not cut it short",
    )
    dialog: DialogAnswer = Field("dismiss", description="how dialogs are answered unless an op says otherwise")


# --------------------------------------------------------------------------- reuseit mutate


class MutationIgnore(Strict):
    """A fault this workflow is not meant to catch: ``reuseit mutate`` leaves its mutants out of
    the score and lists them as ignored, with the reason (docs/mutation.md)."""

    operator: str | None = Field(None, description="an operator's name, e.g. request_500 (default: every operator)")
    target: Loc | None = Field(None, description="the element, located as the steps locate it")
    url: str | None = Field(None, description="a request's address or path (or an element's page); * is any text")
    reason: str = Field(min_length=1, description="why the workflow need not catch it (shown in the report)")

    @model_validator(mode="after")
    def _what(self) -> MutationIgnore:
        if self.target is not None and self.url is not None:
            raise PydanticCustomError("target_and_url", "give 'target' or 'url', not both", {})
        if self.operator is None and self.target is None and self.url is None:
            raise PydanticCustomError("ignore_what", "name an 'operator', a 'target' or a 'url' to ignore", {})
        return self


class Mutation(Strict):
    ignore: tuple[MutationIgnore, ...] = ()


class Workflow(Strict):
    """A guarded workflow: one file, one task; each variation is one test."""

    model_config = ConfigDict(
        json_schema_extra={"$id": SCHEMA_ID, "$schema": "https://json-schema.org/draft/2020-12/schema"}
    )

    name: str = Field(description="title in reports")
    task: str = Field(description="the task in words (the agent's goal)")
    start_url: str = Field(description="opened before step 1")
    description: str | None = None
    params: dict[str, ParamValue] = Field(default_factory=dict)
    variations: tuple[Variation, ...] = ()
    allowed_domains: tuple[str, ...] | None = None
    tags: tuple[Identifier, ...] = ()
    severity: Literal["blocker", "critical", "normal", "minor", "trivial"] = "normal"
    epic: str | None = Field(None, description="Allure epic label")
    feature: str | None = Field(None, description="Allure feature label")
    story: str | None = Field(None, description="Allure story label")
    usefixtures: tuple[Identifier, ...] = Field(
        (), description="pytest fixtures set up before the run; each value is the placeholder {name}"
    )
    marks: tuple[MarkArg, ...] = Field((), description="pytest marks on every item of the file")
    browser: BrowserOptions = BrowserOptions()
    settings: Settings = Settings()
    model: str | None = Field(None, description="model name for this workflow's checks and agent")
    mask: tuple[Loc, ...] = Field(
        (),
        description="regions that change on their own (clocks, carousels, ads), painted over in every screenshot",
    )
    session: SessionFrom | None = Field(None, description="run this login workflow once and start from its storage")
    steps: tuple[Step, ...] = Field(min_length=1)
    outcome: tuple[CheckArg, ...] = ()
    mutation: Mutation = Field(Mutation(), description="reuseit mutate: the mutants this workflow ignores, and why")

    @field_validator("variations")
    @classmethod
    def _unique_ids(cls, value: tuple[Variation, ...]) -> tuple[Variation, ...]:
        seen: set[str] = set()
        for var in value:
            if var.id in seen:
                raise PydanticCustomError("duplicate_id", "variation id '{id}' is used twice", {"id": var.id})
            seen.add(var.id)
        return value

    @model_validator(mode="after")
    def _one_storage(self) -> Workflow:
        if self.session is not None and self.browser.storage_state is not None:
            raise PydanticCustomError(
                "two_storages",
                "'session' and 'browser.storage_state' both give the starting browser storage: keep one",
                {},
            )
        return self

    def all_variations(self) -> tuple[Variation, ...]:
        """The variations to run: those listed, or one default one."""
        return self.variations or (Variation(id="default"),)


Locator.model_rebuild()

# The registry adds the op names to Op (and rebuilds the models holding it): import it last.
from . import ops as _ops  # noqa: E402, F401
