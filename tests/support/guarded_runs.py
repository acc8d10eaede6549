"""Runs of the model-backed guards through ``Runtime.run`` with the model on: workflows on the
pages of tests/pages/model/ (``workflow``, ``workflow_text``), the fixtures ``fake`` (the fake
endpoint, the environment pointing at it, with the analyst's answer for runs that fail) and ``rt``
(a Runtime; ``make_runtime`` comes from tests/conftest.py), and ``run``.

A test module takes the fixtures by importing them (``from tests.support.guarded_runs import fake,
rt``); the model's answers are in tests/support/model_answers.py.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
import yaml

from pytest_reuseit.engine.result import RunResult
from pytest_reuseit.runtime import Runtime
from pytest_reuseit.workflow.loader import LoadedWorkflow, parse
from tests.support.llm_server import FakeLLM
from tests.support.model_answers import ANALYSIS

# The pages of tests/pages/model/ change only when an op acts: a check that is not met would not be met after a
# longer wait, and one that is met is answered at the first look whatever the timeout.
FAST = {"check_timeout": 0.3, "action_timeout": 2, "retries": 0}


def workflow_text(
    steps: list[dict[str, Any]], *, start: str = "model/app.html", settings: dict[str, Any] | None = None, **top: Any
) -> str:
    doc = {
        "name": "model guards",
        "task": "Paint the page",
        "start_url": "{base_url}/" + start,
        "settings": {**FAST, **(settings or {})},
        "steps": steps,
        **top,
    }
    return yaml.safe_dump(doc, sort_keys=False)


def workflow(steps: list[dict[str, Any]], **kw: Any) -> LoadedWorkflow:
    return parse(workflow_text(steps, **kw), "x.reuseit.yaml")


@pytest.fixture
def fake(fake_llm_env: FakeLLM) -> FakeLLM:
    """The fake endpoint (env pointing at it) with a default analyst answer for runs that fail."""
    fake_llm_env.add_rule("challenge_analysis", None, ANALYSIS)
    return fake_llm_env


@pytest.fixture
def rt(make_runtime: Callable[..., Runtime]) -> Runtime:
    return make_runtime()


def run(rt: Runtime, loaded: LoadedWorkflow, run_id: str = "run") -> RunResult:
    return rt.run(loaded, None, run_id)
