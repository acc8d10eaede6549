"""The values ops take: the argument models of the built-in ops (``workflow/ops.py`` names
each op and the model of its value) and how an op answers dialogs."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field, field_validator, model_validator
from pydantic_core import PydanticCustomError

from .checks import TextMatch
from .locators import Loc, Locator
from .strict import OneOrList, Strict, exactly_one


class TypeArgs(Locator):
    """``type`` and ``change``: a text typed or set."""

    value: str


class FillArgs(Locator):
    """``fill``: a text, or for a slider of two thumbs, a list of its two values."""

    value: str | tuple[str, ...] = Field(
        description="the text to fill, a slider's number, a date (2027-03-15), or a two-thumb slider's [low, high]"
    )

    @field_validator("value")
    @classmethod
    def _one_or_two(cls, value: str | tuple[str, ...]) -> str | tuple[str, ...]:
        if isinstance(value, tuple) and not 1 <= len(value) <= 2:
            raise PydanticCustomError(
                "thumbs", "a list of values is a slider's thumbs: one or two values, not {n}", {"n": len(value)}
            )
        return value


class SelectArgs(Locator):
    option: str | tuple[str, ...] = Field(description="label or value (a list selects several)")


class PressArgs(Locator):
    key: str


class DispatchArgs(Locator):
    event: str = Field(
        min_length=1,
        pattern=r"^[A-Za-z][A-Za-z0-9_:.-]*$",
        description="the DOM event's type (blur, change, input, click...), as Playwright's dispatchEvent takes it",
    )


class DragArgs(Locator):
    """The element dragged (the locator keys) and the element it is dropped on (``to``)."""

    to: Loc = Field(description="the element to drop it on: a LOC (selector string or locator mapping)")

    @model_validator(mode="before")
    @classmethod
    def _two_elements(cls, data: Any) -> Any:
        if isinstance(data, str):  # a LOC alone: where it goes is missing
            raise PydanticCustomError(
                "drag_shape",
                "a drag needs the element dropped on too: write {selector: '{value}', to: LOC}",
                {"value": data},
            )
        return data


class Point(Strict):
    """A point from an element's middle, in CSS pixels: right and down are positive."""

    x: int = Field(description="pixels right of the element's middle (negative: left)")
    y: int = Field(description="pixels below the element's middle (negative: above)")


class WaitArgs(Locator):
    state: Literal["visible", "hidden", "attached", "detached"] = "visible"


class ScrollBy(Strict):
    by: int = Field(description="pixels to scroll down (negative: up)")


class ScrollTo(Locator):
    """An element scrolled to a position of its own (``scrollLeft``/``scrollTop``), as the Chrome
    recorder's replay scrolls a scrollable element."""

    left: float | None = Field(None, description="pixels from the element's left edge (scrollLeft)")
    top: float | None = Field(None, description="pixels from the element's top (scrollTop)")

    @model_validator(mode="after")
    def _a_position(self) -> ScrollTo:
        if self.left is None and self.top is None:
            raise ValueError("scroll to a position needs 'top' and/or 'left'")
        return self


class Position(Strict):
    """A point in an element, from its top-left corner, as Playwright's ``position`` takes it: where
    a click lands in a canvas (a data grid's cell, a chart's bar) instead of the element's middle."""

    x: float = Field(ge=0, le=100_000, allow_inf_nan=False, description="pixels from the element's left edge")
    y: float = Field(ge=0, le=100_000, allow_inf_nan=False, description="pixels from the element's top edge")


class Extract(Strict):
    """Stores a value for later ``{placeholders}`` and for the report."""

    into: str = Field(pattern=r"^[A-Za-z_][A-Za-z0-9_]*$")
    text: Loc | None = Field(None, description="inner text of an element")
    value: Loc | None = Field(None, description="input value of a form field")
    attribute: str | None = Field(None, description="with text: read this attribute instead of the text")
    js: str | None = Field(None, description="a JavaScript expression evaluated in the page")
    of: Loc | None = Field(
        None, description="with js: the element it is a function of (el => el.style.cssText), found as any LOC is"
    )
    query: str | None = Field(None, description="the model reads it from the page")

    @model_validator(mode="after")
    def _one_source(self) -> Extract:
        exactly_one(self, ("text", "value", "js", "query"), "extract")
        if self.of is not None and self.js is None:
            raise PydanticCustomError("of_without_js", "'of' goes with js: the element the script is a function of", {})
        return self


class UploadArgs(Locator):
    files: Annotated[tuple[str, ...], Field(min_length=1), OneOrList()] = Field(
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


class PageUrl(Strict):
    url: str | TextMatch = Field(description="a text the page's URL contains, or {equals|contains|matches}")


SwitchPage = Literal["main", "last"] | Annotated[int, Field(ge=0)] | PageUrl
