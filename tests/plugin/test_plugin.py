"""The pytest plugin: collection, items, options, and real runs in a subprocess (with a browser).

Runs go through pytester in-process: the plugin takes a thread of its own for Playwright when
this process already runs one (the tests' browser), as it does beside pytest-playwright, and a
subprocess would cost a Python start and the imports again. Sessions that need processes of
their own (xdist workers, a browser crash) still run in a subprocess.
"""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import pytest

from pytest_reuseit.plugin import RUNTIME
from pytest_reuseit.report.artifacts import slug
from tests.support.pytest_sessions import output_of, run_sub, summary_line, write
from tests.support.shared_run import run_once
from tests.support.tiny_site import FAIL_WF, PASS_WF, RECOVER_WF, tiny_site

__all__ = ["tiny_site"]  # the fixture, for the tests below

SUBPROCESS_TIMEOUT = 120
PLUGIN_FRAME = re.compile(r"pytest_reuseit[\\/][\w\\/]+\.py:\d+")

# --------------------------------------------------------------------------- a port nobody listens on


def closed_port() -> int:
    """A port on 127.0.0.1 that nothing listens on (bound, then released)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


# --------------------------------------------------------------------------- workflow texts

# The tiny site's page changes only when clicked (tests/support/tiny_site.py, with PASS_WF, FAIL_WF
# and RECOVER_WF): a check that fails would fail after any wait, so it waits 0.1 s; a check that
# holds is judged once whatever its timeout.

REACH_WF = """\
name: Site up or down
task: Open the site
start_url: "{site}/index.html"
params: {site: "{base_url}"}
variations:
  - id: down
    params: {site: "http://127.0.0.1:%(port)d"}
  - id: up
steps:
  - action: Press Go
    do: [{click: "#go"}]
    post:
      - expect: {text: {css: "#out", equals: clicked}}
"""

SECRET_MISSING_WF = """\
name: Needs a secret that is not set
task: Log in
start_url: "{base_url}/index.html"
steps:
  - action: Type the password
    do:
      - fill: {css: "#pw", value: "{secret.NOPE}"}
"""

SECRET_TYPED_WF = """\
name: Types a secret and fails afterwards
task: Log in
start_url: "{base_url}/index.html"
settings: {retries: 1, check_timeout: 0.1}
steps:
  - action: Type the password and echo it
    do:
      - fill: {css: "#pw", value: "{secret.REUSEIT_TEST_PASSWORD}"}
      - click: "#echo"
    post:
      - expect: {text: {css: "#out", equals: not-the-password}}
      - expect: {value: {css: "#pw", equals: not-the-password}}
"""

INVALID_WF = """\
name: Broken file
task: t
start_url: "{base_url}/index.html"
steps:
  - action: Press Go
    do:
      - clik: "#go"
"""

VARS_WF = """\
name: Variation params
task: Type {word}
start_url: "{base_url}/index.html"
params: {word: hello, expected: hello}
settings: {retries: 0, check_timeout: 0.1}
variations:
  - id: own
    params: {word: uno, expected: uno}
  - id: wrong
    kind: attribute
    params: {word: dos}
steps:
  - action: Type {word} and press Go
    do:
      - fill: {css: "#q", value: "{word}"}
      - click: "#go"
    post:
      - expect: {text: {css: "#out", equals: "{expected}"}}
