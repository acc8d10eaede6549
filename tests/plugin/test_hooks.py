"""The plugin hooks (docs/hooks.md): each one implemented in a conftest and run for real.

Runs go through pytester (see test_plugin) with the tiny site (tests/support/tiny_site.py) and a
real Chromium.
"""

from __future__ import annotations

import json

import pytest

from tests.support.pytest_sessions import output_of, run_sub, write
from tests.support.tiny_site import FAIL_WF, PASS_WF, RECOVER_WF, tiny_site

__all__ = ["tiny_site"]  # the fixture, for the tests below


GREET_WF = """\
name: Greets with a built-in from a conftest
task: Type {greeting}
start_url: "{base_url}/index.html"
steps:
  - action: Type {greeting} and press Go
    do:
      - fill: {css: "#q", value: "{greeting}"}
      - click: "#go"
    post:
      - expect: {text: {css: "#out", equals: "{greeting}"}}
"""


@pytest.mark.slow
def test_placeholders_hook_adds_a_builtin(pytester: pytest.Pytester, tiny_site: str) -> None:
    pytester.makeconftest("""
        def pytest_reuseit_placeholders(config):
            return {"greeting": "hello-from-conftest"}
    """)
    write(pytester, "greet.reuseit.yaml", GREET_WF)
    result = run_sub(pytester, tiny_site)
    result.assert_outcomes(passed=1)


@pytest.mark.slow
def test_placeholders_hook_values_are_read_only_when_used(pytester: pytest.Pytester, tiny_site: str) -> None:
    """Names are known at collection (validation); a value is read when a run uses it, not before."""
    pytester.makeconftest("""
        from collections.abc import Mapping
        import pathlib

        class Lazy(Mapping):
            def __getitem__(self, name):
                if name != "greeting":
                    raise KeyError(name)
                with open(pathlib.Path(__file__).parent / "reads.txt", "a") as f:
                    f.write(name + "\\n")
                return "lazy-hello"
            def __iter__(self):
                return iter(["greeting", "never_used"])
            def __len__(self):
                return 2

        LAZY = Lazy()

        def pytest_reuseit_placeholders(config):
            return LAZY
    """)
    write(pytester, "greet.reuseit.yaml", GREET_WF)
    write(pytester, "plain.reuseit.yaml", PASS_WF)
    result = run_sub(pytester, tiny_site, "--collect-only")
    assert result.ret == 0
    assert not (pytester.path / "reads.txt").exists()  # collection validated names without reading values
    result = run_sub(pytester, tiny_site, "-k", "plain")
    result.assert_outcomes(passed=1)
    assert not (pytester.path / "reads.txt").exists()  # a run that does not use it never reads it
    result = run_sub(pytester, tiny_site, "-k", "greet")
    result.assert_outcomes(passed=1)
    assert "greeting" in (pytester.path / "reads.txt").read_text()


@pytest.mark.slow
def test_a_conftest_placeholder_overrides_the_project_one(pytester: pytest.Pytester, tiny_site: str) -> None:
    """Conftests are asked before plugins: a suite can point {demo_url} at its own copy."""
    pytester.makeconftest(f"""
        def pytest_reuseit_placeholders(config):
            return {{"demo_url": "{tiny_site}"}}
    """)
    write(pytester, "own.reuseit.yaml", PASS_WF.replace("{base_url}", "{demo_url}"))
    result = run_sub(pytester, tiny_site)
    result.assert_outcomes(passed=1)


@pytest.mark.slow
def test_unknown_placeholder_lists_the_hook_names(pytester: pytest.Pytester) -> None:
    pytester.makeconftest("""
        def pytest_reuseit_placeholders(config):
            return {"greeting": "hi"}
    """)
    write(pytester, "typo.reuseit.yaml", GREET_WF.replace("Type {greeting} and", "Type {greting} and"))
    result = pytester.runpytest("-p", "no:cacheprovider", "--reuseit-llm", "off")
    result.assert_outcomes(failed=1)
    out = output_of(result)
    assert "typo.reuseit.yaml:5: steps[0].action: unknown placeholder {greting} (did you mean '{greeting}'?)" in out


