"""Bad input on real widgets fails within the op's timeout, in one line naming the widget and
what it offers: an option that is not there, a slider value out of range or between steps, a
date the field refuses, an element that is no such widget (workflow-format.md, "Widgets")."""

from __future__ import annotations

from typing import Any

import pytest

from tests.browser.test_widget_ops import run_ops
from tests.support.widget_site import WidgetSite, widget_site

__all__ = ["widget_site"]

pytestmark = pytest.mark.browser


def failed(result: Any, *words: str) -> str:
    assert result.status == "failed", result.message
    line = result.message.splitlines()[0]
    for w in words:
        assert w in line, line
    return line


@pytest.mark.parametrize("lib", ["native", "mui", "select2", "tom-select", "choices"])
def test_an_option_that_is_not_there_lists_the_options_offered(
    page: Any, fence: Any, widget_site: WidgetSite, lib: str
) -> None:
    result = run_ops(
        page, fence, widget_site, lib, [{"select": {"label": "Country", "option": "Francee"}}], action_timeout=1.5
    )
    failed(result, "'Francee' is not among the", "France", "Germany")
    assert widget_site.last(lib, "country") is None


@pytest.mark.parametrize("lib", ["native", "mui"])
def test_a_slider_value_out_of_range_names_minimum_maximum_and_step(
    page: Any, fence: Any, widget_site: WidgetSite, lib: str
) -> None:
    result = run_ops(page, fence, widget_site, lib, [{"fill": {"label": "Volume", "value": "120"}}], action_timeout=1.5)
    failed(result, "120 is outside", "minimum 0, maximum 100, step 5")
    off_step = run_ops(
        page, fence, widget_site, lib, [{"fill": {"label": "Volume", "value": "33"}}], action_timeout=1.5
    )
    failed(off_step, "33 is between the steps", "minimum 0, maximum 100, step 5")
    assert widget_site.last(lib, "volume") is None  # refused before anything moved


def test_a_date_the_field_refuses_fails_naming_it(page: Any, fence: Any, widget_site: WidgetSite) -> None:
    result = run_ops(
        page, fence, widget_site, "mui", [{"fill": {"label": "Ship date", "value": "2030-01-01"}}], action_timeout=2
    )
    failed(result, "refuses 2030-01-01")


def test_select_on_an_element_that_is_no_dropdown_says_what_it_is(
    page: Any, fence: Any, widget_site: WidgetSite
) -> None:
    result = run_ops(
        page,
        fence,
        widget_site,
        "native",
        [{"select": {"label": "Express shipping", "option": "Yes"}}],
        action_timeout=1,
    )
    failed(result, "checkbox", "not a list of options")
    assert widget_site.last("native", "express") is None  # nothing was clicked


@pytest.mark.parametrize(
    ("lib", "op", "wrong", "actual"),
    [
        (
            "select2",
            {"select": {"label": "Country", "option": "France"}},
            {"selected": {"label": "Country", "equals": "Germany"}},
            "['France']",
        ),
        (
            "mui",
            {"select": {"label": "Extras", "option": ["Gift wrap", "Insurance"]}},
            {"selected": {"label": "Extras", "equals": ["Gift wrap"]}},
            "['Gift wrap', 'Insurance']",
        ),
        ("mui", {"fill": {"label": "Volume", "value": "30"}}, {"value": {"label": "Volume", "equals": "35"}}, "'30'"),
        ("mui", {"check": {"label": "Notifications"}}, {"unchecked": {"label": "Notifications"}}, "not unchecked"),
        (
            "mui",
            {"fill": {"label": "Ship date", "value": "2027-03-15"}},
            {"value": {"label": "Ship date", "equals": "2027-03-16"}},
            "'2027-03-15'",
        ),
    ],
)
def test_a_widget_check_that_does_not_hold_fails_saying_what_the_widget_shows(
    page: Any, fence: Any, widget_site: WidgetSite, lib: str, op: dict[str, Any], wrong: dict[str, Any], actual: str
) -> None:
    result = run_ops(page, fence, widget_site, lib, [op], [{"expect": wrong}], check_timeout=0.3)
    assert result.status == "failed", result.message
    assert "post check failed" in result.message and f"actual: {actual}" in result.message, result.message