"""

SECRET_VALUE = "Sup3r-Secret-Value-4711"


def run_folders(pytester: pytest.Pytester) -> list[str]:
    """The per-run artifact folders under the output folder."""
    out = pytester.path / "reuseit-output"
    return sorted(p.name for p in out.iterdir() if p.is_dir()) if out.is_dir() else []


def assert_no_traceback(text: str) -> None:
    assert "Traceback" not in text
    assert not PLUGIN_FRAME.search(text), PLUGIN_FRAME.search(text)


# --------------------------------------------------------------------------- collection (in-process)


def test_collects_reuseit_yaml_and_yml_only(pytester: pytest.Pytester) -> None:
    write(pytester, "shop/search.reuseit.yaml", PASS_WF)
    write(pytester, "login.reuseit.yml", PASS_WF)
    write(pytester, "config.yaml", "name: not a workflow\n")
    write(pytester, "other.yml", "[unparseable: yaml\n")
    write(pytester, "notes.reuseit.yaml.bak", "garbage: [\n")
    write(pytester, "reuseit.yaml", "garbage: [\n")
    result = pytester.runpytest("--collect-only", "-q")
    assert result.ret == 0
    ids = [line for line in result.stdout.lines if "::" in line]
    assert ids == ["login.reuseit.yml::login[default]", "shop/search.reuseit.yaml::search[default]"]
    assert "2 tests collected" in result.stdout.str()
    assert "error" not in result.stdout.str().lower()


def test_item_ids_are_path_stem_and_variation(pytester: pytest.Pytester) -> None:
    write(
        pytester,
        "shop/search.reuseit.yaml",
        PASS_WF.replace(
            "params: {word: hello}\n",
            "params: {word: hello}\nvariations:\n  - id: original\n  - id: attribute\n    params: {word: bye}\n"
            "  - id: category.v2\n",
        ),
    )
    items, _ = pytester.inline_genitems()
    assert [i.nodeid for i in items] == [
        "shop/search.reuseit.yaml::search[original]",
        "shop/search.reuseit.yaml::search[attribute]",
        "shop/search.reuseit.yaml::search[category.v2]",
    ]
    assert [i.variation for i in items] == ["original", "attribute", "category.v2"]  # type: ignore[attr-defined]
    # reportinfo points at the variation's line and names the workflow.
    path, line, title = items[1].reportinfo()
    assert Path(path).name == "search.reuseit.yaml"
    assert line == 6  # 0-based: "- id: attribute" is on line 7
    assert title == "Type and read back [attribute]"
    assert all(i.get_closest_marker("reuseit") for i in items)


def test_ini_reuseit_files_changes_the_glob(pytester: pytest.Pytester) -> None:
    pytester.makeini("[pytest]\nreuseit_files = *.flow.yaml\n")
    write(pytester, "a.flow.yaml", PASS_WF)
    write(pytester, "b.reuseit.yaml", PASS_WF)
    result = pytester.runpytest("--collect-only", "-q")
    assert result.ret == 0
    ids = [line for line in result.stdout.lines if "::" in line]
    assert ids == ["a.flow.yaml::a.flow[default]"]


def test_collect_only_lists_each_variation(pytester: pytest.Pytester) -> None:
    write(
        pytester,
        "search.reuseit.yaml",
        PASS_WF.replace(
            "params: {word: hello}\n",
            "params: {word: hello}\nvariations:\n  - id: first\n  - id: second\n  - id: third\n",
        ),
    )
    write(pytester, "plain.reuseit.yaml", PASS_WF)
    result = pytester.runpytest("--collect-only", "-q")
    assert result.ret == 0
    assert [line for line in result.stdout.lines if "::" in line] == [
        "plain.reuseit.yaml::plain[default]",
        "search.reuseit.yaml::search[first]",
        "search.reuseit.yaml::search[second]",
        "search.reuseit.yaml::search[third]",
    ]


def test_k_selects_a_variation(pytester: pytest.Pytester) -> None:
    write(
        pytester,
        "search.reuseit.yaml",
        PASS_WF.replace(
            "params: {word: hello}\n",
            "params: {word: hello}\nvariations:\n  - id: original\n  - id: attribute\n",
        ),
    )
    result = pytester.runpytest("--collect-only", "-q", "-k", "attribute")
    assert result.ret == 0
    assert [line for line in result.stdout.lines if "::" in line] == ["search.reuseit.yaml::search[attribute]"]
    assert "1/2 tests collected (1 deselected)" in result.stdout.str()


@pytest.mark.parametrize("strict", [False, True], ids=["plain", "strict-markers"])
def test_tags_become_markers(pytester: pytest.Pytester, strict: bool) -> None:
    write(pytester, "tagged.reuseit.yaml", PASS_WF.replace("steps:", "tags: [shop, smoke]\nsteps:", 1))
    write(pytester, "untagged.reuseit.yaml", PASS_WF)
    args = ["--collect-only", "-q", "-m", "smoke"] + (["--strict-markers"] if strict else [])
    result = pytester.runpytest(*args)
    assert result.ret == 0, output_of(result)
    assert [line for line in result.stdout.lines if "::" in line] == ["tagged.reuseit.yaml::tagged[default]"]
    assert "1/2 tests collected (1 deselected)" in result.stdout.str()
    # The reuseit marker selects every workflow; "not smoke" the others.
    result = pytester.runpytest(
        "--collect-only", "-q", "-m", "reuseit and not smoke", *(["--strict-markers"] if strict else [])
    )
    assert [line for line in result.stdout.lines if "::" in line] == ["untagged.reuseit.yaml::untagged[default]"]


def test_tags_are_registered_markers(pytester: pytest.Pytester) -> None:
    write(pytester, "tagged.reuseit.yaml", PASS_WF.replace("steps:", "tags: [checkout_flow]\nsteps:", 1))
    items, _ = pytester.inline_genitems("--strict-markers")
    # allure_label: the severity (normal by default), set as allure-pytest's own mark for --allure-severities.
    assert {m.name for m in items[0].iter_markers()} == {"checkout_flow", "reuseit", "allure_label"}
    assert "checkout_flow: workflow tag" in items[0].config.getini("markers")
    result = pytester.runpytest("--markers")
    assert "@pytest.mark.reuseit: a guarded workflow run by pytest-reuseit" in result.stdout.str()


def test_invalid_file_is_one_failing_item_with_file_line_and_path(pytester: pytest.Pytester) -> None:
    write(pytester, "flows/broken.reuseit.yaml", INVALID_WF)
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(failed=1)
    out = output_of(result)
    assert "invalid workflow file:" in out
    assert "flows/broken.reuseit.yaml:7: steps[0].do[0].clik: unknown key 'clik' (did you mean 'click'?)" in out
    assert "FAILED flows/broken.reuseit.yaml::broken" in out
    # It is a failing test, not a collection error that would stop the session.
    assert "error" not in result.stdout.lines[-1]
    assert_no_traceback(out)


def test_unparseable_file_is_one_failing_item(pytester: pytest.Pytester) -> None:
    write(pytester, "bad.reuseit.yaml", "name: n\ntask: [t\nstart_url: u\n")
    write(pytester, "empty.reuseit.yml", "")
    result = pytester.runpytest("-p", "no:cacheprovider", "-rf")
    result.assert_outcomes(failed=2)
    out = output_of(result)
    assert "bad.reuseit.yaml:3:10: invalid YAML: expected ',' or ']'" in out
    assert "empty.reuseit.yml:1: a workflow file must be a mapping" in out
    assert_no_traceback(out)


def test_invalid_ini_choice_is_a_usage_error(pytester: pytest.Pytester) -> None:
    pytester.makeini("[pytest]\nreuseit_screenshots = sometimes\n")
    result = pytester.runpytest("--collect-only")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "reuseit_screenshots = 'sometimes' is not one of: steps, failures, off" in result.stderr.str()
    assert_no_traceback(output_of(result))


def test_invalid_cli_choice_is_a_usage_error(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest("--collect-only", "--reuseit-artifacts", "sometimes")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "--reuseit-artifacts: invalid choice: 'sometimes'" in result.stderr.str()


@pytest.mark.parametrize("where", ["a-file", "a-file/below"])
def test_an_output_folder_that_cannot_be_written_is_a_usage_error(pytester: pytest.Pytester, where: str) -> None:
    # Every run writes under it: found before the first run, not as a traceback in each test.
    (pytester.path / "a-file").write_text("not a folder", encoding="utf-8")
    pytester.makefile(".reuseit.yaml", PASS_WF)
    result = pytester.runpytest("--reuseit-llm", "off", "--reuseit-output", where)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    err = result.stderr.str()
    assert f"the output folder {where} (--reuseit-output, reuseit_output) cannot be written: " in err
    assert ("a file is in the way" if where == "a-file" else "Not a directory") in err
    assert_no_traceback(output_of(result))
    # Collecting writes nothing, so it does not need the folder.
    assert pytester.runpytest("--collect-only", "--reuseit-output", where).ret == pytest.ExitCode.OK


def test_a_switch_that_is_neither_true_nor_false_is_a_usage_error_naming_it(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytester.makeini("[pytest]\nreuseit_strict = perhaps\n")
    result = pytester.runpytest("--collect-only")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "reuseit_strict: invalid truth value 'perhaps'; expected true or false" in result.stderr.str()
    pytester.makeini("[pytest]\n")
    monkeypatch.setenv("REUSEIT_LEARN", "sometimes")
    result = pytester.runpytest("--collect-only")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "REUSEIT_LEARN='sometimes': expected true or false (1/0, yes/no, on/off)" in result.stderr.str()
    monkeypatch.setenv("REUSEIT_LEARN", "yes")  # the usual spellings are taken
    assert pytester.runpytest("--collect-only").ret == pytest.ExitCode.NO_TESTS_COLLECTED


@pytest.mark.parametrize(
    ("flag", "value", "wanted"),
    [
        ("--reuseit-llm-timeout", "0", "above 0"),
        ("--reuseit-llm-timeout", "inf", "above 0"),  # a call that may wait for ever
        ("--reuseit-llm-budget", "nan", "above 0"),
        ("--reuseit-llm-retries", "-1", "0 or more"),
        ("--reuseit-slow-mo", "-5", "0 or more"),
        ("--reuseit-screenshot-width", "0", "1 or more"),
        ("--reuseit-max-cost", "-0.5", "0 or more"),
    ],
)
def test_a_number_out_of_its_range_is_a_usage_error(
    pytester: pytest.Pytester, flag: str, value: str, wanted: str
) -> None:
    result = pytester.runpytest("--collect-only", flag, value)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    name = "reuseit_" + flag.removeprefix("--reuseit-").replace("-", "_")
    assert f"{name}: expected a number {wanted}, got {value!r}" in result.stderr.str()


def test_bad_reuseit_param_is_a_usage_error(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest("--collect-only", "--reuseit-param", "novalue")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "--reuseit-param expects NAME=VALUE, got 'novalue'" in result.stderr.str()


# --------------------------------------------------------------------------- settings (in-process)

SHOW_SETTINGS = """
from pytest_reuseit.plugin import RUNTIME
from pytest_reuseit.report.artifacts import slug

