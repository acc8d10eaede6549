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

# The page and file actions mirror the ops of the same names (workflow/ops.py), so what the agent
# did compiles back to those ops; ``dialog`` sets how the dialogs of its next actions are answered.
PAGE_ACTIONS = ("switch_page", "close_page", "forward", "reload", "upload", "dialog")
AGENT_ACTIONS = (
    ("click", "fill", "select", "press", "scroll", "hover", "goto", "back", "wait")
    + PAGE_ACTIONS
    + (
        "done",
        "fail",
    )
)


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
        "popup_or_overlay",
        "wrong_element_or_value",
        "action_incomplete",
        "page_not_ready",
        "site_changed",
        "product_defect",
        "ambiguous_instruction",
        "infrastructure",
    ]


class AgentAction(BaseModel):
    model_config = ConfigDict(extra="ignore")
    thought: str
    action: Literal[
        "click",
        "fill",
        "select",
        "press",
        "scroll",
        "hover",
        "goto",
        "back",
        "wait",
        "switch_page",
        "close_page",
        "forward",
        "reload",
        "upload",
        "dialog",
        "done",
        "fail",
    ]
    element: str  # an element id from the observation (e.g. "e12"), or "" when none applies
    value: str  # text to type, option to select, key to press, URL, pixels or ms; else ""
    message: str  # one sentence on what was done / why it is done or impossible


class ExtractedValue(BaseModel):
    model_config = ConfigDict(extra="ignore")
    found: bool
    value: str


# ---- synthesis (ReUseIt §4.1, Appendix C) and guidance --------------------------------------


class TaskParameter(BaseModel):
    model_config = ConfigDict(extra="ignore")
    name: str  # identifier used as {name} in the task template
    value: str  # its value in the original task


class TaskVariation(BaseModel):
    model_config = ConfigDict(extra="ignore")
    kind: Literal["attribute", "category", "website"]
    task: str  # the variation task in words
    params: list[TaskParameter]  # the parameter values of this variation


class TaskVariations(BaseModel):
    """C.1: the task as a template with named parameters, and one variation per kind."""

    model_config = ConfigDict(extra="ignore")
    template: str  # the original task with each variable part replaced by {name}
    parameters: list[TaskParameter]  # values of the original task
    variations: list[TaskVariation]


class RunJudgement(BaseModel):
    model_config = ConfigDict(extra="ignore")
    success: bool
    rationale: str


class StructureStep(BaseModel):
    model_config = ConfigDict(extra="ignore")
    action: str  # generic wording, parameters as {name}, no literal values
    evidence: list[str]  # "RUN_ID:i,j" = the actions of a successful run that carried out this step


class WorkflowStructure(BaseModel):
    model_config = ConfigDict(extra="ignore")
    steps: list[StructureStep]


class ConditionRule(BaseModel):
    model_config = ConfigDict(extra="ignore")
    step: int  # 1-based step of the structure the check belongs to
    phase: Literal["pre", "post"]
    condition: str
    source_runs: list[str]


class ConditionChecks(BaseModel):
    """C.2: checks from the failed runs' errors."""

    model_config = ConfigDict(extra="ignore")
    checks: list[ConditionRule]


class FallbackRule(BaseModel):
    model_config = ConfigDict(extra="ignore")
    step: int
    fallback: str  # "Retry ... by ..."
    source_runs: list[str]


class FallbackActions(BaseModel):
    """C.3: fallbacks from the successful runs."""

    model_config = ConfigDict(extra="ignore")
    fallbacks: list[FallbackRule]


class GuardedStep(BaseModel):
    model_config = ConfigDict(extra="ignore")
    action: str
    pre: list[str]
    post: list[str]
    fallback: list[str]


class GuardedWorkflow(BaseModel):
    """C.4: the structure with the checks and fallbacks merged in."""

    model_config = ConfigDict(extra="ignore")
    steps: list[GuardedStep]


