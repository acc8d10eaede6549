"""The team's folder, its history and the shop (tests/support/heal_shop.py): nights and commands,
run as a team runs them (tests/authoring/test_heal_history.py, tests/authoring/test_heal_verify.py)."""

from __future__ import annotations

import contextlib
import io
import json
import os
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import pytest

from pytest_reuseit import cli
from pytest_reuseit.report import records
from tests.support.heal_shop import Deploy, handler
from tests.support.serve import Served
from tests.support.webhook import Hook


class Morning:
    """``workflows``: file name (under workflows/, may hold a folder) -> text."""

    def __init__(
        self, pytester: pytest.Pytester, site: Served, deploy: Deploy, hook: Hook, workflows: dict[str, str]
    ) -> None:
        self.pytester, self.root, self.site, self.deploy, self.hook = pytester, pytester.path, site, deploy, hook
        self.workflows = workflows
        (self.root / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
        for name, text in workflows.items():
            self.path(name).parent.mkdir(parents=True, exist_ok=True)
            self.path(name).write_text(text, encoding="utf-8")
        self.count = 0
        self.terminal = ""  # the last night's pytest output

    def path(self, name: str) -> Path:
        return self.root / "workflows" / name

    def night(self, *files: str) -> tuple[dict[str, int], str, dict[str, Any]]:
        """pytest on the workflows (``files``: only these), then `reuseit report`: outcome counts,
        the report's output, since-last.json."""
        self.count += 1
        results, output = f"results-{self.count}", f"report-{self.count}"
        paths = [f"workflows/{f}" for f in files] or ["workflows"]
        run = self.pytester.runpytest(*paths, "-p", "no:cacheprovider", "-q", "--base-url", self.site.url,
                                      "--alluredir", results)  # fmt: skip
        assert run.ret in (0, 1), run.stdout.str()
        counts = run.parseoutcomes()
        self.terminal = run.stdout.str()
        code, out, err = self.command("report", "--results", results, "--output", output, "--no-allure",
                                      "--alert-webhook", self.hook.url)  # fmt: skip
        assert code == 0, out + err
        return counts, out, json.loads((self.root / output / "since-last.json").read_text(encoding="utf-8"))

    def command(self, *args: str) -> tuple[int, str, str]:
        """A `reuseit` command as its entry point runs it, in the team's folder."""
        out, err = io.StringIO(), io.StringIO()
        with contextlib.chdir(self.root), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = cli.main(list(args))
        return code, out.getvalue(), err.getvalue()

    def texts(self) -> dict[str, str]:
        return {name: self.path(name).read_text(encoding="utf-8") for name in self.workflows}


@contextlib.contextmanager
def shop_morning(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, password: str, workflows: dict[str, str]
) -> Iterator[Morning]:
    """The team's folder with ``workflows`` against the shop, no model, the shop's password set."""
    for name in list(os.environ):
        if name.startswith(("OPENAI_", "REUSEIT_")):
            monkeypatch.delenv(name)  # no model, and the history where the project keeps it
    monkeypatch.setenv("SHOP_PASSWORD", password)
    deploy, hook = Deploy(), Hook()
    with Served(handler(deploy)) as site:
        yield Morning(pytester, site, deploy, hook, workflows)
    hook.httpd.shutdown()


def heal_from(
    folder: Path, edits: Iterable[Any], test: str, *args: str, source: str = "reuseit-output/healing.json"
) -> tuple[int, str, str]:
    """``reuseit heal ARGS`` in ``folder`` after these proven edits of ``test`` were written where a
    session writes them (or ``source``): its exit code, what it printed and its errors."""
    path = folder / source
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps([{**records.proven_entry(e), "test": test} for e in edits]), encoding="utf-8")
    out, err = io.StringIO(), io.StringIO()
    with contextlib.chdir(folder), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli.main(["heal", *args])
    return code, out.getvalue(), err.getvalue()
