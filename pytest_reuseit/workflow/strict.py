"""The base of every format model, and the shapes several of them share.

Every model of a workflow file derives from :class:`Strict`: frozen, no unknown keys, and a typo
is answered with the key that was probably meant. The helpers here give a field its short forms
(a single item for a list, a string for an object) in both the validation and the published schema.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, model_validator
from pydantic_core import PydanticCustomError

# An hour at most: a longer timeout or wait in a file is a mistake (or an attack), not a page that
# needs it, and infinity or NaN would wait for ever.
MAX_SECONDS = 3600
Seconds = Annotated[float, Field(gt=0, le=MAX_SECONDS, allow_inf_nan=False)]
WaitMs = Annotated[int, Field(ge=0, le=MAX_SECONDS * 1000)]


def closest(word: str, choices: list[str] | tuple[str, ...]) -> str | None:
    """The valid name a typo most probably meant, or None."""
    found = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.6)
    return found[0] if found else None


class Strict(BaseModel):
    """Base of all format models: frozen, no unknown keys, helpful error for a typo."""

    # Dumped as a file writes it (``not``, ``or``, ``from``; not ``not_``...): a dump may be written back.
    model_config = ConfigDict(frozen=True, extra="forbid", populate_by_name=True, serialize_by_alias=True)

    @model_validator(mode="before")
    @classmethod
    def _known_keys(cls, data: Any) -> Any:
        if isinstance(data, dict):
            # A field may be written under its alias (``not`` for ``not_``): a file knows only that.
            known = [f.alias or n for n, f in cls.model_fields.items()]
            for key in data:
                if str(key) not in known:
                    guess = closest(str(key), known)
                    hint = f" (did you mean '{guess}'?)" if guess else f"; expected one of: {', '.join(known)}"
                    raise PydanticCustomError(
                        "unknown_key", "unknown key '{key}'{hint}", {"key": str(key), "hint": hint}
                    )
        return data


def exactly_one(obj: BaseModel, names: tuple[str, ...], what: str) -> None:
    """Refuse ``obj`` (``what``, as messages name it) unless exactly one of ``names`` is set."""
    given = [n for n in names if getattr(obj, n) is not None]
    if len(given) != 1:
        listed = ", ".join(names)
        if not given:
            raise PydanticCustomError("missing_one", "{what} needs one of: {listed}", {"what": what, "listed": listed})
        raise PydanticCustomError(
            "too_many", "{what} takes only one of: {given}", {"what": what, "given": ", ".join(given)}
        )


def as_tuple(value: Any) -> Any:
    """A before-validator: a single mapping stands for a list of one."""
    return [value] if isinstance(value, dict) else value


class OneOrList:
    """Schema of a list that may also be written as its single item (``as_tuple`` wraps it)."""

    def __get_pydantic_json_schema__(self, core_schema: Any, handler: Any) -> dict[str, Any]:
        schema = handler(core_schema)
        return {"anyOf": [schema["items"], schema]}


class OrString:
    """JSON Schema of an object that may also be written as a string.

    The field's type is the object (what the code always gets: a ``BeforeValidator`` turns the
    string into it), while the published schema still offers the short string form to authors.
    """

    def __get_pydantic_json_schema__(self, core_schema: Any, handler: Any) -> dict[str, Any]:
        return {"anyOf": [{"type": "string"}, handler(core_schema)]}


def wrap_string(key: str) -> Callable[[Any], Any]:
    """A before-validator: a plain string ``s`` becomes ``{key: s}``; anything else is validated as is."""

    def wrap(value: Any) -> Any:
        return {key: value} if isinstance(value, str) else value

    return wrap