class GuidanceEdit(BaseModel):
    model_config = ConfigDict(extra="ignore")
    step: int  # 1-based step number the edit applies to
    field: Literal["pre", "post", "fallback", "action"]
    operation: Literal["add", "replace"]
    index: int  # with replace: 0-based position in the list (ignored for action and add)
    text: str  # the check, fallback or action wording to write


class GuidanceEdits(BaseModel):
    model_config = ConfigDict(extra="ignore")
    edits: list[GuidanceEdit]
    summary: str


_PARAM = _obj({"name": {"type": "string"}, "value": {"type": "string"}})
_STR_LIST = {"type": "array", "items": {"type": "string"}}

SCHEMAS: dict[str, tuple[dict[str, Any], type[BaseModel]]] = {
    "task_variations": (
        _obj(
            {
                "template": {"type": "string"},
                "parameters": {"type": "array", "items": _PARAM},
                "variations": {
                    "type": "array",
                    "items": _obj(
                        {
                            "kind": {"type": "string", "enum": ["attribute", "category", "website"]},
                            "task": {"type": "string"},
                            "params": {"type": "array", "items": _PARAM},
                        }
                    ),
                },
            }
        ),
        TaskVariations,
    ),
    "run_judgement": (_obj({"success": {"type": "boolean"}, "rationale": {"type": "string"}}), RunJudgement),
    "workflow_structure": (
        _obj({"steps": {"type": "array", "items": _obj({"action": {"type": "string"}, "evidence": _STR_LIST})}}),
        WorkflowStructure,
    ),
    "condition_checks": (
        _obj(
            {
                "checks": {
                    "type": "array",
                    "items": _obj(
                        {
                            "step": {"type": "integer"},
                            "phase": {"type": "string", "enum": ["pre", "post"]},
                            "condition": {"type": "string"},
                            "source_runs": _STR_LIST,
                        }
                    ),
                }
            }
        ),
        ConditionChecks,
    ),
    "fallback_actions": (
        _obj(
            {
                "fallbacks": {
                    "type": "array",
                    "items": _obj(
                        {
                            "step": {"type": "integer"},
                            "fallback": {"type": "string"},
                            "source_runs": _STR_LIST,
                        }
                    ),
                }
            }
        ),
        FallbackActions,
    ),
    "guarded_workflow": (
        _obj(
            {
                "steps": {
                    "type": "array",
                    "items": _obj(
                        {
                            "action": {"type": "string"},
                            "pre": _STR_LIST,
                            "post": _STR_LIST,
                            "fallback": _STR_LIST,
                        }
                    ),
                }
            }
        ),
        GuardedWorkflow,
    ),
    "guidance_edits": (
        _obj(
            {
                "edits": {
                    "type": "array",
                    "items": _obj(
                        {
                            "step": {"type": "integer"},
                            "field": {"type": "string", "enum": ["pre", "post", "fallback", "action"]},
                            "operation": {"type": "string", "enum": ["add", "replace"]},
                            "index": {"type": "integer"},
                            "text": {"type": "string"},
                        }
                    ),
                },
                "summary": {"type": "string"},
            }
        ),
        GuidanceEdits,
    ),
    "condition_check": (
        _obj({"met": {"type": "boolean"}, "explanation": {"type": "string"}}),
        ConditionCheck,
    ),
    "challenge_analysis": (
        _obj(
            {
                "where": {"type": "string"},
                "why": {"type": "string"},
                "what": {"type": "string"},
                "guidance": {"type": "array", "items": {"type": "string"}},
                "category": {"type": "string", "enum": list(CATEGORIES)},
            }
        ),
        ChallengeAnalysis,
    ),
    "agent_action": (
        _obj(
            {
                "thought": {"type": "string"},
                "action": {"type": "string", "enum": list(AGENT_ACTIONS)},
                "element": {"type": "string"},
                "value": {"type": "string"},
                "message": {"type": "string"},
            }
        ),
        AgentAction,
    ),
    "extracted_value": (
        _obj({"found": {"type": "boolean"}, "value": {"type": "string"}}),
        ExtractedValue,
    ),
}
