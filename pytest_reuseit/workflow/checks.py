"""The models of checks: DOM assertions (``expect``) and conditions in words (``check``).

A new kind of DOM assertion is a field of :class:`Expect` here (:data:`EXPECT_KEYS` follows it),
and its judge in ``browser/assertions.py`` (a test fails while a key has none).
"""

from __future__ import annotations

import re
from typing import Annotated, Any

from pydantic import AfterValidator, BeforeValidator, Field, field_validator, model_validator
from pydantic_core import PydanticCustomError

from .locators import Loc, Locator, describe_value, known_role
from .strict import OneOrList, OrString, Seconds, Strict, as_tuple, exactly_one, wrap_string


class TextMatch(Strict):
    equals: str | None = None
    contains: str | None = None
    matches: str | None = Field(None, description="a regular expression (re.search)")

    @model_validator(mode="after")
    def _one_match(self) -> TextMatch:
        exactly_one(self, ("equals", "contains", "matches"), "a text assertion")
        if self.matches is not None:
            try:
                re.compile(self.matches)
            except re.error as exc:
                raise PydanticCustomError("bad_regex", "invalid regular expression: {err}", {"err": str(exc)}) from None
        return self


class DownloadExpect(Strict):
    """The last download: its suggested file name and, for a text file, what it contains."""

    name: TextMatch | None = None
    contains: str | None = Field(None, description="text the saved file contains")


class VariableMatch(TextMatch):
    """A value the run holds (a param, an extract's ``into``...), as text, compared."""

    name: str = Field(
        pattern=r"^[A-Za-z_][A-Za-z0-9_.-]*$",
        description="the value's name, as in {name}: a param, an extract's into, a fixture's key",
    )


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


class LocTexts(Locator):
    """The texts of every element the locator matches, in page order (Playwright's ``toHaveText``
    with a list): whole texts with ``equals``, parts of them with ``contains``."""

    equals: tuple[str, ...] | None = None
    contains: tuple[str, ...] | None = None

    @model_validator(mode="after")
    def _one_list(self) -> LocTexts:
        exactly_one(self, ("equals", "contains"), "a list of texts")
        return self


class LocValues(Locator):
    """The values of the selected options of a list box (``<select multiple>``), in order
    (Playwright's ``toHaveValues``): as many as listed, each exactly as written."""

    equals: tuple[str, ...] = Field(description="the selected options' values, in order; [] for none")


def _thumbs_as_text(data: Any) -> Any:
    """``value: {equals: ["20", "80"]}``: a two-thumb slider's values, held as the text the check
    reads (``20, 80``), as ``fill`` takes them as a list."""
    if (
        isinstance(data, dict)
        and isinstance(data.get("equals"), list)
        and all(isinstance(v, (str, int, float)) for v in data["equals"])
    ):
        return {**data, "equals": ", ".join(str(v) for v in data["equals"])}
    return data


FieldValue = Annotated[LocText, BeforeValidator(_thumbs_as_text)]


class LocSelected(Locator):
    """The option(s) a select-like widget shows chosen, by their labels: a native ``<select>``'s
    selected options, a custom dropdown's, combobox's or multi-select's shown choice or chips.
    ``equals`` a text (one chosen) or a list (exactly those, in any order); ``contains`` a text one
    of them contains."""

    equals: str | tuple[str, ...] | None = Field(
        None, description="the chosen option's label, or a list: exactly those"
    )
    contains: str | None = Field(None, description="text that one of the chosen options' labels contains")

    @model_validator(mode="after")
    def _one(self) -> LocSelected:
        exactly_one(self, ("equals", "contains"), "a selected assertion")
        return self


class LocAttribute(Locator, TextMatch):
    """An attribute of an element (``attr``: class, href, aria-pressed...) compared with equals /
    contains / matches; the element must have it."""

    attr: str = Field(description="the attribute's name, e.g. class")


class LocCss(Locator, TextMatch):
    """A computed style of an element (``property``: display, color...) compared with equals /
    contains / matches, as the browser computes it (``rgb(255, 0, 0)``, not ``red``)."""

    property: str = Field(min_length=1, description="the CSS property's name, e.g. display")


class LocViewport(Locator):
    """An element inside the viewport (Playwright's ``toBeInViewport``): any part of it, or at
    least ``ratio`` of it."""

    ratio: float | None = Field(
        None, ge=0, le=1, description="the share of the element that must be in the viewport (0.5: half); default: any"
    )


# Written as a LOC (``in_viewport: "#total"``) or a LOC with its ratio.
InViewport = Annotated[LocViewport, BeforeValidator(wrap_string("selector")), OrString()]


class LocRole(Locator):
    """The element's ARIA role, explicit or implicit (Playwright's ``toHaveRole``): ``has_role``,
    as ``role`` is already the locator's."""

    equals: str = Field(description="an ARIA role, e.g. button, checkbox, heading")

    @field_validator("equals")
    @classmethod
    def _a_role(cls, value: str) -> str:
        return known_role(value) or value


