"""The quick loop (`pytest -m "not slow"`) stays quick: every test that starts a pytest session or a
command in a subprocess, directly or through a helper or fixture of its module, is marked slow.

Reads the test modules' source (no browser).
"""

from __future__ import annotations

import ast

import pytest

from tests.support.paths import TESTS

_SPAWN = {"run", "Popen", "check_output", "check_call"}


def _spawns(fn: ast.AST) -> bool:
    for node in ast.walk(fn):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            if node.func.attr == "runpytest_subprocess":
                return True
            target = node.func.value
            if isinstance(target, ast.Name) and target.id == "subprocess" and node.func.attr in _SPAWN:
                return True
    return False


def _names_used(fn: ast.FunctionDef) -> set[str]:
    """Functions it calls and fixtures it asks for, by name."""
    used = {n.id for n in ast.walk(fn) if isinstance(n, ast.Name)}
    return used | {a.arg for a in fn.args.args}


def _marked_slow(fn: ast.FunctionDef, module_marks: list[str]) -> bool:
    marks = [ast.unparse(d) for d in fn.decorator_list] + module_marks
    return any(m.startswith("pytest.mark.slow") for m in marks)


def unmarked_spawning_tests(source: str) -> list[str]:
    tree = ast.parse(source)
    funcs = {n.name: n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)}
    # `pytestmark = mark` or a list/tuple of marks: each mark on its own.
    module_marks = [
        ast.unparse(mark)
        for n in tree.body
        if isinstance(n, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "pytestmark" for t in n.targets)
        for mark in (n.value.elts if isinstance(n.value, (ast.List, ast.Tuple)) else [n.value])
    ]
    memo: dict[str, bool] = {}

    def spawns(name: str, seen: frozenset[str]) -> bool:
        if name not in memo:
            fn = funcs[name]
            memo[name] = _spawns(fn) or any(
                spawns(used, seen | {name}) for used in _names_used(fn) if used in funcs and used not in seen
            )
        return memo[name]

    return [
        name
        for name, fn in funcs.items()
        if name.startswith("test_") and spawns(name, frozenset()) and not _marked_slow(fn, module_marks)
    ]


def suite_modules() -> list[str]:
    """Every test module of the suite, by its path under tests/ (the real suites of other tools in
    tests/suites are not ours: conftest.py does not collect them)."""
    modules = (p.relative_to(TESTS).as_posix() for p in TESTS.rglob("test_*.py"))
    return sorted(m for m in modules if not m.startswith("suites/"))


@pytest.mark.parametrize("module", suite_modules())
def test_tests_that_start_subprocesses_are_marked_slow(module: str) -> None:
    missing = unmarked_spawning_tests((TESTS / module).read_text(encoding="utf-8"))
    assert not missing, f"{module}: add @pytest.mark.slow to {', '.join(missing)}"


def test_the_check_finds_an_unmarked_subprocess_test_through_a_fixture() -> None:
    source = """
import subprocess
import pytest

@pytest.fixture
def session():
    return subprocess.run(["true"])

def test_uses_it(session):
    assert session

@pytest.mark.slow
def test_marked(session):
    assert session

def test_quick():
    assert 1
"""
    assert unmarked_spawning_tests(source) == ["test_uses_it"]


def test_a_module_mark_list_holding_slow_marks_its_tests() -> None:
    source = """
import subprocess
import pytest

pytestmark = [pytest.mark.browser, pytest.mark.slow]

def test_spawns():
    subprocess.run(["true"])
"""
    assert unmarked_spawning_tests(source) == []
    assert unmarked_spawning_tests(source.replace(", pytest.mark.slow", "")) == ["test_spawns"]
