"""The model of a step (an action guarded by checks, with its fallbacks) and of a fallback."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BeforeValidator, ConfigDict, Field, field_validator, model_validator
from pydantic_core import PydanticCustomError

from .checks import CheckArg
from .locators import Loc
from .op_args import Extract
from .ops import Op, describe_op
from .strict import OneOrList, OrString, Seconds, Strict, as_tuple, exactly_one, wrap_string


class Fallback(Strict):
    """A recovery attempt: words for the agent, or deterministic ops (then optionally redo)."""

    agent: str | None = Field(None, description="instruction handed to the agent")
    do: tuple[Op, ...] | None = None
    redo: bool = Field(False, description="after the ops, perform the step's action again")
    # Another way to find the element is the answer to an action that found none, not to a post
    # check that failed after the action went through: there it would do the action twice.
    when: tuple[Literal["pre", "action", "post"], ...] | None = Field(
        None,
        description="the failures this fallback answers: pre, action (an op failed), post; default: all",
    )

    @field_validator("when", mode="before")
    @classmethod
    def _when_list(cls, value: Any) -> Any:
        return [value] if isinstance(value, str) else value

    def answers(self, phase: str) -> bool:
        return self.when is None or phase in self.when

    @model_validator(mode="after")
    def _one(self) -> Fallback:
        exactly_one(self, ("agent", "do"), "a fallback")
        if self.redo and self.do is None:
            raise PydanticCustomError("redo_without_do", "'redo' goes with 'do'", {})
        return self

    def describe(self) -> str:
        if self.agent is not None:
            return f"agent: {self.agent}"
        assert self.do is not None
        ops = ", ".join(describe_op(op) for op in self.do)
        return f"do: {ops}" + (" then redo the action" if self.redo else "")


# A fallback is written as words for the agent or a mapping; the engine always sees a Fallback.
FallbackArg = Annotated[Fallback, BeforeValidator(wrap_string("agent")), OrString()]


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
    extract: Annotated[tuple[Extract, ...], OneOrList()] = ()
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
        return as_tuple(value)

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
