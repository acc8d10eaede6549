"""reuseit mutate on pages that re-render as React, Vue and Angular do: a fault holds while its
target is judged (mutation/hold.py), and a run whose check read its target without the fault is
*not applied*, with why, never *survived*.

tests/pages/mutation/rerender.html renders its whole app again after a route change, in a
microtask and once more 150 ms later, each time with new nodes.
"""

from __future__ import annotations

import functools
from http.server import SimpleHTTPRequestHandler
from pathlib import Path
from typing import Any

import pytest

from tests.support.mutate_command import mutate, report_of
from tests.support.mutation_workflows import REACT, RERENDER
from tests.support.paths import ROOT
from tests.support.serve import Served

pytestmark = pytest.mark.browser


def _by_check(report: dict[str, Any]) -> dict[tuple[str, str, int], dict[str, Any]]:
    return {
        (m["operator"], m["target"]["locator"], m["target"]["step"]): m
        for m in report["reuseit"]["mutants"]
        if m["target"]["what"] == "check"
    }


@pytest.mark.slow
def test_a_fault_on_a_re_rendered_target_holds_until_its_check_reads_it(tmp_path: Path, pages_url: str) -> None:
    (tmp_path / "rerender.reuseit.yaml").write_text(RERENDER, encoding="utf-8")
    proc = mutate(
        tmp_path,
        ".",
        "--operators",
        "element_removed,number_off_by_one,word_replaced",
        pytest_args=("--base-url", pages_url, "--reuseit-llm", "off"),
    )
    report = report_of(tmp_path)
    mutants = _by_check(report)
    out = proc.stdout[-3000:]
    # Each exact check of step 1 faces both re-renders: the fault follows the new nodes (the CSS
    # locator the page matches itself) and every one is killed, at its step.
    for key in (
        ("word_replaced", "css='#filters a.selected'", 1),
        ("number_off_by_one", "css='#list li'", 1),
        ("number_off_by_one", "css='#left'", 1),
        ("word_replaced", "css='#left'", 1),
        ("element_removed", "css='#left'", 1),
    ):
        m = mutants[key]
        assert (m["outcome"], m["localised"]) == ("killed", True), (key, m, out)
    assert "2 smeti left" in mutants[("word_replaced", "css='#left'", 1)]["run"]["message"]
    assert "3 items left" in mutants[("number_off_by_one", "css='#left'", 1)]["run"]["message"]
    # (Removing the selected link is removing the link the step clicked: one element, one mutant.)
    assert ("element_removed", "css='#filters a.selected'", 1) not in mutants
    # The status line comes back in another container, where a locator by role cannot be
    # followed from the page: the check read it without the fault, and says so.
    for op in ("word_replaced", "element_removed"):
        m = mutants[(op, "role='status'", 2)]
        assert m["outcome"] == "not applied", (m, out)
        assert m["run"]["status"] == "passed" and m["run"]["held"] is False, m
        assert "the page drew role='status' again" in m["why"], m
        assert m["why"] in m["run"]["why"] and m["runs"], m
    assert not [m for m in report["reuseit"]["mutants"] if m["outcome"] == "survived"], out
    stryker = next(iter(report["files"].values()))["mutants"]
    ignored = [s for s in stryker if s["status"] == "Ignored"]
    assert ignored and all("the page drew role='status' again" in s["statusReason"] for s in ignored), ignored
    assert "NOT APPLIED" in proc.stdout and "read it without the fault" in proc.stdout, out


TODOMVC = ROOT / "node_modules" / "todomvc"


class _QuietFiles(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:  # noqa: A002
        pass


@pytest.mark.slow
@pytest.mark.skipif(
    not (TODOMVC / "examples" / "react" / "index.html").is_file(), reason="TodoMVC is not installed: bash ci/install.sh"
)
def test_the_react_todomvc_filter_links_kill_their_exact_checks_faults(tmp_path: Path) -> None:
    """The issue's race: a filter link's click changes the route and React moves the "selected"
    class; a fault placed on the link the check reads must be the one it reads, in every run."""
    (tmp_path / "react.reuseit.yaml").write_text(REACT, encoding="utf-8")
    with Served(functools.partial(_QuietFiles, directory=str(TODOMVC))) as site:
        proc = mutate(
            tmp_path,
            ".",
            "--operators",
            "number_off_by_one,word_replaced",
            pytest_args=("--base-url", site.url, "--reuseit-llm", "off"),
        )
    report = report_of(tmp_path)
    filters = [m for m in report["reuseit"]["mutants"] if m["target"]["locator"] == "css='#filters a.selected'"]
    # A count and a text of the selected link, after each of the two clicks: one element each
    # (the Active link, then the Completed link), so at least one mutant per operator and link.
    assert len(filters) >= 4, (filters, proc.stdout[-2000:])
    bad = [m for m in filters if not (m["outcome"] == "killed" and m["localised"])]
    assert not bad, [(m["operator"], m["target"]["step"], m["outcome"], m["runs"]) for m in bad]
    assert report["reuseit"]["summary"]["survived"] == 0, proc.stdout[-2000:]