@pytest.mark.slow
def test_placeholders_hook_returning_a_non_mapping_is_a_clear_error(pytester: pytest.Pytester) -> None:
    pytester.makeconftest("""
        def pytest_reuseit_placeholders(config):
            return ["greeting"]
    """)
    write(pytester, "greet.reuseit.yaml", GREET_WF)
    result = pytester.runpytest("-p", "no:cacheprovider", "--reuseit-llm", "off")
    assert result.ret != 0
    assert "pytest_reuseit_placeholders must return a mapping of names to values, not list" in output_of(result)


@pytest.mark.slow
def test_run_start_gets_the_page_before_start_url_opens(pytester: pytest.Pytester, tiny_site: str) -> None:
    """The hook routes the start page: the workflow sees the hook's page, so it ran before the first load."""
    pytester.makeconftest("""
        def pytest_reuseit_run_start(item, page):
            assert item.name == "routed[default]"
            page.route("**/index.html", lambda route: route.fulfill(
                content_type="text/html", body="<p id='out'>served by the hook</p>"))
    """)
    write(
        pytester,
        "routed.reuseit.yaml",
        'name: routed\ntask: read\nstart_url: "{base_url}/index.html"\nsettings: {retries: 0, check_timeout: 0.5}\n'
        "steps:\n  - action: Read\n    do: [{wait: 1}]\n    post: [{expect: {text: {css: '#out', equals: served by the hook}}}]\n",
    )
    result = run_sub(pytester, tiny_site)
    result.assert_outcomes(passed=1)


@pytest.mark.slow
def test_run_start_error_ends_the_item_as_an_error_naming_it(pytester: pytest.Pytester, tiny_site: str) -> None:
    pytester.makeconftest("""
        def pytest_reuseit_run_start(item, page):
            raise RuntimeError("seeding the account failed")
    """)
    write(pytester, "ok.reuseit.yaml", PASS_WF)
    result = run_sub(pytester, tiny_site)
    result.assert_outcomes(failed=1)
    assert "RuntimeError: seeding the account failed" in output_of(result)


@pytest.mark.slow
def test_run_end_sees_each_verdict(pytester: pytest.Pytester, tiny_site: str) -> None:
    pytester.makeconftest("""
        import json, pathlib
        def pytest_reuseit_run_end(item, result):
            line = {"item": item.name, "status": result.status, "workflow": result.workflow,
                    "steps": len(result.steps), "run_status": result.run.status}
            with open(pathlib.Path(__file__).parent / "ends.jsonl", "a") as f:
                f.write(json.dumps(line) + "\\n")
    """)
    write(pytester, "ok.reuseit.yaml", PASS_WF)
    write(pytester, "bad.reuseit.yaml", FAIL_WF)
    write(pytester, "again.reuseit.yaml", RECOVER_WF)
    result = run_sub(pytester, tiny_site)
    result.assert_outcomes(passed=2, failed=1)
    lines = [json.loads(x) for x in (pytester.path / "ends.jsonl").read_text().splitlines()]
    got = {x["item"]: (x["status"], x["run_status"], x["steps"]) for x in lines}
    assert got == {
        "ok[default]": ("passed", "passed", 1),
        "bad[default]": ("failed", "failed", 1),
        "again[default]": ("recovered", "passed", 1),
    }
    assert {x["workflow"] for x in lines} == {"Type and read back", "Expects the wrong text", "Needs preparing first"}


