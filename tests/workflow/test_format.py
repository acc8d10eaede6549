"""The workflow file format: loader, models, placeholders and the published schema (no browser)."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pydantic
import pytest
import yaml

from pytest_reuseit.errors import PlaceholderError, WorkflowFormatError
from pytest_reuseit.sites import LocalSites
from pytest_reuseit.workflow.checks import Check, Expect
from pytest_reuseit.workflow.loader import load, parse
from pytest_reuseit.workflow.locators import Locator
from pytest_reuseit.workflow.model import SCHEMA_ID, Variation, Workflow
from pytest_reuseit.workflow.op_args import Extract, FillArgs
from pytest_reuseit.workflow.ops import Op
from pytest_reuseit.workflow.placeholders import MASK, Values, names_in
from pytest_reuseit.workflow.schema import schema_text, workflow_schema
from pytest_reuseit.workflow.settings import Settings
from pytest_reuseit.workflow.steps import Fallback, Step
from tests.support.paths import ROOT

SHIPPED = sorted([*(ROOT / "workflows").rglob("*.reuseit.yaml"), *(ROOT / "workflows").rglob("*.reuseit.yml")])
FILE = "shop/search.reuseit.yaml"


def yml(text: str) -> str:
    return textwrap.dedent(text).lstrip("\n")


def problems_of(text: str, path: str = FILE) -> list[str]:
    with pytest.raises(WorkflowFormatError) as info:
        parse(yml(text), path)
    err = info.value
    assert err.path == path
    assert err.problems, "a format error must list at least one problem"
    assert str(err) == "\n".join(err.problems)
    return err.problems


def only_problem(text: str) -> str:
    problems = problems_of(text)
    assert len(problems) == 1, problems
    return problems[0]


# --------------------------------------------------------------------------- a valid workflow

FULL = """\
name: Search a product and read the cheapest price
task: Find the cheapest {product} on {site}
start_url: "{site}/"
description: every top-level key of the contract
params:
  site: "{base_url}"
  product: trail shoes
  limit: 3
  ratio: 0.5
  flag: true
variations:
  - id: original
  - id: attribute
    kind: attribute
    description: another product
    params: {product: rain jacket}
allowed_domains: [127.0.0.1, localhost]
tags: [shop, smoke]
severity: critical
browser:
  viewport: {width: 1280, height: 800}
  locale: en-US
  color_scheme: dark
settings: {retries: 2, check_timeout: 4, step_timeout: 20, action_timeout: 7}
model: gpt-4o-mini
steps:
  - action: Type {product} into the search box and submit
    pre:
      - No cookie banner or dialog covers the page
    do:
      - fill: {role: searchbox, value: "{product}"}
      - press: Enter
    post:
      - check: Results for {product} are listed
        expect: {count: {css: ".result", min: 1}}
        votes: 3
    fallback:
      - Retry the search by clicking the magnifier button
      - do: [{click: {role: button, name: Accept cookies}}]
        redo: true
    retries: 1
    check_timeout: 2
  - action: Try every op
    do:
      - goto: "{site}/other.html"
      - click: "#go"
      - dblclick: {text: Open, exact: true}
      - hover: {css: ".menu", nth: 1, within: {css: "nav"}}
      - check: {label: In stock only}
      - uncheck: {label: Gift wrap}
      - focus: {placeholder: Search}
      - type: {css: "#q", value: slow}
      - select: {label: Sort by, option: "Price: low to high"}
      - select: {label: Sizes, option: [S, M]}
      - press: {css: "#q", key: Tab}
      - scroll: {by: 400}
      - scroll: {test_id: footer}
      - wait: 250
      - wait: {text: "Loading…", state: hidden}
      - eval: "(() => { return 1; })()"
      - extract: {into: first, text: {css: ".price", nth: 0}}
    extract:
      into: price
      text: {css: ".price", nth: 0}
    post:
      - expect:
          - visible: {alt: Logo}
          - hidden: {title: Spinner}
          - enabled: "role=button[name='Go']"
          - disabled: {xpath: "//button[@disabled]"}
          - checked: {label: In stock only}
          - unchecked: {label: Gift wrap}
          - text: {css: ".price", nth: 0, matches: '^\\$\\d+'}
          - value: {css: "#q", equals: slow}
          - count: {css: ".result", min: 1, max: 10}
          - url: {contains: "sort="}
          - title: {equals: Results}
          - js: "document.querySelectorAll('.result').length > 0"
outcome:
  - The cheapest {product} is shown first, at {price}
  - expect: {text: {css: ".price", nth: 0, equals: "{price}"}}
