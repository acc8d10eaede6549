"""The published JSON Schema, generated from the same models the loader validates with."""

from __future__ import annotations

import json
from typing import Any

from .model import Workflow


def workflow_schema() -> dict[str, Any]:
    schema = Workflow.model_json_schema(mode="validation")
    schema["title"] = "pytest-reuseit guarded workflow"
    return schema


def schema_text() -> str:
    return json.dumps(workflow_schema(), indent=2, sort_keys=False) + "\n"
