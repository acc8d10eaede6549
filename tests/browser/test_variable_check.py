"""``expect: {variable: ...}``: a value the run holds, compared as text (Selenium IDE's ``assert``
and ``verify`` of a stored variable), judged in a real run on a page served by a route."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import Page

from pytest_reuseit.errors import WorkflowFormatError
from pytest_reuseit.workflow.loader import parse
from tests.support.routed_run import run_on

PAGE = '<p id="price">9.99</p>'


def _run(page: Page, check: str, params: str = "") -> Any:
    steps = f"""steps:
  - action: Read the price
    do: [{{extract: {{into: price, text: "#price"}}}}]
  - action: Look
    do: [{{wait: 0}}]
    post: [{{expect: {check}}}]
"""
    return run_on(page, PAGE, steps, top=params)


@pytest.mark.browser
@pytest.mark.parametrize(
    ("check", "status"),
    [
        ("{variable: {name: price, equals: '9.99'}}", "passed"),
        ("{variable: {name: price, matches: '^9\\.\\d+$'}}", "passed"),
        ("{variable: {name: price, equals: '{expected}'}}", "passed"),
        ("{not: {variable: {name: price, equals: '19.98'}}}", "passed"),
        ("{variable: {name: price, equals: '19.98'}}", "failed"),
        ("{not: {variable: {name: price, contains: '9.9'}}}", "failed"),
    ],
)
def test_a_variable_is_compared_as_text(page: Page, check: str, status: str) -> None:
    result = _run(page, check, params="params: {expected: '9.99'}\n")
    assert result.status == status, result.message
    if status == "failed":
        assert result.failed_phase == "post" and "'9.99'" in (result.message or ""), result.message


def test_a_variable_check_of_an_unknown_name_is_refused_at_load_naming_it() -> None:
    text = """name: n
task: t
start_url: http://127.0.0.1:9/t
steps:
  - action: Look
    do: [{wait: 0}]
    post: [{expect: {variable: {name: prise, equals: '1'}}}]
"""
    with pytest.raises(WorkflowFormatError, match=r"unknown placeholder \{prise\}"):
        parse(text, "w.reuseit.yaml")
    with pytest.raises(WorkflowFormatError, match="name"):
        parse(text.replace("name: prise", "name: 'a b'"), "w.reuseit.yaml")
