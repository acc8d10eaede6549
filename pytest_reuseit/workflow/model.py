"""Frozen models of a guarded workflow (the contract in ``workflow-format.md``).

pydantic does the validation and generates the published JSON Schema from the same classes, so
the loader, the schema and the engine can never disagree. Every model forbids unknown keys and
says which key it did not know and which one was probably meant.
"""

from __future__ import annotations

import difflib
import re
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, field_validator, model_validator
from pydantic_core import PydanticCustomError

SCHEMA_ID = "https://pytest-reuseit.dev/schema/workflow-1.json"

VARIATION_KINDS = ("original", "attribute", "category", "website", "other")
SEVERITIES = ("blocker", "critical", "normal", "minor", "trivial")
LOCATOR_KINDS = ("role", "text", "label", "placeholder", "alt", "title", "test_id", "css", "xpath", "selector")


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
        return text


def _as_locator(value: str | Locator) -> Locator:
    return Locator(selector=value) if isinstance(value, str) else value


# A locator is written as a Playwright selector string or a mapping; the engine always sees a Locator.
Loc = Annotated[str | Locator, AfterValidator(_as_locator)]


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


OP_NAMES = (
    "goto",
    "click",
    "dblclick",
    "hover",
    "check",
    "uncheck",
    "focus",
    "fill",
    "type",
    "select",
    "press",
    "scroll",
    "wait",
    "eval",
    "extract",
)


class Op(Strict):
    """One deterministic operation: a mapping with exactly one op name as key."""

    model_config = ConfigDict(json_schema_extra={"minProperties": 1, "maxProperties": 1})

    goto: str | None = None
    click: Loc | None = None
    dblclick: Loc | None = None
    hover: Loc | None = None
    check: Loc | None = None
    uncheck: Loc | None = None
    focus: Loc | None = None
    fill: FillArgs | None = None
    type: FillArgs | None = None
    select: SelectArgs | None = None
    press: str | PressArgs | None = None
    scroll: ScrollBy | Loc | None = None
    wait: int | WaitArgs | None = None
    eval: str | None = None
    extract: Extract | None = None

    @model_validator(mode="before")
    @classmethod
    def _shape(cls, data: Any) -> Any:
        if isinstance(data, str):
            guess = closest(data, OP_NAMES)
            hint = f" (did you mean '{{{guess}: ...}}'?)" if guess else ""
            raise PydanticCustomError(
                "op_shape",
                "an op is a mapping like '{click: \"#go\"}', got the string '{value}'{hint}",
                {"value": data, "hint": hint},
            )
        return data

    @model_validator(mode="after")
    def _one_op(self) -> Op:
        _exactly_one(self, OP_NAMES, "an op")
        return self

    @property
    def kind(self) -> str:
        return next(n for n in OP_NAMES if getattr(self, n) is not None)

    @property
    def arg(self) -> Any:
        return getattr(self, self.kind)


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


class LocText(Locator, TextMatch):
    """An element's text or value compared with equals / contains / matches."""


class LocCount(Locator):
    equals: int | None = None
    min: int | None = None
    max: int | None = None

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

    @model_validator(mode="after")
    def _not_empty(self) -> Expect:
        if not any(getattr(self, k) is not None for k in EXPECT_KEYS):
            raise PydanticCustomError(
                "missing_one", "expect needs one of: {listed}", {"listed": ", ".join(EXPECT_KEYS)}
            )
        return self

    def items(self) -> list[tuple[str, Any]]:
        return [(k, getattr(self, k)) for k in EXPECT_KEYS if getattr(self, k) is not None]


def _as_tuple(value: Any) -> Any:
    return [value] if isinstance(value, dict) else value


class _OneOrList:
    """Schema of a list that may also be written as its single item (``_as_tuple`` wraps it)."""

    def __get_pydantic_json_schema__(self, core_schema: Any, handler: Any) -> dict[str, Any]:
        schema = handler(core_schema)
        return {"anyOf": [schema["items"], schema]}


ExpectList = Annotated[tuple[Expect, ...], Field(min_length=1), _OneOrList()]


# --------------------------------------------------------------------------- checks & fallbacks


