"""Mutants a team ignores, with a reason: in the workflow file (``mutation: {ignore: [...]}``) or
in the pytest configuration (``reuseit_mutation_ignore``); listed as Ignored, out of the score."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_reuseit.mutation import ignore
from pytest_reuseit.mutation.operators import Target
from pytest_reuseit.mutation.plan import make
from pytest_reuseit.mutation.touches import CheckTouch, RequestTouch, RunTouches
from tests.support.mutate_command import mutate, report_of
from tests.support.mutation_workflows import GREETER

REQUEST = Target("request", 0, 0, "GET /learn.json", detail={"host": "127.0.0.1:8000", "path": "/learn.json"})
ELEMENT = Target("check", 0, 9, "css='#list li'", key="count", detail={"page": "http://127.0.0.1:8000/todo/"})


def test_rules_from_the_ini_match_by_operator_and_target_or_url() -> None:
    rules = ignore.from_ini(
        [
            "# comments and blank lines are no rules",
            "",
            "request_500 | */learn.json | the side panel's links",
            "* | css='#list li' | counted loosely on purpose",
        ]
    )
    side, count = rules
    assert (side.operator, side.target, side.url, side.where) == (
        "request_500",
        "",
        "*/learn.json",
        "reuseit_mutation_ignore line 1",
    )
    assert side.matches("request_500", REQUEST) and not side.matches("request_never", REQUEST)
    assert not side.matches("request_500", ELEMENT)
    assert count.matches("number_off_by_one", ELEMENT) and count.matches("element_removed", ELEMENT)
    assert not count.matches("request_500", REQUEST)
    assert ignore.reason_for(rules, "request_500", REQUEST) == "the side panel's links (reuseit_mutation_ignore line 1)"
    # A request as the report names it, an element's page by its url.
    assert ignore.from_ini(["* | GET /learn.json | r"])[0].matches("request_empty", REQUEST)
    assert ignore.from_ini(["element_removed | */todo/* | r"])[0].matches("element_removed", ELEMENT)


def test_a_bad_rule_is_one_clear_line() -> None:
    with pytest.raises(ignore.BadRule, match=r"reuseit_mutation_ignore line 1: 'request_500 \| \*/x': expected"):
        ignore.from_ini(["request_500 | */x"])
    with pytest.raises(ignore.BadRule, match="line 1: unknown mutation operator 'request_5000'"):
        ignore.check_operators(ignore.from_ini(["request_5000 | */x | r"]), ("request_500",))


def _run(file: str, ignores: list[ignore.Rule] = ()) -> RunTouches:  # type: ignore[assignment]
    run = RunTouches(f"{file}::x[default]", file, "default", status="passed", start_url="http://127.0.0.1:8000/")
    run.requests = [RequestTouch(0, "GET", "http://127.0.0.1:8000/learn.json", "fetch", 200, True)]
    run.checks = [CheckTouch(0, "post", 0, 0, "count", "css='#list li'", 9, element={"css": "ul > li"})]
    run.ignore = [r.to_json() for r in ignores]
    return run


def test_a_mutant_ignored_by_one_file_is_tried_against_the_others_and_by_all_is_not_run() -> None:
    by_a = ignore.Rule("request_500", "", "*/learn.json", "A never reads it", "a.reuseit.yaml:3")
    mutants = make([_run("a.reuseit.yaml", [by_a]), _run("b.reuseit.yaml")], ("request_500",))
    (m,) = mutants
    assert not m.ignored and [f for f, _, _ in m.covering] == ["b.reuseit.yaml"] and m.file == "b.reuseit.yaml"
    (m,) = make([_run("a.reuseit.yaml", [by_a])], ("request_500",))
    assert m.ignored == "A never reads it (a.reuseit.yaml:3)" and not m.covering
    # The cap samples what runs: ignored mutants are listed on top of it.
    ini = ignore.from_ini(["number_off_by_one | css='#list li' | loose on purpose"])
    capped = make([_run("b.reuseit.yaml")], ("number_off_by_one", "request_500"), max_mutants=1, rules=ini)
    assert [(m.operator, bool(m.ignored)) for m in capped] == [("request_500", False), ("number_off_by_one", True)]


IGNORING = GREETER.replace(
    "steps:",
    """mutation:
  ignore:
    - {operator: request_500, url: "*/help.html", reason: a prefetch nobody sees}
steps:""",
)
INI = """[pytest]
reuseit_mutation_ignore =
    number_off_by_one | css='#list li' | counted loosely on purpose
"""


@pytest.mark.slow
@pytest.mark.browser
def test_ignored_mutants_are_listed_with_their_reason_and_out_of_the_score(tmp_path: Path, pages_url: str) -> None:
    (tmp_path / "greeter.reuseit.yaml").write_text(IGNORING, encoding="utf-8")
    (tmp_path / "pytest.ini").write_text(INI, encoding="utf-8")
    proc = mutate(
        tmp_path,
        ".",
        "--operators",
        "number_off_by_one,request_500",
        pytest_args=("--base-url", pages_url, "--reuseit-llm", "off"),
    )
    out = proc.stdout[-3000:]
    report = report_of(tmp_path)
    mutants = {m["target"]["locator"]: m for m in report["reuseit"]["mutants"]}
    prefetch, count = mutants["GET /mutation/help.html"], mutants["css='#list li'"]
    assert prefetch["outcome"] == "ignored", (prefetch, out)
    assert prefetch["why"] == "ignored: a prefetch nobody sees (greeter.reuseit.yaml:7)", prefetch
    assert (
        count["outcome"] == "ignored" and "counted loosely on purpose (reuseit_mutation_ignore line 1)" in count["why"]
    )
    assert "runs" not in prefetch or prefetch["runs"] == [], prefetch  # never run
    # Out of the score: the one left, the catalogue's request, survived.
    summary = report["reuseit"]["summary"]
    assert (summary["ignored"], summary["killed"], summary["survived"], summary["score"]) == (2, 0, 1, 0.0), summary
    stryker = {s["replacement"]: s for s in next(iter(report["files"].values()))["mutants"]}
    assert stryker["GET /mutation/help.html"]["status"] == "Ignored"
    assert "a prefetch nobody sees" in stryker["GET /mutation/help.html"]["statusReason"]
    assert "IGNORED (by a rule, out of the score): 2" in proc.stdout, out
    assert "2 ignored by a rule" in proc.stdout, out


@pytest.mark.slow
def test_an_unknown_operator_in_an_ignore_rule_stops_the_command(tmp_path: Path, pages_url: str) -> None:
    (tmp_path / "greeter.reuseit.yaml").write_text(IGNORING.replace("request_500,", "request_5000,"), encoding="utf-8")
    proc = mutate(tmp_path, ".", pytest_args=("--base-url", pages_url, "--reuseit-llm", "off"))
    assert proc.returncode == 2, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert "greeter.reuseit.yaml:7: unknown mutation operator 'request_5000'" in proc.stderr, proc.stderr[-2000:]
    assert "Traceback" not in proc.stderr
