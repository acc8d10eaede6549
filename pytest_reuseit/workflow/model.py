"""Frozen models of a guarded workflow (the contract in ``workflow-format.md``): the file's top
level (:class:`Workflow`), its variations, pytest marks and mutation rules.

pydantic does the validation and generates the published JSON Schema from the same classes, so
the loader, the schema and the engine can never disagree. Every model forbids unknown keys and
says which key it did not know and which one was probably meant. The parts live beside this
module: ``strict`` (the base model), ``locators``, ``checks``, ``op_args`` and ``ops``,
``steps``, ``settings``.
"""

from __future__ import annotations

import re
from typing import Annotated, Literal

from pydantic import AfterValidator, ConfigDict, Field, field_validator, model_validator
from pydantic_core import PydanticCustomError

from .checks import CheckArg
from .locators import Loc
from .settings import BrowserOptions, SessionFrom, Settings
from .steps import Step

# The base of an op's own argument model, documented as imported from here (docs/workflow-format.md).
from .strict import Strict as Strict

SCHEMA_ID = "https://pytest-reuseit.dev/schema/workflow-1.json"

VARIATION_KINDS = ("original", "attribute", "category", "website", "other")
SEVERITIES = ("blocker", "critical", "normal", "minor", "trivial")


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


ParamValue = str | int | float | bool


class Variation(Strict):
    id: str = Field(pattern=r"^[A-Za-z0-9_.-]+$", description="test id suffix")
    kind: Literal["original", "attribute", "category", "website", "other"] = "original"
    params: dict[str, ParamValue] = Field(default_factory=dict)
    description: str | None = None
    marks: tuple[MarkArg, ...] = Field((), description="pytest marks for this variation only")


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
