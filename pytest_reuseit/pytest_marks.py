"""What a workflow file says about its pytest item: marks, Allure labels, fixture placeholders.

The file's ``marks``/``severity``/``epic``/``feature``/``story`` become pytest marks at
collection, so pytest (skip, xfail, ``-m``) and allure-pytest (``--allure-severities``,
``--allure-features``, test plans) select and judge workflows as they do Python tests.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

from .errors import WorkflowFailed
from .workflow.model import MarkValue, Workflow

# allure-pytest's own marker name and label types (allure.feature(...) is this mark).
ALLURE_LABEL = "allure_label"
# Marks whose single string argument is the reason (others take it as a positional argument).
REASON_MARKS = ("skip", "skipif", "xfail")


def mark_from_spec(spec: str | dict[str, MarkValue]) -> pytest.MarkDecorator:
    """``slow`` | ``{skip: reason}`` | ``{skipif: {condition, reason}}`` | ``{xfail: reason | {...}}``."""
    if isinstance(spec, str):
        return getattr(pytest.mark, spec)
    name, arg = next(iter(spec.items()))
    mark: pytest.MarkDecorator = getattr(pytest.mark, name)
    args: tuple[Any, ...] = ()
    kwargs: dict[str, Any] = {}
    if isinstance(arg, dict):
        kwargs = dict(arg)
        if "condition" in kwargs:
            args = (kwargs.pop("condition"),)  # pytest's skipif/xfail take it positionally
    elif arg is not None:
        if name in REASON_MARKS:
            kwargs["reason"] = arg
        else:
            args = (arg,)
    if name == "xfail":
        # An xfail covers a known defect: a *failed* run. A broken run (site down, model
        # unavailable) is no verdict on that defect and must still show.
        kwargs.setdefault("raises", WorkflowFailed)
    return mark(*args, **kwargs)


def allure_marks(wf: Workflow) -> list[pytest.MarkDecorator]:
    """Severity, epic, feature and story as allure-pytest's own label marks."""
    import allure  # noqa: PLC0415 - allure-pytest is a dependency; kept local to this adapter

    label = getattr(pytest.mark, ALLURE_LABEL)
    marks = [label(getattr(allure.severity_level, wf.severity.upper()), label_type="severity")]
    for kind in ("epic", "feature", "story"):
        value = getattr(wf, kind)
        if value:
            marks.append(label(value, label_type=kind))
    return marks


def fixture_placeholders(values: Mapping[str, object]) -> dict[str, object]:
    """``{name}`` for each fixture's value, ``{name.key}`` for each key of a mapping value."""
    out: dict[str, object] = {}
    for name, value in values.items():
        if isinstance(value, Mapping):
            for key, item in value.items():
                out[f"{name}.{key}"] = item
        if value is not None:
            out[name] = value
    return out
