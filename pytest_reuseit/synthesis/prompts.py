"""Synthesis prompts, adapted from ReUseIt Appendix C (C.1-C.4) to structured answers.

Each asks for generic, value-agnostic wording, as the paper's constraints do, but keeps the
task's parameters as ``{name}`` placeholders so the workflow file can vary them.
"""

from __future__ import annotations

from ..llm.prompts import DATA_RULE

VARIATIONS = (
    "You are an expert specializing in generating task variations for web agents. Analyze the user task, "
    "identify its variable components (form values, categories, websites) and return:\n"
    "- template: the original task verbatim except that each variable part is replaced by {name} (a short "
    "snake_case identifier);\n"
    "- parameters: each name with its value in the original task;\n"
    "- variations: one task per requested variation kind, preserving the task's objective: attribute (change "
    "input values entered on the same page), category (switch a tab, toggle or category on the same site), "
    "website (the same objective on another website); each with the parameter values it uses (same names as "
    "the template). Keep them realistic and actionable for a web agent."
)

JUDGE_RUN = (
    "You judge whether a web agent completed its task, from the task, the agent's actions and final message, "
    "and the last screenshots of the page. Answer success=true only if the page shows the task done as asked; "
    "give the rationale in one or two sentences. " + DATA_RULE
)

STRUCTURE = (
    "You learn a reusable plan from successful executions of the same task family by a web agent. Given the "
    "task template and the numbered actions of each successful run, write the major steps of the task in order, "
    "each a concise action in generic wording: use the template's {name} placeholders instead of literal values, "
    "and no other concrete values (texts, numbers, dates, URLs). For each step list its evidence as "
    "'RUN_ID:i,j' naming the action numbers that carried it out in each successful run that did it."
)

CONDITIONS = (
    "You are an expert specializing in diagnosing failures and formalizing condition checks from these failures "
    "for web agents. Analyze each failed execution message to determine why an action did not succeed (e.g. "
    "inactive buttons, missing input fields, an overlay in the way); look for cues such as 'failed to', "
    "'didn't', 'couldn't'. For each failure, abstract the cause into a clear, verifiable condition that should be "
    "checked before (pre) or after (post) the corresponding step of the given workflow structure. Do not include "
    "concrete or literal values from the original action; use generic, value-agnostic wording that prevents the "
    "same class of failure across inputs. Name the runs each check comes from."
)

FALLBACKS = (
    "You are an expert specializing in synthesizing retry strategies for web agents. Compare the steps where "
    "runs failed with the actions that made the successful executions succeed at the same step. Abstract them "
    "into clear retry instructions of the form 'Retry <action> by <concrete UI interaction>'. Do not include "
    "concrete or literal values; describe the interaction generically so it helps across inputs. A fallback is "
    "the only way a step's action is ever tried again (the runner never repeats an action on its own), so propose "
    "one that repeats the action only where doing it twice is safe: never for placing an order, paying, or "
    "sending or deleting something. Name the runs each fallback comes from."
)

MERGE = (
    "You are an expert specializing in constructing generalizable workflows for web agents. Insert the given "
    "condition checks as pre or post checks of the steps they belong to, and the fallback actions as the "
    "fallbacks of those steps, keeping the given structure, its order and its wording. Return every step: "
    "action, pre (list), post (list), fallback (list); empty lists where a step has none."
)
