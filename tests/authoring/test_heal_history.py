"""The morning after a deploy, as a team lives it: the night's failures come with the edits the
history proves, ``reuseit heal`` shows them as one diff per cause, ``--apply`` writes them, and the
workflows pass on the changed shop. No model is configured anywhere here.

The shop (tests/support/heal_shop.py) passes a first night; the deploy then renames "Add to cart"
(two workflows use it: one cause, two files) and "Sign in" (typed into after a secret password),
puts a modal cookie dialog over the deals page (its workflow has no fallback), and changes the tea's
price that a check expects (the possible regression: shown, never applied).
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
from collections.abc import Iterator
from typing import Any

import pytest

from pytest_reuseit import cli
from pytest_reuseit.workflow.loader import load
from tests.support.heal_shop import WORKFLOWS
from tests.support.morning import Morning, shop_morning
from tests.support.paths import ROOT
from tests.support.serve import Served, files
from tests.support.todomvc_refactor import make_variant

pytestmark = pytest.mark.slow

PASSWORD = "tea-Leaf-7734-secret"
ADDS = ["workflows/add-mug.reuseit.yaml", "workflows/add-tea.reuseit.yaml"]


@pytest.fixture
def morning(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> Iterator[Morning]:
    with shop_morning(pytester, monkeypatch, PASSWORD, WORKFLOWS) as morning:
        yield morning


def _cause(data: dict[str, Any], word: str) -> dict[str, Any]:
    (found,) = [c for c in data["causes"] if word in c["summary"]]
    return found


def test_the_morning_after_a_deploy_heal_writes_what_the_history_proves(morning: Morning) -> None:
    counts, _, _ = morning.night()
    assert counts == {"passed": 5}
    assert not (morning.root / "report-1" / "healing.json").exists()  # nothing to prove on a good night

    morning.deploy.add_label, morning.deploy.signin_label = "Add to basket", "Log in"
    morning.deploy.cookie_dialog, morning.deploy.price = True, "$4.50"
    counts, report, data = morning.night()
    assert counts == {"failed": 5}
    assert (
        "PROVEN by the history: 4 edits in 4 files; `reuseit heal` shows them, `reuseit heal --apply` writes them"
    ) in morning.terminal
    assert (
        "POSSIBLE REGRESSION: 1 check that no longer holds since the last pass; `reuseit heal` shows what the "
        "page shows now (it never changes a check)"
    ) in morning.terminal

    # The morning's outputs name, per cause with a proven edit, the command and the files it touches.
    add = _cause(data, "Add to cart")
    # The command reads the report's own copy of the edits: it travels with the report (a CI
    # artifact), where the runs' output folders may be one per shard.
    assert add["heal"]["command"] == "reuseit heal --from report-2/healing.json --apply"
    assert (add["heal"]["files"], add["heal"]["workflows"]) == (2, ADDS)
    assert add["heal"]["edits"] == ['button "Add to cart" renamed "Add to basket"']
    assert _cause(data, "Sign in")["heal"]["files"] == 1
    dialog = _cause(data, "covers /deals")
    assert dialog["heal"]["edits"] == [
        'dialog "Cookie preferences", new since the last pass, covers the page: dismiss it with its "Accept all" button'
    ]
    price = next(c for c in data["causes"] if c["tests"] == ["workflows/price.reuseit.yaml::price[default]"])
    assert price["heal"] is None  # a check that no longer holds is no edit
    assert f"{add['summary']}: proven by the history: `{add['heal']['command']}` edits 2 places in 2 files" in report
    monitor = (morning.root / "report-2" / "monitor.html").read_text(encoding="utf-8")
    assert "<code>reuseit heal --from report-2/healing.json --apply</code> edits 2 places in 2 files" in monitor
    (alert,) = morning.hook.take()[-1:]
    assert (
        "fix proven by the history: `reuseit heal --from report-2/healing.json --apply` edits 2 places in 2 files"
        in alert["text"]
    )

    # The dry run: one cause per change, a hunk per file, the regression named, nothing written.
    before = morning.texts()
    code, out, err = morning.command("heal", "--from", "report-2/healing.json")
    assert code == 0, out + err
    assert out.count("cause: ") == 3
    assert 'cause: button "Add to cart" renamed "Add to basket" (2 files; proven by the history)' in out
    assert "  Since the run last passed (" in out and 'gone: paragraph: $4.00; button "Add to cart"' in out
    for name in ADDS:
        assert f"--- a/{name}\n+++ b/{name}\n" in out
    assert "+      - click: {role: button, name: Add to basket}" in out
    assert "+      - click: {role: button, name: Log in}" in out
    assert "+      - do: [{click: {role: button, name: Accept all}}]" in out
    assert (
        'possible regression, not applied: workflows/price.reuseit.yaml:9: step 1 post check "The tea costs $4.00": '
        "it expects text of test_id='price' to equal '$4.00'; the page shows '$4.50'"
    ) in out
    assert "dry run: 4 file(s) would change; add --apply to write them" in out
    assert morning.texts() == before

    # The secret typed on the sign-in page is in no suggestion, report or message.
    healing = (morning.root / "reuseit-output" / "healing.json").read_text(encoding="utf-8")
    reported = (morning.root / "report-2" / "healing.json").read_text(encoding="utf-8")
    for text in (healing, reported, out, report, monitor, json.dumps(data), json.dumps(alert)):
        assert PASSWORD not in text
    assert 'textbox \\"Password\\": ***' in healing  # the evidence keeps the field, masked

    # The runs' own copy (pytest's output folder) holds the same edits. A file edited since the
    # night's run: its edit is refused with one line; the others are written.
    edited = before["add-mug.reuseit.yaml"].replace("# Put", "# Reviewed. Put")
    morning.path("add-mug.reuseit.yaml").write_text(edited, encoding="utf-8")
    code, out, err = morning.command("heal", "--apply")
    assert code == 1
    refused = [line for line in out.splitlines() if "refused" in line]
    assert refused == [
        "  workflows/add-mug.reuseit.yaml:9: refused: the file changed since the run that proposed this edit "
        f"({data['suite_run']['started'][:10]}); run the workflows again for a new proposal"
    ]
    assert morning.path("add-mug.reuseit.yaml").read_text(encoding="utf-8") == edited
    after = morning.texts()
    assert after["add-tea.reuseit.yaml"] == before["add-tea.reuseit.yaml"].replace(
        "{role: button, name: Add to cart}  #", "{role: button, name: Add to basket} #"
    )
    assert after["price.reuseit.yaml"] == before["price.reuseit.yaml"]  # the check stays as written
    deals = load(morning.path("deals.reuseit.yaml")).workflow.steps[0]
    (fallback,) = deals.fallback
    assert (fallback.redo, fallback.when, fallback.describe()) == (
        True,
        ("action",),
        "do: click role='button'[name='Accept all'] then redo the action",
    )
    assert '# dismisses dialog "Cookie preferences", not there on' in after["deals.reuseit.yaml"]

    # The file as the run saw it again: its edit goes in; what was written already is said so.
    morning.path("add-mug.reuseit.yaml").write_text(before["add-mug.reuseit.yaml"], encoding="utf-8")
    code, out, err = morning.command("heal", "--apply")
    assert code == 0, out + err
    assert "  workflows/add-tea.reuseit.yaml: already says this" in out
    assert out.count("wrote ") == 1 and "wrote workflows/add-mug.reuseit.yaml" in out

    # The next night, on the changed shop: every healed workflow passes, the price still fails.
    counts, report, data = morning.night()
    assert counts == {"passed": 4, "failed": 1}
    assert "PROVEN by the history" not in morning.terminal and "POSSIBLE REGRESSION: 1 check" in morning.terminal
    assert [r["test"] for r in data["still_failing"]] == ["workflows/price.reuseit.yaml::price[default]"]
    assert [r["test"] for r in data["newly_recovered"]] == []  # the deals passed before: "fixed", by its fallback
    assert sorted(r["test"] for r in data["fixed"]) == sorted(
        f"workflows/{n}::{n.split('.')[0]}[default]" for n in ("add-mug.reuseit.yaml", "add-tea.reuseit.yaml",
                                                               "deals.reuseit.yaml", "signin.reuseit.yaml")
    )  # fmt: skip


def test_runs_and_reports_share_one_history_without_an_ini_file(morning: Morning) -> None:
    """pytest makes a test path its rootdir when no ini file says where the project is
    (``pytest workflows`` -> workflows/); the runs must still read the history the report wrote."""
    (morning.root / "pytest.ini").unlink()
    for name in ("signin.reuseit.yaml", "deals.reuseit.yaml", "price.reuseit.yaml", "add-mug.reuseit.yaml"):
        morning.path(name).unlink()
    counts, _, _ = morning.night()
    assert counts == {"passed": 1}
    assert (morning.root / ".reuseit" / "history.sqlite").is_file()
    assert not (morning.root / "workflows" / ".reuseit").exists()

    morning.deploy.add_label = "Add to basket"
    counts, _, data = morning.night()
    assert counts == {"failed": 1}
    assert _cause(data, "Add to cart")["heal"]["files"] == 1  # the run compared itself with its last pass
    assert (morning.root / "report-2" / "healing.json").is_file()


TODOMVC = ROOT / "node_modules" / "todomvc"
APP_WORKFLOWS = ROOT / "workflows" / "apps" / "todomvc"


@pytest.mark.skipif(not (TODOMVC / "examples").is_dir(), reason="TodoMVC is not installed: bash ci/install.sh")
def test_a_real_app_whose_filter_link_is_renamed_is_healed_in_the_file_that_says_it(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """TodoMVC from npm, its "Active" filter renamed "Open" in its own index.html: the examples'
    routing workflow (whose first step is a `use` of another file; here its "forward" step clicks
    the filter again instead) fails on its third step, the history proves the new name, and
    ``heal --apply --verify`` edits that step, numbered as the file has it, and the later click
    the run never reached, once the edited copy passed on the app."""
    for name in list(os.environ):
        if name.startswith(("OPENAI_", "REUSEIT_")):
            monkeypatch.delenv(name)
    site = tmp_path_factory.mktemp("app") / "todomvc"
    make_variant(TODOMVC, site)
    root = pytester.path
    (root / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
    (root / "workflows").mkdir()
    for name in ("routing.reuseit.yaml", "create-three-todos.reuseit.yaml"):
        text = (APP_WORKFLOWS / name).read_text(encoding="utf-8")
        text = text.replace("usefixtures: [todomvc_url]", "").replace("{todomvc_url}", "{base_url}/examples/vanillajs")
        again = "    do:\n      - click: {role: link, name: Active, exact: true}  # the filter again\n"
        (root / "workflows" / name).write_text(text.replace("    do: [forward]\n", again), encoding="utf-8")
    routing = root / "workflows" / "routing.reuseit.yaml"
    written = routing.read_text(encoding="utf-8")

    def night(n: int) -> dict[str, int]:
        run = pytester.runpytest("workflows/routing.reuseit.yaml", "-p", "no:cacheprovider", "-q",
                                 "--base-url", served.url, "--alluredir", f"results-{n}")  # fmt: skip
        out, err = io.StringIO(), io.StringIO()
        with contextlib.chdir(root), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            assert cli.main(["report", "--results", f"results-{n}", "--output", f"report-{n}", "--no-allure"]) == 0
        return run.parseoutcomes()

    with Served(files(site)) as served:
        assert night(1) == {"passed": 1}
        make_variant(TODOMVC, site, ("index.html", '<a href="#/active">Active</a>', '<a href="#/active">Open</a>'))
        assert night(2) == {"failed": 1}
        out, err = io.StringIO(), io.StringIO()
        with contextlib.chdir(root), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            assert cli.main(["heal", "--apply", "--verify"]) == 0, out.getvalue() + err.getvalue()
        said = out.getvalue()
        assert 'cause: link "Active" renamed "Open" (1 file, 2 places; proven by the history)' in said
        assert "workflows/routing.reuseit.yaml: step 3 op 1 (line 32)" in said  # the file's third step
        assert "workflows/routing.reuseit.yaml: step 7 op 1 (line 72): " in said and "not reached by the run" in said
        assert "  passed: workflows/routing.reuseit.yaml [default]" in said
        assert 'confirmed by the site: link "Active" renamed "Open"' in said
        # (The editor keeps a comment in its column: a shorter name leaves more space before it.)
        assert re.sub(r"\} +#", "} #", routing.read_text(encoding="utf-8")) == re.sub(
            r"\} +#",
            "} #",
            written.replace("{role: link, name: Active, exact: true}", "{role: link, name: Open, exact: true}"),
        )
        assert night(3) == {"passed": 1}
