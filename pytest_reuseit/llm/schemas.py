"""The structured answers we ask the model for (response_format json_schema, strict).

``condition_check`` and ``challenge_analysis`` are fixed by the contract so any server or test
double can answer them; ``agent_action`` and ``extracted_value`` are this project's own and are
documented in docs/workflow-format.md beside them. Each answer is a pydantic model; the JSON
Schema sent with the request is generated from it (:func:`strict_schema`), so the two cannot drift.
"""

from __future__ import annotations

from typing import Any, Literal, get_args

from pydantic import BaseModel, ConfigDict

from ..engine.result import Category

# The agent's actions: the one list (the answer schema, the agent's planner in llm/agent.py and
# `reuseit heal` follow it; docs/workflow-format.md is checked against it). Add an action here,
# describe it in prompts.AGENT_SYSTEM and plan it in ModelAgent._call_for. The page and file
# actions mirror the ops of the same names (workflow/ops.py), so what the agent did compiles back
# to those ops; ``dialog`` sets how the dialogs of its next actions are answered.
AgentActionName = Literal[
    "click",
    "fill",
    "select",
    "check",
    "uncheck",
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
AGENT_ACTIONS: tuple[str, ...] = get_args(AgentActionName)
# The actions the run's agent does itself rather than as one planned Playwright call (ModelAgent.
# _page_action): they need the run's pages, or (the history) a wait that a page restored from a
# browser's back/forward cache cannot stall.
PAGE_ACTIONS = ("switch_page", "close_page", "back", "forward", "reload", "upload", "dialog")


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
    category: Category


class AgentAction(BaseModel):
    model_config = ConfigDict(extra="ignore")
    thought: str
    action: AgentActionName
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


# ---- reuseit promote: a DOM assertion for a check in words

AssertionKind = Literal[
    "visible", "hidden", "text_equals", "text_contains", "count_equals", "count_min", "url_contains", "title_contains"
]


class ProposedAssertion(BaseModel):
    model_config = ConfigDict(extra="ignore")
    kind: AssertionKind
    css: str  # a CSS selector of the element(s); "" for url_contains and title_contains
    value: str  # the text or number the kind compares with; "" for visible and hidden


class ExpectProposal(BaseModel):
    """DOM assertions that hold exactly when the check's words hold (all of them must hold)."""

    model_config = ConfigDict(extra="ignore")
    assertions: list[ProposedAssertion]
    rationale: str


def strict_schema(model: type[BaseModel]) -> dict[str, Any]:
    """``model``'s JSON Schema in the form strict structured output requires: every property
    required, no other properties, references inlined, and no titles or defaults (the model reads
    the field names)."""
    schema = model.model_json_schema()
    return _strict(schema, schema.pop("$defs", {}))


def _strict(node: Any, defs: dict[str, Any]) -> Any:
    if isinstance(node, list):
        return [_strict(item, defs) for item in node]
    if not isinstance(node, dict):
        return node
    if "$ref" in node:
        return _strict(defs[node["$ref"].rsplit("/", 1)[-1]], defs)
    out = {k: _strict(v, defs) for k, v in node.items() if k not in ("title", "description", "default")}
    if out.get("type") == "object":
        out["properties"] = out.get("properties", {})
        out["required"] = list(out["properties"])
        out["additionalProperties"] = False
    return out


# Schema name -> (the JSON Schema sent with the request, the model that validates the answer).
ANSWERS: dict[str, type[BaseModel]] = {
    "task_variations": TaskVariations,
    "run_judgement": RunJudgement,
    "workflow_structure": WorkflowStructure,
    "condition_checks": ConditionChecks,
    "fallback_actions": FallbackActions,
    "guarded_workflow": GuardedWorkflow,
    "guidance_edits": GuidanceEdits,
    "condition_check": ConditionCheck,
    "challenge_analysis": ChallengeAnalysis,
    "agent_action": AgentAction,
    "extracted_value": ExtractedValue,
    "expect_proposal": ExpectProposal,
}
SCHEMAS: dict[str, tuple[dict[str, Any], type[BaseModel]]] = {
    name: (strict_schema(model), model) for name, model in ANSWERS.items()
}
