"""The structured answers we ask the model for (response_format json_schema, strict).

``condition_check`` and ``challenge_analysis`` are fixed by the contract so any server or test
double can answer them; ``agent_action`` and ``extracted_value`` are this project's own and are
documented in docs/workflow-format.md beside them. Each schema is written out by hand (strict
mode wants every property required and no extras) and paired with a pydantic model that
validates the answer.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from ..engine.result import CATEGORIES

AGENT_ACTIONS = ("click", "fill", "select", "press", "scroll", "hover", "goto", "back", "wait", "done", "fail")


def _obj(props: dict[str, Any]) -> dict[str, Any]:
    return {"type": "object", "properties": props, "required": list(props), "additionalProperties": False}


class ConditionCheck(BaseModel):
    model_config = ConfigDict(extra="ignore")
    met: bool
    explanation: str


class ChallengeAnalysis(BaseModel):
    model_config = ConfigDict(extra="ignore")
    where: str
    why: str
    what: str
    guidance: list[str]
    category: Literal[
        "popup_or_overlay", "wrong_element_or_value", "action_incomplete", "page_not_ready",
        "site_changed", "product_defect", "ambiguous_instruction", "infrastructure",
    ]


class AgentAction(BaseModel):
    model_config = ConfigDict(extra="ignore")
    thought: str
    action: Literal["click", "fill", "select", "press", "scroll", "hover", "goto", "back", "wait", "done", "fail"]
    element: str  # an element id from the observation (e.g. "e12"), or "" when none applies
    value: str  # text to type, option to select, key to press, URL, pixels or ms; else ""
    message: str  # one sentence on what was done / why it is done or impossible


class ExtractedValue(BaseModel):
    model_config = ConfigDict(extra="ignore")
    found: bool
    value: str


SCHEMAS: dict[str, tuple[dict[str, Any], type[BaseModel]]] = {
    "condition_check": (
        _obj({"met": {"type": "boolean"}, "explanation": {"type": "string"}}),
        ConditionCheck,
    ),
    "challenge_analysis": (
        _obj({
            "where": {"type": "string"}, "why": {"type": "string"}, "what": {"type": "string"},
            "guidance": {"type": "array", "items": {"type": "string"}},
            "category": {"type": "string", "enum": list(CATEGORIES)},
        }),
        ChallengeAnalysis,
    ),
    "agent_action": (
        _obj({
            "thought": {"type": "string"},
            "action": {"type": "string", "enum": list(AGENT_ACTIONS)},
            "element": {"type": "string"},
            "value": {"type": "string"},
            "message": {"type": "string"},
        }),
        AgentAction,
    ),
    "extracted_value": (
        _obj({"found": {"type": "boolean"}, "value": {"type": "string"}}),
        ExtractedValue,
    ),
}