class Check(Strict):
    """A condition: words judged by the model on a screenshot, DOM assertions, or both."""

    check: str | None = Field(None, description="the condition in words, judged by the model")
    expect: ExpectList | None = None
    votes: int = Field(1, ge=1, le=9, description="ask the model N times, take the majority")

    @field_validator("expect", mode="before")
    @classmethod
    def _expect_list(cls, value: Any) -> Any:
        return _as_tuple(value)

    @model_validator(mode="after")
    def _something(self) -> Check:
        if self.check is None and self.expect is None:
            raise PydanticCustomError("missing_one", "a check needs 'check' (words), 'expect' (DOM), or both", {})
        return self

    def describe(self) -> str:
        if self.check:
            return self.check
        assert self.expect is not None
        return "; ".join(f"{k} {_short(v)}" for e in self.expect for k, v in e.items())


def _short(value: Any) -> str:
    if isinstance(value, Locator):
        return value.describe()
    if isinstance(value, BaseModel):
        return ", ".join(f"{k}={v!r}" for k, v in value.model_dump(exclude_none=True).items())
    return repr(value)


def _as_check(value: str | Check) -> Check:
    return Check(check=value) if isinstance(value, str) else value


CheckArg = Annotated[str | Check, AfterValidator(_as_check)]


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
    arg = op.arg
    if isinstance(arg, Locator):
        base = arg.plain().describe()
        extra = {k: v for k, v in arg.model_dump(exclude_none=True).items() if k not in Locator.model_fields}
        return f"{op.kind} {base}" + ("".join(f" {k}={v!r}" for k, v in extra.items()))
    if isinstance(arg, BaseModel):
        return f"{op.kind} {_short(arg)}"
    return f"{op.kind} {arg!r}"


def _as_fallback(value: str | Fallback) -> Fallback:
    return Fallback(agent=value) if isinstance(value, str) else value


FallbackArg = Annotated[str | Fallback, AfterValidator(_as_fallback)]


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


class Step(Strict):
    """One unit: an action wrapped in pre/post checks and fallbacks."""

    action: str = Field(description="the action in words")
    pre: tuple[CheckArg, ...] = ()
    do: tuple[Op, ...] | None = Field(None, description="deterministic way to do the action")
    post: tuple[CheckArg, ...] = ()
    fallback: tuple[FallbackArg, ...] = ()
    extract: Annotated[tuple[Extract, ...], _OneOrList()] = ()
    retries: int | None = Field(None, ge=0, le=20)
    check_timeout: float | None = Field(None, gt=0)
    step_timeout: float | None = Field(None, gt=0)
    action_timeout: float | None = Field(None, gt=0)

    @field_validator("extract", mode="before")
    @classmethod
    def _extract_list(cls, value: Any) -> Any:
        return _as_tuple(value)

    @field_validator("do", mode="before")
    @classmethod
    def _do_not_empty(cls, value: Any) -> Any:
        if value == []:
            raise PydanticCustomError("empty_do", "'do' is empty: list at least one op or remove it", {})
        return value


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

    def context_kwargs(self) -> dict[str, Any]:
        return self.model_dump(exclude_none=True)


class Settings(Strict):
    retries: int = Field(3, ge=0, le=20, description="recovery attempts per failing check")
    check_timeout: float = Field(5, gt=0, description="seconds a DOM assertion waits")
    step_timeout: float = Field(30, gt=0, description="seconds one step may take, recovery included")
    action_timeout: float = Field(10, gt=0, description="seconds one op waits for its element")


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
    steps: tuple[Step, ...] = Field(min_length=1)
    outcome: tuple[CheckArg, ...] = ()

    @field_validator("variations")
    @classmethod
    def _unique_ids(cls, value: tuple[Variation, ...]) -> tuple[Variation, ...]:
        seen: set[str] = set()
        for var in value:
            if var.id in seen:
                raise PydanticCustomError("duplicate_id", "variation id '{id}' is used twice", {"id": var.id})
            seen.add(var.id)
        return value

    def all_variations(self) -> tuple[Variation, ...]:
        """The variations to run: those listed, or one default one."""
        return self.variations or (Variation(id="default"),)


Locator.model_rebuild()