class LocJsProperty(Locator):
    """A JavaScript property of the element (``property``: value, checked, a site's own) deeply
    equal to a JSON value (Playwright's ``toHaveJSProperty``)."""

    property: str = Field(min_length=1, description="the property's name, e.g. value, maxLength")
    equals: Any = Field(description="any JSON value: text, number, true/false, null, list, mapping")


class LocCount(Locator):
    equals: CountBound | None = None
    min: CountBound | None = None
    max: CountBound | None = None

    @model_validator(mode="after")
    def _some_bound(self) -> LocCount:
        if self.equals is None and self.min is None and self.max is None:
            raise PydanticCustomError("missing_one", "count needs equals, min and/or max", {})
        return self


class Expect(Strict):
    """DOM assertions; every key given must hold. They auto-wait up to ``check_timeout``."""

    visible: Loc | None = None
    hidden: Loc | None = None
    enabled: Loc | None = None
    disabled: Loc | None = None
    checked: Loc | None = None
    unchecked: Loc | None = None
    attached: Loc | None = Field(None, description="an element in the page's DOM, shown or not")
    detached: Loc | None = Field(None, description="no element in the page's DOM")
    focused: Loc | None = Field(None, description="the element that has the keyboard focus")
    editable: Loc | None = Field(None, description="a field that takes typing: enabled and not read-only")
    in_viewport: InViewport | None = Field(
        None, description="an element in the viewport: any part of it, or at least ratio of it (0.5: half)"
    )
    text: LocText | None = None
    value: FieldValue | None = Field(
        None, description="a field's value; a slider's number ([low, high] for two thumbs), a date as a date"
    )
    js_property: LocJsProperty | None = Field(
        None, description="a JavaScript property of the element (property: value...) equal to a JSON value"
    )
    has_role: LocRole | None = Field(None, description="the element's ARIA role, explicit or implicit (equals: button)")
    accessible_name: LocText | None = Field(
        None, description="the element's accessible name (its label, as assistive technology reads it)"
    )
    accessible_description: LocText | None = Field(
        None, description="the element's accessible description (aria-describedby, title...)"
    )
    values: LocValues | None = Field(
        None, description="the values of the selected options of a list box (<select multiple>), in order"
    )
    selected: LocSelected | None = Field(
        None,
        description="the option(s) a dropdown, combobox or multi-select shows chosen, by label "
        "(equals a text or a list, or contains)",
    )
    count: LocCount | None = None
    texts: LocTexts | None = Field(None, description="the texts of all matching elements, in order")
    attribute: LocAttribute | None = Field(None, description="an attribute of the element (attr: class, href...)")
    style: LocCss | None = Field(None, description="a computed style of the element (property: display, color...)")
    empty: Loc | None = Field(None, description="an element with no text, or a field with no value")
    url: TextMatch | None = None
    title: TextMatch | None = None
    js: str | None = Field(None, description="a JavaScript expression that must be truthy")
    dialog: TextMatch | None = Field(None, description="the message of the last dialog shown")
    download: DownloadExpect | None = Field(None, description="the last download (name, contents)")
    variable: VariableMatch | None = Field(
        None,
        description="a value the run holds, by name, as text: an extracted price equals 9.99 "
        "(Selenium IDE's assert and verify of a stored variable)",
    )
    # ``not`` is a Python keyword: the field is ``not_``, written ``not`` in files.
    not_: Expect | None = Field(
        None,
        alias="not",
        description="assertions that must not hold (all of them failing): Playwright's not. variants",
    )

    @model_validator(mode="after")
    def _not_empty(self) -> Expect:
        if not any(getattr(self, k) is not None for k in Expect.model_fields):
            raise PydanticCustomError(
                "missing_one", "expect needs one of: {listed}", {"listed": ", ".join(EXPECT_KEYS)}
            )
        return self

    def items(self) -> list[tuple[str, Any]]:
        """(key as written in a file, value) of every assertion given: ``not``, not ``not_``."""
        return [
            (key, getattr(self, f))
            for f, key in zip(Expect.model_fields, EXPECT_KEYS, strict=True)
            if getattr(self, f) is not None
        ]


# The keys of ``expect``, in the order a check judges them: Expect's fields, so that a key added
# there is judged (a separate list let a field parse and never be judged).
# As a file writes them (``not``, the field ``not_``).
EXPECT_KEYS = tuple(f.alias or name for name, f in Expect.model_fields.items())


Expect.model_rebuild()

ExpectList = Annotated[tuple[Expect, ...], Field(min_length=1), OneOrList()]


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
        return as_tuple(value)

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
        return "; ".join(f"{k} {describe_value(v)}" for e in self.expect for k, v in e.items())


# A check is written as words or a mapping; the engine always sees a Check.
CheckArg = Annotated[Check, BeforeValidator(wrap_string("check")), OrString()]