"""


@pytest.fixture
def full() -> Workflow:
    return parse(FULL, FILE).workflow


def test_full_workflow_loads_every_top_level_key(full: Workflow) -> None:
    assert full.name == "Search a product and read the cheapest price"
    assert full.task == "Find the cheapest {product} on {site}"
    assert full.start_url == "{site}/"
    assert full.description == "every top-level key of the contract"
    assert full.params == {"site": "{base_url}", "product": "trail shoes", "limit": 3, "ratio": 0.5, "flag": True}
    assert [v.id for v in full.variations] == ["original", "attribute"]
    assert full.variations[1].kind == "attribute"
    assert full.variations[1].params == {"product": "rain jacket"}
    assert full.allowed_domains == ("127.0.0.1", "localhost")
    assert full.tags == ("shop", "smoke")
    assert full.severity == "critical"
    assert full.browser.viewport is not None and (full.browser.viewport.width, full.browser.viewport.height) == (
        1280,
        800,
    )
    assert full.browser.context_kwargs() == {
        "viewport": {"width": 1280, "height": 800},
        "locale": "en-US",
        "color_scheme": "dark",
    }
    assert full.settings == Settings(retries=2, check_timeout=4, step_timeout=20, action_timeout=7)
    assert full.model == "gpt-4o-mini"
    assert len(full.steps) == 2
    assert len(full.outcome) == 2
    # Every key the contract lists at the top level is a field of the model (and nothing is dropped).
    contract_keys = {
        "name",
        "task",
        "start_url",
        "params",
        "variations",
        "allowed_domains",
        "tags",
        "severity",
        "browser",
        "settings",
        "steps",
        "outcome",
    }
    assert contract_keys <= set(yaml.safe_load(FULL)) <= set(Workflow.model_fields)


def test_defaults_when_optional_keys_are_absent() -> None:
    wf = parse("name: n\ntask: t\nstart_url: http://x/\nsteps: [{action: a}]\n", "f.reuseit.yaml").workflow
    assert wf.severity == "normal"
    assert wf.settings == Settings()
    assert (wf.settings.retries, wf.settings.check_timeout, wf.settings.step_timeout) == (3, 5, 30)
    assert wf.allowed_domains is None
    assert wf.tags == () and wf.outcome == () and wf.variations == ()
    step = wf.steps[0]
    assert step.do is None and step.pre == () and step.post == () and step.fallback == () and step.retries is None


def test_models_are_frozen(full: Workflow) -> None:
    with pytest.raises(pydantic.ValidationError, match="frozen"):
        full.name = "changed"  # type: ignore[misc]
    with pytest.raises(pydantic.ValidationError, match="frozen"):
        full.steps[0].action = "changed"  # type: ignore[misc]
    with pytest.raises(pydantic.ValidationError, match="frozen"):
        full.settings.retries = 9  # type: ignore[misc]
    with pytest.raises(pydantic.ValidationError, match="frozen"):
        full.variations[0].id = "x"  # type: ignore[misc]
    # Lists load as tuples, so they cannot be appended to either.
    assert isinstance(full.steps, tuple) and isinstance(full.steps[0].post, tuple)
    with pytest.raises(AttributeError):
        full.steps.append(full.steps[0])  # type: ignore[attr-defined]
    assert full.name == "Search a product and read the cheapest price"


def test_string_checks_fallbacks_and_locators_normalise(full: Workflow) -> None:
    step = full.steps[0]
    assert step.pre == (Check(check="No cookie banner or dialog covers the page"),)
    post = step.post[0]
    assert isinstance(post, Check) and post.check == "Results for {product} are listed" and post.votes == 3
    # A single expect mapping becomes a one-item list.
    assert isinstance(post.expect, tuple) and len(post.expect) == 1
    assert post.expect[0].count is not None and (post.expect[0].count.css, post.expect[0].count.min) == (".result", 1)
    assert step.fallback[0] == Fallback(agent="Retry the search by clicking the magnifier button")
    fb = step.fallback[1]
    assert fb.agent is None and fb.redo is True and fb.do is not None
    assert fb.do[0].kind == "click" and fb.do[0].arg == Locator(role="button", name="Accept cookies")
    assert step.do is not None and [op.kind for op in step.do] == ["fill", "press"]
    assert step.do[0].arg == FillArgs(role="searchbox", value="{product}")
    assert step.do[1].arg == "Enter"

    ops = full.steps[1].do
    assert ops is not None
    kinds = [op.kind for op in ops]
    assert kinds == [
        "goto",
        "click",
        "dblclick",
        "hover",
        "check",
        "uncheck",
        "focus",
        "type",
        "select",
        "select",
        "press",
        "scroll",
        "scroll",
        "wait",
        "wait",
        "eval",
        "extract",
    ]
    # A selector string is a Locator(selector=...) for the engine.
    assert ops[1].arg == Locator(selector="#go")
    assert ops[1].arg.describe() == "selector='#go'"
    assert ops[3].arg.within == Locator(css="nav")
    assert ops[3].arg.describe() == "css='nav' >> css='.menu'[nth=1]"
    assert ops[9].arg.option == ("S", "M")
    assert ops[11].arg.by == 400
    assert ops[12].arg == Locator(test_id="footer")
    assert ops[13].arg == 250
    assert ops[14].arg.state == "hidden"
    assert ops[15].arg == "(() => { return 1; })()"
    assert ops[16].arg == Extract(into="first", text=Locator(css=".price", nth=0))
    # extract as a single mapping becomes a list too.
    assert full.steps[1].extract == (Extract(into="price", text=Locator(css=".price", nth=0)),)
    # A string LOC inside an expect is normalised as well.
    expects = full.steps[1].post[0].expect
    assert expects is not None and len(expects) == 12
    assert expects[2].enabled == Locator(selector="role=button[name='Go']")
    assert [k for e in expects for k, _ in e.items()] == [
        "visible",
        "hidden",
        "enabled",
        "disabled",
        "checked",
        "unchecked",
        "text",
        "value",
        "count",
        "url",
        "title",
        "js",
    ]
    # Outcome strings become checks as well.
    assert full.outcome[0] == Check(check="The cheapest {product} is shown first, at {price}")


def test_a_check_without_words_is_named_by_everything_it_expects() -> None:
    # Reports name such a check by its expectations: the text and count it wants are part of it,
    # as the URL's are, so two text checks on one element cannot read the same.
    check = Check.model_validate(
        {
            "expect": [
                {"url": {"contains": "q=x"}},
                {"text": {"css": "h3", "contains": "1 row"}},
                {"count": {"css": "li", "equals": 3}},
                {"visible": {"role": "button", "name": "Go"}},
            ]
        }
    )
    assert check.describe() == (
        "url contains='q=x'; text css='h3' contains='1 row'; count css='li' equals=3; visible role='button'[name='Go']"
    )


def test_variations_and_the_default_variation(full: Workflow) -> None:
    assert [v.id for v in full.all_variations()] == ["original", "attribute"]
    assert full.all_variations()[0].kind == "original"  # the default kind
    bare = parse("name: n\ntask: t\nstart_url: http://x/\nsteps: [{action: a}]\n", "f.reuseit.yaml").workflow
    (only,) = bare.all_variations()
    assert only == Variation(id="default")
    assert only.params == {} and only.kind == "original"


def test_load_reads_a_file_and_names_it_as_displayed(tmp_path: Path) -> None:
    f = tmp_path / "x.reuseit.yaml"
    f.write_text(FULL, encoding="utf-8")
    loaded = load(f, display="shown/x.reuseit.yaml")
    assert loaded.workflow.name.startswith("Search a product")
    assert loaded.source.path == "shown/x.reuseit.yaml"
    # Lines of nodes by document path: the engine uses them in messages.
    assert loaded.source.line("steps", 0) == 27
    assert loaded.source.line("steps", 1, "do", 4) == 49  # the "check:" op
    assert loaded.source.line("steps", 1, "do", 99) == 44  # unknown deeper path: the nearest known node ("do:")
    assert loaded.source.where("variations", 1) == "shown/x.reuseit.yaml:13"
    (tmp_path / "bad.reuseit.yaml").write_text("name: [\n", encoding="utf-8")
    with pytest.raises(WorkflowFormatError) as info:
        load(tmp_path / "bad.reuseit.yaml")
    assert info.value.problems[0].startswith(f"{tmp_path / 'bad.reuseit.yaml'}:")
    with pytest.raises(WorkflowFormatError, match=r"missing\.reuseit\.yaml:1: cannot read the file"):
        load(tmp_path / "missing.reuseit.yaml")


# --------------------------------------------------------------------------- bad input


def test_malformed_yaml_names_file_and_line() -> None:
    problem = only_problem("""
        name: n
        task: [t
        start_url: u
        steps: [{action: a}]
    """)
    assert problem.startswith(f"{FILE}:3:10: invalid YAML: ")
    assert "expected ',' or ']'" in problem


# (workflow text, the one problem reported), one per kind of mistake
ONE_PROBLEM = [
    pytest.param(
        """
        name: n
        task: t
        start_url: u
        settings: {check_timeout: .inf}
        steps: [{action: a}]
    """,
        f"{FILE}:4: settings.check_timeout: input should be a finite number",
        id="a_timeout_cannot_be_infinite",
    ),
    pytest.param(
        """
        name: n
        task: t
        start_url: u
        steps:
          - action: a
            step_timeout: 100000
    """,
        f"{FILE}:6: steps[0].step_timeout: input should be less than or equal to 3600",
        id="a_timeout_is_an_hour_at_most",
    ),
    pytest.param(
        """
        name: n
        task: t
        start_url: u
        steps:
          - action: a
            do: [{click: "#go", timeout: 0}]
    """,
        f"{FILE}:6: steps[0].do[0].timeout: input should be greater than 0",
        id="an_ops_own_timeout_is_positive",
    ),
    pytest.param(
        """
        name: n
        task: t
        start_url: u
        steps:
          - action: a
            post: [{expect: {visible: "#x"}, timeout: 5000}]
    """,
        f"{FILE}:6: steps[0].post[0].timeout: input should be less than or equal to 3600",
        id="a_checks_own_timeout_is_an_hour_at_most",
    ),
    pytest.param(
        """
        name: n
        task: t
        start_url: u
        steps:
          - action: a
            do: [{wait: 99999999}]
    """,
        f"{FILE}:6: steps[0].do[0].wait: input should be less than or equal to 3600000",
        id="a_wait_is_an_hour_at_most",
    ),
    pytest.param(
        """
        name: n
          task: t
        steps: x
    """,
        f"{FILE}:2:7: invalid YAML: mapping values are not allowed here",
        id="bad_indentation_is_reported_on_its_line",
    ),
    pytest.param(
        """
        name: n
        task: t
        start_url: u
        steps:
          - action: a
            psot: []
    """,
        f"{FILE}:6: steps[0].psot: unknown key 'psot' (did you mean 'post'?)",
        id="unknown_step_key_suggests_the_right_one",
    ),
    pytest.param(
        """
        name: n
        task: t
        start_url: u
        steps:
          - action: a
            post: [{expect: {count: {css: .row, equals: three}}}]
    """,
        f"{FILE}:6: steps[0].post[0].expect.count.equals: a whole number or a {{placeholder}} that holds one, "
        "not 'three'",
        id="count_bound_is_a_number_or_a_placeholder",
    ),
    pytest.param(
        """
        name: n
        task: t
        start_url: u
        stpes: []
        steps: [{action: a}]
    """,
        f"{FILE}:4: stpes: unknown key 'stpes' (did you mean 'steps'?)",
        id="unknown_top_level_key_suggests_the_right_one",
    ),
    pytest.param(
        """
        name: n
        task: t
        start_url: u
        steps:
          - action: a
            do:
              - fill: {css: "#q", value: x}
              - clik: "#b"
    """,
        f"{FILE}:8: steps[0].do[1].clik: unknown key 'clik' (did you mean 'click'?)",
        id="unknown_op_suggests_the_right_one",
    ),
    pytest.param(
        """
        name: n
        task: t
        start_url: u
        steps:
          - action: a
            do:
              - clik
    """,
        f"{FILE}:7: steps[0].do[0]: an op is a mapping like '{{click: \"#go\"}}' "
        "or a bare word (close_page, back, forward, reload), got the string 'clik' (did you mean '{click: ...}'?)",
        id="op_written_as_a_bare_string_says_what_an_op_looks_like",
    ),
    pytest.param(
        """
        name: n
        task: t
        start_url: u
        steps:
          - action: a
            do:
              - {click: "#a", hover: "#b"}
    """,
        f"{FILE}:7: steps[0].do[0]: an op takes only one of: click, hover",
        id="two_ops_in_one_mapping_are_refused",
    ),
    pytest.param(
        """
        name: n
        task: t
        start_url: u
        steps:
          - action: a
          - action: b
          - action: c
            post:
              - expect:
                  text: {css: "#a", equls: x}
    """,
        f"{FILE}:10: steps[2].post[0].expect.text.equls: unknown key 'equls' (did you mean 'equals'?)",
        id="deep_path_inside_an_expect",
    ),
    pytest.param(
        """
        name: n
        task: t
        start_url: u
        steps: []
    """,
        f"{FILE}:4: steps: list should have at least 1 item after validation, not 0",
        id="empty_steps",
    ),
    pytest.param(
        """
        name: n
        task: t
        start_url: u
        steps:
          - action: a
            do: []
    """,
        f"{FILE}:5: steps[0]: 'do' is empty and the step has no checks: list an op, give the step pre/post checks "
        "(do: [] then means it only checks), or remove 'do' to let the agent act",
        id="empty_do_list",
    ),
    pytest.param(
        """
        name: n
        task: t
        start_url: u
        steps:
          - action: a
            post:
              - votes: 3
    """,
        f"{FILE}:7: steps[0].post[0]: a check needs 'check' (words), 'expect' (DOM), or both",
        id="check_without_check_or_expect",
    ),
    pytest.param(
        """
        name: n
        task: t
        start_url: u
        name: m
        steps: [{action: a}]
    """,
        f"{FILE}:4:1: invalid YAML: key 'name' appears twice (first on line 1)",
        id="duplicate_keys_are_refused_with_both_lines",
    ),
    pytest.param(
        """
        name: n
        task: t
        start_url: u
        steps:
          - action: a
            retries: 1
            retries: 2
    """,
        f"{FILE}:7:5: invalid YAML: key 'retries' appears twice (first on line 6)",
        id="duplicate_keys_deep_inside_a_step",
    ),
    pytest.param(
        """
        name: n
        task: Buy {product}
        start_url: "{base_url}/"
        params: {product: shoes}
        steps:
          - action: Search for {prodcut}
    """,
        f"{FILE}:6: steps[0].action: unknown placeholder {{prodcut}} (did you mean '{{product}}'?); "
        "known names: base_url, product, unique",
        id="unknown_placeholder_with_a_suggestion",
    ),
    pytest.param(
        """
        name: n
        task: t
        start_url: u
        variations:
          - id: a
          - id: b
          - id: a
        steps: [{action: a}]
    """,
        f"{FILE}:4: variations: variation id 'a' is used twice",
        id="duplicate_variation_ids",
    ),
    pytest.param(
        """
        name: n
        task: t
        start_url: u
        variations:
          - id: has space
        steps: [{action: a}]
    """,
        f"{FILE}:5: variations[0].id: string should match pattern '^[A-Za-z0-9_.-]+$'",
        id="invalid_variation_id",
    ),
    pytest.param(
        """
        name: n
        task: t
        start_url: u
        steps:
          - action: a
            do: [{extract: {into: x, text: "#a", of: "#b"}}]
    """,
        f"{FILE}:6: steps[0].do[0].extract: 'of' goes with js: the element the script is a function of",
        id="extract_of_without_js",
    ),
    pytest.param(
        """
        name: n
        task: t
        start_url: u
        steps:
          - action: a
            do: [{fill: {css: "#a", value: x}, at: {x: 1, y: 2}}]
    """,
        f"{FILE}:6: steps[0].do[0]: 'at' goes with click, dblclick, hover, mouse_down, mouse_up, not with 'fill'",
        id="at_with_an_op_that_moves_no_mouse",
    ),
]


@pytest.mark.parametrize(("text", "expected"), ONE_PROBLEM)
def test_bad_input_is_reported_as_one_clear_problem(text: str, expected: str) -> None:
    assert only_problem(text) == expected


def test_unknown_key_without_a_close_match_lists_the_known_ones() -> None:
    problem = only_problem("""
        name: n
        task: t
        start_url: u
        zzzzzz: 1
        steps: [{action: a}]
    """)
    assert problem.startswith(f"{FILE}:4: zzzzzz: unknown key 'zzzzzz'; expected one of: name, task, start_url")


# (workflow text, every problem reported, in order), one per kind of mistake
SEVERAL_PROBLEMS = [
    pytest.param(
        """
        name: n
        task: t
        start_url: u
        steps:
          - action: a
            do:
              - click: {rol: button, name: Go}
              - hover: {css: "#a", text: b}
    """,
        [
            f"{FILE}:7: steps[0].do[0].click.rol: unknown key 'rol' (did you mean 'role'?)",
            f"{FILE}:8: steps[0].do[1].hover: a locator takes only one of: text, css",
        ],
        id="locator_key_typo_and_two_locator_kinds",
    ),
    # The invalid item must not also be reported as "steps is empty".
    pytest.param(
        """
        name: n
        task: t
        start_url: u
        settings:
          retries: many
        steps:
          - action: a
            post: hello
    """,
        [
            f"{FILE}:5: settings.retries: input should be a valid integer, unable to parse string as an integer",
            f"{FILE}:8: steps[0].post: input should be a list",
        ],
        id="wrong_types_each_on_their_own_line",
    ),
    pytest.param(
        """
        name: n
        start_url: u
        steps:
          - do: [{click: "#a"}]
          - action: b
            do:
              - fill: {css: "#q"}
    """,
        [
            f"{FILE}:1: task: required key is missing",
            f"{FILE}:4: steps[0].action: required key is missing",
            f"{FILE}:7: steps[1].do[0].fill.value: required key is missing",
        ],
        id="missing_required_keys",
    ),
    pytest.param(
        "description: only this\n",
        [
            f"{FILE}:1: name: required key is missing",
            f"{FILE}:1: task: required key is missing",
            f"{FILE}:1: start_url: required key is missing",
            f"{FILE}:1: steps: required key is missing",
        ],
        id="missing_everything_names_every_required_key",
    ),
    pytest.param(
        """
        name: n
        task: t
        start_url: u
        steps:
          - action: a
            post:
              - expect:
                  url: {matches: "(unclosed"}
              - expect:
                  text: {css: "#a", matches: "[z-a]"}
    """,
        [
            f"{FILE}:8: steps[0].post[0].expect.url: invalid regular expression: missing ), unterminated subpattern at position 0",
            f"{FILE}:10: steps[0].post[1].expect.text: invalid regular expression: bad character range z-a at position 1",
        ],
        id="invalid_regex_in_matches",
    ),
    pytest.param(
        """
        name: n
        task: t
        start_url: u
        tags:
          - ok_tag
          - bad tag
          - 1x
        steps: [{action: a}]
    """,
        [
            f"{FILE}:6: tags[1]: string should match pattern '^[A-Za-z_][A-Za-z0-9_]*$'",
            f"{FILE}:7: tags[2]: string should match pattern '^[A-Za-z_][A-Za-z0-9_]*$'",
        ],
        id="invalid_tag_names",
    ),
]


@pytest.mark.parametrize(("text", "expected"), SEVERAL_PROBLEMS)
def test_bad_input_lists_every_problem(text: str, expected: list[str]) -> None:
    assert problems_of(text) == expected


def test_wrong_scalar_types_and_enums() -> None:
    problems = problems_of("""
        name: [a list]
        task: t
        start_url: u
        severity: huge
        variations:
          - id: x
            kind: weird
        steps:
          action: a
    """)
    assert sorted(problems) == [
        f"{FILE}:1: name: input should be a valid string",
        f"{FILE}:4: severity: input should be 'blocker', 'critical', 'normal', 'minor' or 'trivial'",
        f"{FILE}:7: variations[0].kind: input should be 'original', 'attribute', 'category', 'website' or 'other'",
        f"{FILE}:8: steps: input should be a list",
    ]


@pytest.mark.parametrize(
    ("text", "kind"),
    [("", "empty"), ("# only a comment\n", "empty"), ("- a\n- b\n", "a list"), ("hello\n", "a str"), ("42\n", "a int")],
    ids=["empty", "comment-only", "list", "string", "number"],
)
def test_empty_or_non_mapping_document(text: str, kind: str) -> None:
    with pytest.raises(WorkflowFormatError) as info:
        parse(text, FILE)
    assert info.value.problems == [
        f"{FILE}:1: a workflow file must be a mapping with name, task, start_url and steps; this one is {kind}"
    ]


def test_python_tags_are_refused_and_never_executed(tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    problem = only_problem(f"""
        name: n
        task: !!python/object/apply:os.system ["touch {marker}"]
        start_url: u
        steps: [{{action: a}}]
    """)
    assert problem.startswith(f"{FILE}:2:7: invalid YAML: could not determine a constructor for the tag")
    assert "python/object/apply:os.system" in problem
    assert "Python tags are not allowed in workflow files" in problem
    assert not marker.exists()


def test_python_name_tag_is_refused_too(tmp_path: Path) -> None:
    problem = only_problem("""
        name: !!python/name:os.getcwd ''
        task: t
        start_url: u
        steps: [{action: a}]
    """)
    assert problem.startswith(f"{FILE}:1:7: invalid YAML:") and "Python tags are not allowed" in problem


def test_unknown_placeholder_with_a_suggestion() -> None:
    problem = only_problem("""
        name: n
        task: Buy {product}
        start_url: "{base_url}/"
        params: {product: shoes}
        steps:
          - action: Search for {prodcut}
    """)
    assert problem == (
        f"{FILE}:6: steps[0].action: unknown placeholder {{prodcut}} (did you mean '{{product}}'?); "
        "known names: base_url, product, unique"
    )


def test_placeholder_missing_in_one_variation_only() -> None:
    problem = only_problem("""
        name: n
        task: t
        start_url: u
        variations:
          - id: red
            params: {color: red}
          - id: plain
        steps:
          - action: a
            post:
              - Everything is {color}
    """)
    assert problem.startswith(f"{FILE}:11: steps[0].post[0]: unknown placeholder {{color}} in variation(s) plain")
    # It exists (in another variation): suggesting the same name back would be no help.
    assert "did you mean" not in problem
    assert "known names: base_url, color" in problem


def test_placeholders_that_are_fine() -> None:
    wf = parse(
        yml("""
        name: n
        task: "{{literal}} {env.HOME} {secret.PASSWORD}"
        start_url: "{base_url}/"
        variations:
          - id: a
            params: {color: red}
          - id: b
            params: {color: blue}
        steps:
          - action: pick {color}
            extract: {into: later, js: "1"}
            do:
              - eval: "(() => { return 1; })()"
    """),
        FILE,
    ).workflow
    assert wf.steps[0].action == "pick {color}"


def test_every_problem_of_a_file_is_listed_at_once() -> None:
    problems = problems_of("""
        name: n
        task: t
        start_url: u
        severity: nope
        steps:
          - action: a
            psot: []
          - action: b
            do: [{clik: "#x"}]
    """)
    assert [p.split(": ")[0] for p in problems] == [f"{FILE}:4", f"{FILE}:7", f"{FILE}:9"]
    assert [p.split(": ")[1] for p in problems] == ["severity", "steps[0].psot", "steps[1].do[0].clik"]


# --------------------------------------------------------------------------- placeholders


def test_names_in() -> None:
    assert list(names_in("{a} {{b}} {env.C} {secret.D} { e } {1x}")) == ["a", "env.C", "secret.D"]


def test_precedence_extracted_over_params_over_builtins() -> None:
    v = Values(params={"x": "param", "y": "param"}, builtins={"x": "builtin", "y": "builtin", "z": "builtin"})
    assert v.render("{x} {y} {z}") == "param param builtin"
    v.extracted["x"] = "extracted"
    assert v.render("{x} {y} {z}") == "extracted param builtin"


def test_variation_params_override_workflow_params_in_the_run() -> None:
    # The runner merges them into one mapping before filling in; the variation's win.
    wf = parse(FULL, FILE).workflow
    var = wf.all_variations()[1]
    v = Values(params={**wf.params, **var.params}, builtins={"base_url": "http://127.0.0.1:9"})
    assert v.render(wf.task) == "Find the cheapest rain jacket on http://127.0.0.1:9"


def test_nested_params() -> None:
    v = Values(params={"site": "{base_url}/shop", "home": "{site}/index.html"}, builtins={"base_url": "http://h"})
    assert v.render("open {home}") == "open http://h/shop/index.html"


def test_non_string_params_are_rendered_as_text() -> None:
    v = Values(params={"n": 3, "ok": True, "f": 0.5})
    assert v.render("{n} {ok} {f}") == "3 True 0.5"


def test_env_placeholder() -> None:
    v = Values(params={}, environ={"SHOP_USER": "alice"})
    assert v.render("user {env.SHOP_USER}") == "user alice"
    with pytest.raises(
        PlaceholderError, match=r"environment variable 'NOT_SET' \(used as \{env\.NOT_SET\}\) is not set"
    ):
        v.render("{env.NOT_SET}")


def test_secret_stays_a_placeholder_unless_revealed() -> None:
    v = Values(params={}, environ={"SHOP_PW": "hunter2-xyz"})
    assert v.render("pw={secret.SHOP_PW}") == "pw={secret.SHOP_PW}"
    assert v.render("pw={secret.SHOP_PW}", reveal=True) == "pw=hunter2-xyz"
    assert v.secrets_used == {"SHOP_PW": "hunter2-xyz"}


def test_secret_inside_a_param_is_revealed_only_when_asked() -> None:
    v = Values(params={"login": "admin:{secret.SHOP_PW}"}, environ={"SHOP_PW": "hunter2-xyz"})
    assert v.render("{login}") == "admin:{secret.SHOP_PW}"
    assert v.render("{login}", reveal=True) == "admin:hunter2-xyz"


def test_missing_secret_names_it_and_never_a_value() -> None:
    v = Values(params={}, environ={"OTHER_SECRET": "do-not-print-me"})
    with pytest.raises(PlaceholderError) as info:
        v.render("{secret.NOPE}")
    assert str(info.value) == "secret 'NOPE' is not set: export NOPE=... (secrets are read from the environment)"
    assert "do-not-print-me" not in str(info.value)


def test_unknown_placeholder_at_run_time_lists_known_names() -> None:
    v = Values(params={"product": "x"}, builtins={"demo_url": "http://d"})
    with pytest.raises(PlaceholderError, match=r"unknown placeholder \{prodcut\}; known names: demo_url, product"):
        v.render("{prodcut}")
    with pytest.raises(
        PlaceholderError, match=r"unknown placeholder \{base_url\} \(pass --base-url or set it in params\)"
    ):
        v.render("{base_url}/")


def test_literal_braces() -> None:
    v = Values(params={"a": "A"})
    assert v.render("{{a}} is {a}; {{ and }}") == "{a} is A; { and }"
    # The literal is not filled in a second time through a param.
    v2 = Values(params={"tpl": "{{x}}"})
    assert v2.render("{tpl}") == "{x}"


def test_javascript_braces_are_left_alone() -> None:
    v = Values(params={"n": "2"})
    js = "(() => { return 1; })()"
    assert v.render(js) == js
    assert (
        v.render("(() => { const a = {n: 1}; return a.n + {n}; })()")
        == "(() => { const a = {n: 1}; return a.n + 2; })()"
    )


def test_cycle_is_an_error() -> None:
    v = Values(params={"a": "{b}", "b": "x{a}"})
    with pytest.raises(PlaceholderError, match="placeholders refer to each other in a loop"):
        v.render("{a}")
    with pytest.raises(PlaceholderError, match="loop"):
        Values(params={"self": "{self}"}).render("{self}")


def test_mask_replaces_used_secret_values() -> None:
    v = Values(params={}, environ={"PW": "hunter2-xyz", "UNUSED": "never-used"})
    assert v.mask("hunter2-xyz appears") == "hunter2-xyz appears"  # not used yet: nothing known to mask
    v.render("{secret.PW}", reveal=True)
    assert v.mask("typed hunter2-xyz twice: hunter2-xyz") == f"typed {MASK} twice: {MASK}"
    assert v.mask("never-used stays") == "never-used stays"


@pytest.mark.parametrize("value", ["", "a", "abc"])
def test_short_secret_is_refused_before_it_could_mask_ordinary_text(value: str) -> None:
    v = Values(params={}, environ={"SHORT": value})
    with pytest.raises(PlaceholderError) as info:
        v.render("[{secret.SHORT}]", reveal=True)
    assert str(info.value).startswith(f"secret 'SHORT' is {len(value)} characters long; secrets need at least 4")
    assert v.mask("a b c some text") == "a b c some text"


def test_mask_covers_url_encoded_forms_and_values_read_from_the_page() -> None:
    v = Values(params={}, environ={"TOKEN": "p@ss w/rd"})
    v.load_secrets(["TOKEN"])  # known from the start: masked before it is ever typed
    assert v.mask("/login?t=p%40ss%20w%2Frd&u=p%40ss+w%2Frd") == f"/login?t={MASK}&u={MASK}"
    v.add_derived("Welcome, admin-42")
    assert v.mask("page says Welcome, admin-42!") == f"page says {MASK}!"


# --------------------------------------------------------------------------- schema


def test_schema_has_id_and_is_generated_from_the_models() -> None:
    schema = workflow_schema()
    assert schema["$id"] == SCHEMA_ID
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert schema["additionalProperties"] is False
    assert set(schema["required"]) == {"name", "task", "start_url", "steps"}
    assert set(schema["properties"]) == set(Workflow.model_fields)
    assert json.loads(schema_text()) == schema


def test_shipped_examples_load() -> None:
    assert SHIPPED, "the project ships example workflows under workflows/"
    for path in SHIPPED:
        # The bundled sites' names come from the plugin's placeholders hook, not the language.
        loaded = load(path, builtin_names=LocalSites.NAMES)
        assert loaded.workflow.steps


@pytest.fixture(scope="module")
def validator():  # type: ignore[no-untyped-def]
    """A validator for the generated schema; checking the schema itself against its meta-schema
    takes about half a second, so once per module."""
    jsonschema = pytest.importorskip("jsonschema")
    schema = workflow_schema()
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    return cls(schema)


@pytest.mark.parametrize("path", SHIPPED, ids=[p.relative_to(ROOT).as_posix() for p in SHIPPED])
def test_schema_validates_shipped_examples(path: Path, validator) -> None:  # type: ignore[no-untyped-def]
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    errors = [f"{list(e.absolute_path)}: {e.message}" for e in validator.iter_errors(data)]
    assert errors == []


def test_schema_rejects_unknown_top_level_key_and_missing_steps(validator) -> None:  # type: ignore[no-untyped-def]
    good = yaml.safe_load(FULL)
    assert list(validator.iter_errors(good)) == []
    bad = {**good, "stpes": []}
    messages = [e.message for e in validator.iter_errors(bad)]
    assert any("stpes" in m for m in messages), messages
    no_steps = {k: v for k, v in good.items() if k != "steps"}
    assert any("'steps' is a required property" in e.message for e in validator.iter_errors(no_steps))
    bad_op = {**good, "steps": [{"action": "a", "do": [{"clik": "#b"}]}]}
    assert list(validator.iter_errors(bad_op)) != []


def test_models_refuse_unknown_keys_directly() -> None:
    # The same models serve the engine and the schema: direct construction is just as strict.
    with pytest.raises(pydantic.ValidationError, match="did you mean 'post'"):
        Step.model_validate({"action": "a", "psot": []})
    with pytest.raises(pydantic.ValidationError, match="an op needs one of"):
        Op.model_validate({})
    with pytest.raises(pydantic.ValidationError, match="expect needs one of"):
        Expect.model_validate({})
    with pytest.raises(pydantic.ValidationError, match="'redo' goes with 'do'"):
        Fallback.model_validate({"agent": "x", "redo": True})
    with pytest.raises(pydantic.ValidationError, match="'name' is only used with 'role'"):
        Locator.model_validate({"css": "a", "name": "x"})


@pytest.mark.parametrize(
    "path",
    sorted((ROOT / "workflows").glob("*/*.reuseit.yaml")) + sorted((ROOT / "benchmarks" / "workflows").glob("*.yaml")),
    ids=lambda p: p.name,
)
def test_fast_and_reference_yaml_parsers_give_the_same_data_and_lines(path: Path) -> None:
    """Files are parsed by libyaml for speed; what the rest of the loader sees must not change."""
    from pytest_reuseit.workflow import yaml_reader

    assert yaml.__with_libyaml__ and yaml_reader._FastLoader is not yaml_reader._UniqueKeyLoader
    text = path.read_text(encoding="utf-8")
    fast_node, fast_data = yaml_reader._one_parse(text, yaml_reader._FastLoader)
    ref_node, ref_data = yaml_reader._one_parse(text, yaml_reader._UniqueKeyLoader)
    assert fast_data == ref_data
    fast_lines: dict[tuple[str | int, ...], int] = {}
    ref_lines: dict[tuple[str | int, ...], int] = {}
    yaml_reader.index_lines(fast_node, (), fast_lines)
    yaml_reader.index_lines(ref_node, (), ref_lines)
    assert fast_lines == ref_lines and len(ref_lines) > 20


def test_a_dump_writes_keys_as_a_file_does_so_it_loads_again() -> None:
    """``or``, ``not`` and ``from`` are Python keywords, held as ``or_``...: what is dumped (a
    mutant's element, a healed file) is written back as a file writes it, and loads again."""
    op = Op.model_validate({"click": {"role": "button", "name": "Save", "or": "#save"}})
    loc = op.arg.plain()
    assert loc.model_dump(exclude_none=True) == {"role": "button", "name": "Save", "or": {"selector": "#save"}}
    assert Locator.model_validate(loc.model_dump(exclude_none=True)) == loc
    expect = Expect.model_validate({"not": {"visible": {"css": "#spinner"}}})
    dumped = expect.model_dump(exclude_none=True)
    assert list(dumped) == ["not"]
    assert Expect.model_validate(dumped) == expect
