"""Where an element is: the :class:`Locator` model, its short string form :data:`Loc`, and the
short human form of a locator or an argument built on one, for messages and reports."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, BeforeValidator, Field, field_validator, model_validator
from pydantic_core import PydanticCustomError

from .strict import OrString, Strict, closest, exactly_one, wrap_string

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


def known_role(value: str | None) -> str | None:
    """``value`` when it is an ARIA role (or a placeholder filled at run time); else an error that
    names the closest one."""
    if value is None or "{" in value or value in ARIA_ROLES:
        return value
    guess = closest(value, ARIA_ROLES)
    hint = f" (did you mean '{guess}'?)" if guess else ""
    raise PydanticCustomError("unknown_role", "'{role}' is not an ARIA role{hint}", {"role": value, "hint": hint})


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
    # ``or`` is a Python keyword: the field is ``or_``, written ``or`` in files.
    or_: Loc | None = Field(
        None,
        alias="or",
        description="another way to find the same element(s): the elements either finds, as Playwright's "
        "locator.or() (the import keeps a check's own selector here, beside the locator a person writes)",
    )

    @field_validator("role")
    @classmethod
    def _known_role(cls, value: str | None) -> str | None:
        return known_role(value)

    @model_validator(mode="after")
    def _one_kind(self) -> Locator:
        exactly_one(self, LOCATOR_KINDS, "a locator")
        if self.name is not None and self.role is None:
            raise PydanticCustomError("name_without_role", "'name' is only used with 'role'", {})
        return self

    def plain(self) -> Locator:
        """Just the locator of an op's or assertion's arguments (which extend Locator with value, key, ...)."""
        if type(self) is Locator:
            return self
        return Locator.model_validate(
            {k: v for k, v in self.model_dump(exclude_none=True).items() if k in LOCATOR_KEYS}
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
        if self.or_ is not None:
            text = f"{text} or {self.or_.describe()}"
        return text


# The keys of a locator as a file writes them (``or``, not the field's name ``or_``).
LOCATOR_KEYS = frozenset(f.alias or n for n, f in Locator.model_fields.items())


# A locator is written as a Playwright selector string or a mapping; the engine always sees a Locator.
Loc = Annotated[Locator, BeforeValidator(wrap_string("selector")), OrString()]

Locator.model_rebuild()


def describe_value(value: Any) -> str:
    """Short human form of a check's or an op's value: a locator with what the element must show,
    a model's keys, or the value itself."""
    if isinstance(value, Locator):
        # What the element must show (text, value, count) belongs in the name of the check too.
        wanted = {k: v for k, v in value.model_dump(exclude_none=True).items() if k not in LOCATOR_KEYS}
        return " ".join([value.describe(), *(f"{k}={v!r}" for k, v in wanted.items())])
    if isinstance(value, BaseModel):
        return ", ".join(f"{k}={v!r}" for k, v in value.model_dump(exclude_none=True).items())
    return repr(value)