def test_hooks_are_declared_for_every_conftest(pytester: pytest.Pytester) -> None:
    """pytest checks hook names against the declared specs: a misspelt hook is refused, ours are not."""
    pytester.makeconftest("""
        def pytest_reuseit_run_end(item, result): pass
        def pytest_reuseit_run_start(item, page): pass
        def pytest_reuseit_placeholders(config): return {}
        def pytest_reuseit_ops(registry): pass
    """)
    result = pytester.runpytest_inprocess("--collect-only", "-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.NO_TESTS_COLLECTED
    pytester.makeconftest("""
        def pytest_reuseit_run_end(item, result, extra): pass
    """)
    result = pytester.runpytest_inprocess("--collect-only", "-p", "no:cacheprovider")
    assert result.ret != 0
    assert "pytest_reuseit_run_end" in output_of(result)


SITE_PROBE = """
    import json, pathlib, threading
    from pytest_reuseit.plugin import SITES

    def pytest_sessionfinish(session):
        # Before the plugin's unconfigure closes it: is the bundled sites' server running?
        threads = sorted(t.name for t in threading.enumerate())
        started = session.config.stash[SITES].started
        (pathlib.Path(__file__).parent / "probe.json").write_text(json.dumps({"threads": threads, "started": started}))
"""

DEMO_WF = """\
name: Demo shop title
task: open the demo shop
start_url: "{demo_url}/index.html?cookies=never"
steps:
  - action: look
    do: [{wait: 1}]
    post: [{expect: {title: {contains: Trailhead}}}]
"""


@pytest.mark.slow
def test_a_run_against_your_own_site_starts_no_local_server(pytester: pytest.Pytester, tiny_site: str) -> None:
    pytester.makeconftest(SITE_PROBE)
    write(pytester, "own.reuseit.yaml", PASS_WF)
    result = run_sub(pytester, tiny_site)
    result.assert_outcomes(passed=1)
    probe = json.loads((pytester.path / "probe.json").read_text())
    assert probe["started"] is False
    assert "reuseit-sites" not in probe["threads"]


@pytest.mark.slow
def test_the_demo_server_starts_when_a_workflow_uses_demo_url(pytester: pytest.Pytester, tiny_site: str) -> None:
    """The positive control of the test above: the same probe sees the server when it is used."""
    pytester.makeconftest(SITE_PROBE)
    write(pytester, "own.reuseit.yaml", PASS_WF)
    write(pytester, "demo.reuseit.yaml", DEMO_WF)
    result = run_sub(pytester, tiny_site)
    result.assert_outcomes(passed=2)
    probe = json.loads((pytester.path / "probe.json").read_text())
    assert probe["started"] is True
    assert "reuseit-sites" in probe["threads"]


OPS_CONFTEST = """
    def stamp(ctx, arg):
        ctx.page.evaluate("(t) => { document.getElementById('out').textContent = t; }", ctx.render(arg))

    def pytest_reuseit_ops(registry):
        registry.register("stamp", str, "Write a text into the output paragraph.", stamp)
"""

STAMP_WF = """\
name: Stamps through a conftest op
task: stamp
start_url: "{base_url}/index.html"
params: {word: stamped-by-conftest}
settings: {retries: 0, check_timeout: 1}
steps:
  - action: Stamp the word
    do:
      - stamp: "{word}"
    post:
      - expect: {text: {css: "#out", equals: stamped-by-conftest}}
"""


@pytest.mark.slow
def test_ops_hook_registers_an_op_usable_in_do_lists(pytester: pytest.Pytester, tiny_site: str) -> None:
    pytester.makeconftest(OPS_CONFTEST)
    write(pytester, "stamp.reuseit.yaml", STAMP_WF)
    result = run_sub(pytester, tiny_site)
    result.assert_outcomes(passed=1)


def test_ops_hook_op_is_validated_and_gone_without_the_hook(pytester: pytest.Pytester) -> None:
    """The op's argument type is checked at load; a session without the hook does not know the op."""
    pytester.makeconftest(OPS_CONFTEST)
    write(pytester, "bad.reuseit.yaml", STAMP_WF.replace('stamp: "{word}"', "stamp: {css: '#x'}"))
    result = pytester.runpytest_inprocess("-p", "no:cacheprovider", "--reuseit-llm", "off")
    result.assert_outcomes(failed=1)
    assert "bad.reuseit.yaml:9: steps[0].do[0].stamp:" in output_of(result)
    (pytester.path / "conftest.py").unlink()
    write(pytester, "stamp.reuseit.yaml", STAMP_WF)
    result = pytester.runpytest_inprocess("-p", "no:cacheprovider", "--reuseit-llm", "off", "stamp.reuseit.yaml")
    result.assert_outcomes(failed=1)
    assert "unknown" in output_of(result) and "'stamp'" in output_of(result)


def test_ops_hook_registering_a_builtin_name_is_a_usage_error(pytester: pytest.Pytester) -> None:
    pytester.makeconftest("""
        def pytest_reuseit_ops(registry):
            registry.register("click", str, "Mine.", lambda ctx, arg: None)
    """)
    result = pytester.runpytest_inprocess("-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "pytest_reuseit_ops: op 'click' is already registered" in output_of(result)