def test_show(request):
    s = request.config.stash[RUNTIME].settings
    print("SETTINGS", s.screenshots, s.artifacts, s.output, s.strict, s.base_url, sorted(s.params.items()))
"""


def settings_line(result: pytest.RunResult) -> str:
    assert result.ret == 0, output_of(result)
    line = next(line for line in result.stdout.lines if "SETTINGS" in line)
    return line[line.index("SETTINGS") :]


def test_settings_defaults(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    for var in ("REUSEIT_SCREENSHOTS", "REUSEIT_ARTIFACTS", "REUSEIT_OUTPUT", "REUSEIT_STRICT", "REUSEIT_BASE_URL"):
        monkeypatch.delenv(var, raising=False)
    pytester.makepyfile(SHOW_SETTINGS)
    line = settings_line(pytester.runpytest("-s"))
    assert line == "SETTINGS failures on-failure reuseit-output False  []"


@pytest.mark.slow
def test_settings_cli_beats_ini_beats_env(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("REUSEIT_SCREENSHOTS", "failures")
    monkeypatch.setenv("REUSEIT_ARTIFACTS", "never")
    pytester.makeini("[pytest]\nreuseit_screenshots = off\nbase_url = http://ini.example/\n")
    pytester.makepyfile(SHOW_SETTINGS)
    # env alone (artifacts), ini over env (screenshots); base_url from the ini, trailing slash dropped.
    assert settings_line(pytester.runpytest("-s")) == "SETTINGS off never reuseit-output False http://ini.example []"
    # The command line beats both.
    line = settings_line(
        pytester.runpytest(
            "-s",
            "--reuseit-screenshots",
            "steps",
            "--reuseit-artifacts",
            "always",
            "--reuseit-strict",
            "--base-url",
            "http://cli.example",
            "--reuseit-param",
            "a=1",
            "--reuseit-param",
            "b=x=y",
        )
    )
    assert line == "SETTINGS steps always reuseit-output True http://cli.example [('a', '1'), ('b', 'x=y')]"


@pytest.mark.slow
def test_runtime_is_in_the_config_stash(pytester: pytest.Pytester) -> None:
    config = pytester.parseconfigure("--reuseit-output", "out-dir")
    runtime = config.stash[RUNTIME]
    assert runtime.settings.output == "out-dir"
    assert runtime._session is None  # no browser is started just by configuring pytest


# --------------------------------------------------------------------------- real runs (subprocess)


@dataclass
class Session:
    """A finished subprocess pytest session: where it ran and what it printed."""

    path: Path
    ret: int
    stdout: str
    stderr: str
    elapsed: float

    @property
    def out(self) -> str:
        return self.stdout + "\n" + self.stderr

    def folder(self, nodeid: str) -> Path:
        return self.path / "reuseit-output" / slug(nodeid)

    def result_json(self, nodeid: str) -> dict:  # type: ignore[type-arg]
        return json.loads((self.folder(nodeid) / "result.json").read_text(encoding="utf-8"))


def _run_mixed(path: Path, site_url: str) -> Session:
    path.mkdir(parents=True, exist_ok=True)
    (path / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
    files = {
        "a_pass": PASS_WF,
        "b_fail": FAIL_WF,
        "c_recover": RECOVER_WF,
        "d_reach": REACH_WF % {"port": closed_port()},
        "e_secret_missing": SECRET_MISSING_WF,
        "f_secret_typed": SECRET_TYPED_WF,
        "g_invalid": INVALID_WF,
        "h_vars": VARS_WF,
    }
    for name, text in files.items():
        (path / f"{name}.reuseit.yaml").write_text(text, encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k != "NOPE" and not k.startswith(("REUSEIT_", "OPENAI_", "PYTEST_"))}
    env["REUSEIT_TEST_PASSWORD"] = SECRET_VALUE
    started = time.monotonic()
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-p",
            "no:cacheprovider",
            "-rA",
            "--reuseit-llm",
            "off",
            "--base-url",
            site_url,
        ],
        cwd=path,
        env=env,
        capture_output=True,
        text=True,
        timeout=SUBPROCESS_TIMEOUT,
        check=False,
    )
    return Session(path, proc.returncode, proc.stdout, proc.stderr, time.monotonic() - started)


@pytest.fixture(scope="module")
def mixed(tmp_path_factory: pytest.TempPathFactory, tiny_site: str) -> Session:
    """One subprocess session with every kind of outcome side by side (keeps the suite fast).

    Items run in file order: a_pass, b_fail, c_recover, d_reach[down], d_reach[up],
    e_secret_missing, f_secret_typed, g_invalid, h_vars[own], h_vars[wrong].
    """
    return run_once(
        tmp_path_factory,
        "mixed",
        lambda folder: _run_mixed(folder, tiny_site),
        lambda session: {**asdict(session), "path": str(session.path)},
        lambda data: Session(**{**data, "path": Path(data["path"])}),
    )


def failure_section(out: str, title: str) -> str:
    """The text pytest printed for one failed item (between its ____ title bar and the next)."""
    m = re.search(r"_{3,} " + re.escape(title) + r" _{3,}\n(.*?)(?=\n_{3,} |\n={3,} )", out, re.S)
    assert m, f"no failure section for {title!r} in:\n{out}"
    return m.group(1)


@pytest.mark.slow
def test_mixed_outcomes_and_summary(mixed: Session) -> None:
    assert mixed.ret == 1
    lines = mixed.stdout.splitlines()
    assert re.fullmatch(r"=+ 6 failed, 4 passed in [\d.]+s.*=+", lines[-1]), lines[-1]
    assert summary_line(mixed.stdout) == "3 passed, 1 recovered, 0 healed, 3 failed, 2 broken  (9 workflow runs)"
    for nodeid in (
        "a_pass.reuseit.yaml::a_pass[default]",
        "c_recover.reuseit.yaml::c_recover[default]",
        "d_reach.reuseit.yaml::d_reach[up]",
        "h_vars.reuseit.yaml::h_vars[own]",
    ):
        assert f"PASSED {nodeid}" in lines
    for nodeid in (
        "b_fail.reuseit.yaml::b_fail[default]",
        "d_reach.reuseit.yaml::d_reach[down]",
        "e_secret_missing.reuseit.yaml::e_secret_missing[default]",
        "f_secret_typed.reuseit.yaml::f_secret_typed[default]",
        "g_invalid.reuseit.yaml::g_invalid",
        "h_vars.reuseit.yaml::h_vars[wrong]",
    ):
        assert any(line.startswith(f"FAILED {nodeid}") for line in lines), nodeid
    assert_no_traceback(mixed.out)


@pytest.mark.slow
def test_passing_workflow(mixed: Session) -> None:
    assert "PASSED a_pass.reuseit.yaml::a_pass[default]" in mixed.stdout.splitlines()
    # Default artifacts mode is on-failure: a passing run leaves nothing behind (the failed ones did).
    assert not mixed.folder("a_pass.reuseit.yaml::a_pass[default]").exists()
    assert mixed.folder("b_fail.reuseit.yaml::b_fail[default]").is_dir()


@pytest.mark.slow
def data_trace_named(mixed: Session, folder: Path) -> bool:
    """result.json names the trace kept beside it (it was once written before the trace was saved)."""
    trace = mixed.result_json("b_fail.reuseit.yaml::b_fail[default]")["trace"]
    return trace is not None and Path(trace).resolve() == (folder / "trace.zip").resolve()


@pytest.mark.slow
def test_failed_post_check_explains_itself(mixed: Session) -> None:
    text = failure_section(mixed.stdout, "Expects the wrong text [default]")
    assert "workflow 'Expects the wrong text' [default] FAILED" in text
    assert "file: b_fail.reuseit.yaml:1" in text
    assert "step 1 of 1 (line 6): Press Go" in text
    assert "phase: post" in text
    assert "check: The page says goodbye  (line 10)" in text
    assert re.search(r"expected: text of css='#out' to equal 'goodbye'", text)
    assert re.search(r"actual:\s+'clicked'", text)
    assert "1. [post] do: wait 1 then redo the action -> did not recover" in text
    assert "challenge analysis [wrong_element_or_value]" in text
    assert "where: b_fail.reuseit.yaml:6 step 1 (Press Go), phase post" in text
    # The summary names it too, with its category.
    assert "FAILED b_fail.reuseit.yaml::b_fail[default] [wrong_element_or_value]" in mixed.stdout
    folder = mixed.folder("b_fail.reuseit.yaml::b_fail[default]")
    # The paths shown (relative to where pytest ran, or absolute) lead to the kept files.
    shown = re.search(r"^artifacts: (\S+)$", text, re.M)
    assert shown and (mixed.path / shown.group(1)).resolve() == folder.resolve()
    assert folder.is_dir()
    assert (folder / "trace.zip").is_file() and (folder / "trace.zip").stat().st_size > 0
    shown = re.search(r"^trace: (\S+)  \(open with: reuseit trace (\S+)\)$", text, re.M)
    assert shown and (mixed.path / shown.group(1)).resolve() == (folder / "trace.zip").resolve()
    assert data_trace_named(mixed, folder)
    data = mixed.result_json("b_fail.reuseit.yaml::b_fail[default]")
    assert (data["status"], data["label"], data["failed_step"], data["failed_phase"]) == ("failed", "failed", 1, "post")
    assert data["analysis"]["category"] == "wrong_element_or_value"
    assert data["steps"][0]["post"][0]["actual"] == "'clicked'"
    # Screenshots (default mode: at failures only) are files beside it, named in result.json, never inlined.
    shot = data["steps"][0]["post"][0]["screenshot"]
    assert shot["label"] == "post check failed: The page says goodbye"
    assert Path(shot["path"]).parent == folder and Path(shot["path"]).is_file()
    assert data["steps"][0]["before"] is None and data["steps"][0]["after"] is None
    assert "base64" not in (folder / "result.json").read_text()


@pytest.mark.slow
def test_recovered_run_passes_and_is_listed(mixed: Session) -> None:
    lines = mixed.stdout.splitlines()
    assert "PASSED c_recover.reuseit.yaml::c_recover[default]" in lines
    i = lines.index("RECOVERED c_recover.reuseit.yaml::c_recover[default]:")
    assert lines[i + 1].strip() == (
        "step 1 (Search for needs-prep): post recovered by attempt 1: do: click selector='#prep' then redo the action"
    )
    # A passing (recovered) run keeps no artifacts by default.
    assert not mixed.folder("c_recover.reuseit.yaml::c_recover[default]").exists()


@pytest.mark.slow
def test_unreachable_site_is_broken_quickly_and_the_session_goes_on(mixed: Session) -> None:
    lines = mixed.stdout.splitlines()
    down = next(line for line in lines if line.startswith("BROKEN d_reach.reuseit.yaml::d_reach[down]"))
    assert "[infrastructure]" in down
    assert "unreachable" in down
    text = failure_section(mixed.stdout, "Site up or down [down]")
    assert "BROKEN (the run could not be judged)" in text
    assert "phase: start" in text
    assert "the site is unreachable (net::ERR_CONNECTION_REFUSED)" in text
    data = mixed.result_json("d_reach.reuseit.yaml::d_reach[down]")
    assert data["status"] == "broken"
    assert data["duration"] < 30
    # The next item, in the same browser and session, still passes ("F." = down failed, then up passed).
    assert "PASSED d_reach.reuseit.yaml::d_reach[up]" in lines
    assert any(re.match(r"^d_reach\.reuseit\.yaml F\.\s", line) for line in lines), lines


@pytest.mark.slow
def test_missing_secret_is_broken_and_names_it(mixed: Session) -> None:
    line = next(x for x in mixed.stdout.splitlines() if x.startswith("BROKEN e_secret_missing"))
    assert "secret 'NOPE' is not set" in line
    text = failure_section(mixed.stdout, "Needs a secret that is not set [default]")
    assert "BROKEN (the run could not be judged)" in text
    assert "error: placeholder: secret 'NOPE' is not set: export NOPE=..." in text
    assert "about:blank" not in text  # reported before any browser context or page was opened
    assert mixed.result_json("e_secret_missing.reuseit.yaml::e_secret_missing[default]")["status"] == "broken"


@pytest.mark.slow
def test_secret_values_are_never_written(mixed: Session) -> None:
    nodeid = "f_secret_typed.reuseit.yaml::f_secret_typed[default]"
    text = failure_section(mixed.stdout, "Types a secret and fails afterwards [default]")
    # The run really typed it: the echoed text and the field's value are what the check saw, masked.
    assert "FAILED" in text
    assert re.search(r"actual:\s+'\*{3}'", text), text
    assert "{secret.REUSEIT_TEST_PASSWORD}" in text  # the typed op is shown as written
    assert SECRET_VALUE not in mixed.out
    data = mixed.result_json(nodeid)
    assert data["typed_secret"] is True
    assert data["steps"][0]["post"][0]["actual"] == "'***'"
    folder = mixed.folder(nodeid)
    # A trace would hold the typed value: it is not kept for a run that typed a secret.
    assert not (folder / "trace.zip").exists()
    assert data["trace"] is None
    files = [p for p in (mixed.path / "reuseit-output").rglob("*") if p.is_file()]
    assert any(p.name == "result.json" for p in files)
    for p in files:
        assert SECRET_VALUE.encode() not in p.read_bytes(), p


@pytest.mark.slow
def test_invalid_file_fails_alone_while_the_others_run(mixed: Session) -> None:
    text = failure_section(mixed.stdout, "invalid workflow g_invalid.reuseit.yaml")
    assert text.strip().splitlines() == [
        "invalid workflow file:",
        "g_invalid.reuseit.yaml:7: steps[0].do[0].clik: unknown key 'clik' (did you mean 'click'?)",
    ]
    assert "PASSED a_pass.reuseit.yaml::a_pass[default]" in mixed.stdout.splitlines()
    assert "(9 workflow runs)" in mixed.stdout  # the invalid file is not a workflow run


# --reuseit-strict failing a recovered run: tests/llm/test_model_guards.py's strict session (beside an
# unjudged run, in the session that shows both without strict).


@pytest.mark.slow
def test_exitfirst_stops_after_the_first_failure(pytester: pytest.Pytester, tiny_site: str) -> None:
    write(pytester, "a_fail.reuseit.yaml", FAIL_WF)
    write(pytester, "b_pass.reuseit.yaml", PASS_WF)
    result = run_sub(pytester, tiny_site, "-x")
    result.assert_outcomes(failed=1, passed=0)
    assert "stopping after 1 failures" in result.stdout.str()
    assert summary_line(result) == "0 passed, 0 recovered, 0 healed, 1 failed, 0 broken  (1 workflow runs)"


@pytest.mark.slow
def test_xdist_runs_every_variation_counts_them_and_writes_where_the_controller_reads(
    pytester: pytest.Pytester, tiny_site: str
) -> None:
    # One session under -n 2 (each costs two more Pythons and browsers) for what xdist changes:
    # every variation runs and is counted; and with no ini file, the tests in a folder, the output
    # beside the project and not there yet, the controller makes it before its workers start and
    # pytest then gives them another rootdir (the folder above both), so ../out from there was a
    # folder nobody read.
    write(
        pytester,
        "tests/words.reuseit.yaml",
        PASS_WF.replace(
            "params: {word: hello}\n",
            "params: {word: hello}\nvariations:\n  - id: default_word\n"
            "  - id: one\n    params: {word: uno}\n  - id: two\n    params: {word: dos}\n"
            "  - id: three\n    params: {word: tres}\n",
        ),
    )
    write(pytester, "tests/wrong.reuseit.yaml", FAIL_WF)  # a failed run leaves its files
    # Named after this session's base folder: the wrong place is outside it, shared by sessions.
    out = pytester.path.parent / f"{pytester.path.parent.name}-{pytester.path.name}-out"
    wrong = pytester.path.parent.parent / out.name
    result = run_sub(pytester, tiny_site, "tests", "-n", "2", "-rA", "-v", "--reuseit-output", f"../{out.name}")
    result.assert_outcomes(passed=4, failed=1)
    text = output_of(result)
    assert "2 workers" in text
    # -n without --dist: long items are rebalanced at the end (worksteal), not handed out in chunks
    assert "scheduling tests via WorkStealingScheduling" in text
    assert summary_line(result) == "4 passed, 0 recovered, 0 healed, 1 failed, 0 broken  (5 workflow runs)"
    for var in ("default_word", "one", "two", "three"):
        # (the workers' node ids start from their own rootdir: pytest's, not ours to change)
        assert re.search(rf"PASSED \S*words\.reuseit\.yaml::words\[{var}\]", text), var
    assert f"rootdir: {pytester.path}" in result.stdout.str()
    runs = [p.name for p in out.iterdir() if p.is_dir()]
    assert len(runs) == 1 and runs[0].endswith("tests-wrong.reuseit.yaml-wrong-default"), runs
    assert (out / "usage.json").is_file()
    assert not wrong.exists()


@pytest.mark.slow
def test_a_dist_mode_given_is_kept(pytester: pytest.Pytester) -> None:
    pytester.makepyfile("def test_a():\n    pass\n\ndef test_b():\n    pass\n")
    # The controller in this process and one worker: what is kept is the same for any number of
    # workers, and each costs a Python start.
    result = pytester.runpytest("-p", "no:cacheprovider", "-n", "1", "--dist", "load", "-v")
    result.assert_outcomes(passed=2)
    assert "scheduling tests via LoadScheduling" in result.stdout.str()


@pytest.mark.slow
def test_variation_params_are_used(mixed: Session) -> None:
    # Both variations type their own {word}; "own" expects it, "wrong" expects the workflow default.
    # If variation params were ignored, "own" would fail and "wrong" would pass.
    lines = mixed.stdout.splitlines()
    assert "PASSED h_vars.reuseit.yaml::h_vars[own]" in lines
    text = failure_section(mixed.stdout, "Variation params [wrong]")
    assert "expected: text of css='#out' to equal 'hello'" in text
    assert re.search(r"actual:\s+'dos'", text)
    data = mixed.result_json("h_vars.reuseit.yaml::h_vars[wrong]")
    assert data["params"] == {"word": "dos", "expected": "hello"}
    assert data["kind"] == "attribute"


@pytest.mark.slow
def test_reuseit_param_overrides_and_ini_settings_apply(pytester: pytest.Pytester, tiny_site: str) -> None:
    pytester.makeini("[pytest]\nreuseit_screenshots = off\nreuseit_artifacts = always\n")
    write(
        pytester,
        "p.reuseit.yaml",
        PASS_WF.replace(
            "params: {word: hello}\n",
            "params: {word: hello}\nvariations:\n  - id: v\n    params: {word: from-variation}\n",
        ).replace('equals: "{word}"', "equals: from-cli"),
    )
    result = run_sub(pytester, tiny_site, "--reuseit-param", "word=from-cli")
    result.assert_outcomes(passed=1)
    folder = pytester.path / "reuseit-output" / slug("p.reuseit.yaml::p[v]")
    data = json.loads((folder / "result.json").read_text())
    assert data["params"] == {"word": "from-cli"}
    assert data["steps"][0]["actions"][0]["description"] == "fill css='#q' value='from-cli'"
    # From the ini: artifacts always (a passing run keeps its folder), screenshots off (none in it).
    assert sorted(p.name for p in folder.iterdir()) == ["result.json"]


@pytest.mark.slow
def test_artifacts_always_keeps_a_passing_run_and_cli_screenshots_beat_ini(
    pytester: pytest.Pytester, tiny_site: str
) -> None:
    pytester.makeini("[pytest]\nreuseit_screenshots = off\n")
    write(pytester, "ok.reuseit.yaml", PASS_WF)
    result = run_sub(
        pytester,
        tiny_site,
        "--reuseit-artifacts",
        "always",
        "--reuseit-screenshots",
        "steps",
        "--reuseit-trace",
        "retain-on-failure",
    )
    result.assert_outcomes(passed=1)
    folder = pytester.path / "reuseit-output" / slug("ok.reuseit.yaml::ok[default]")
    assert run_folders(pytester) == [folder.name]
    names = sorted(p.name for p in folder.iterdir())
    assert "result.json" in names
    assert "01-step-1-before-action.jpg" in names and "02-step-1-after-action.jpg" in names
    assert "trace.zip" not in names  # retain-on-failure: a passing run keeps no trace
    data = json.loads((folder / "result.json").read_text())
    assert data["status"] == "passed" and data["artifacts_dir"] == str(folder)


@pytest.mark.slow
@pytest.mark.parametrize(
    "trace",
    ["off", "retain-on-failure"],
    ids=["trace-off", "trace-default"],
)
def test_artifacts_never_keeps_nothing_even_for_a_failure(
    pytester: pytest.Pytester, tiny_site: str, trace: str
) -> None:
    write(pytester, "bad.reuseit.yaml", FAIL_WF)
    result = run_sub(pytester, tiny_site, "--reuseit-artifacts", "never", "--reuseit-trace", trace)
    result.assert_outcomes(failed=1)
    assert run_folders(pytester) == []
    out = output_of(result)
    assert "artifacts:" not in out and "trace:" not in out
    assert "phase: post" in out  # the failure itself is still explained


REUSEIT_RUN_TEST = """
from pytest_reuseit.engine.result import RunResult

def test_api(reuseit_run):
    ok = reuseit_run("flows/ok.reuseit.yaml")
    assert isinstance(ok, RunResult)
    assert (ok.status, ok.label, ok.variation, ok.workflow) == ("passed", "passed", "default", "Type and read back")
    assert ok.steps[0].status == "passed"
    bad = reuseit_run("flows/bad.reuseit.yaml")  # does not raise: the test decides
    assert (bad.status, bad.failed_step, bad.failed_phase) == ("failed", 1, "post")
    print("API-OK", ok.final_url.endswith("/index.html"), bad.analysis.category)
"""


@pytest.mark.slow
def test_reuseit_run_fixture_returns_a_run_result(pytester: pytest.Pytester, tiny_site: str) -> None:
    write(pytester, "flows/ok.reuseit.yaml", PASS_WF)
    write(pytester, "flows/bad.reuseit.yaml", FAIL_WF)
    pytester.makepyfile(test_api=REUSEIT_RUN_TEST)
    result = run_sub(pytester, tiny_site, "-s", "test_api.py")
    result.assert_outcomes(passed=1)
    assert "API-OK True wrong_element_or_value" in result.stdout.str()


@pytest.mark.slow
def test_workflows_run_beside_another_sync_playwright_in_the_session(pytester: pytest.Pytester) -> None:
    """pytest-playwright (or a user's conftest) keeps a sync Playwright in the main thread; Playwright
    allows one per thread, so the plugin must take a thread of its own instead of failing."""
    pytester.makeconftest("""
        from playwright.sync_api import sync_playwright
        state = {}
        def pytest_configure(config):
            state["pw"] = sync_playwright().start()
        def pytest_unconfigure(config):
            # Still usable after the workflows ran: nothing of ours touched it.
            assert state["pw"].chromium.name == "chromium"
            state["pw"].stop()
    """)
    pytester.path.joinpath("mixed.reuseit.yaml").write_text(
        'name: mixed\ntask: open the demo shop\nstart_url: "{demo_url}/index.html?cookies=never"\n'
        "steps:\n  - action: look\n    do: [{wait: 1}]\n    post: [{expect: {title: {contains: Trailhead}}}]\n"
    )
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "--reuseit-llm", "off")  # its own main thread
    result.assert_outcomes(passed=1)
    assert "asyncio loop" not in result.stdout.str()
