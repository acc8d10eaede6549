"""Each fact has one definition: the docs' tables and the code's lists are checked against it,
and a second copy of a list in the package's code fails here.

No browser and no model: these tests read files and import modules.
"""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path
from typing import Any

import pytest

from pytest_reuseit import settings
from pytest_reuseit.atomic import write_text_atomic
from pytest_reuseit.browser import assertions
from pytest_reuseit.engine.context import RunOptions
from pytest_reuseit.engine.result import CATEGORIES
from pytest_reuseit.llm.agent import _ON_ELEMENT
from pytest_reuseit.llm.client import LlmConfig
from pytest_reuseit.llm.schemas import AGENT_ACTIONS, SCHEMAS, AgentAction
from pytest_reuseit.report.allure_files import CATEGORY_TITLES, categories
from pytest_reuseit.workflow import ops as op_registry
from pytest_reuseit.workflow.checks import EXPECT_KEYS
from pytest_reuseit.workflow.loader import FILE_PATTERNS
from pytest_reuseit.workflow.settings import Settings as WorkflowSettings
from tests.support.paths import ROOT

PACKAGE = ROOT / "pytest_reuseit"
DOCS = (ROOT / "docs" / "workflow-format.md").read_text(encoding="utf-8")
README = (ROOT / "README.md").read_text(encoding="utf-8")


def _section(text: str, heading: str) -> str:
    """The text under a markdown heading, up to the next heading of any level."""
    start = text.index(heading)
    rest = text[start + len(heading) :]
    end = re.search(r"^#", rest, re.M)
    return rest[: end.start()] if end else rest


def _first_column_names(section: str) -> list[str]:
    """Backticked names in the first column of the section's table."""
    names: list[str] = []
    for line in section.splitlines():
        if line.startswith("| `"):
            names.extend(re.findall(r"`([a-z_]+)`", line.split("|")[1]))
    return names


def _sources() -> list[tuple[str, str]]:
    return [(str(p.relative_to(ROOT)), p.read_text(encoding="utf-8")) for p in sorted(PACKAGE.rglob("*.py"))]


def _objects(node: Any) -> list[dict[str, Any]]:
    if isinstance(node, list):
        return [o for item in node for o in _objects(item)]
    if not isinstance(node, dict):
        return []
    own = [node] if node.get("type") == "object" else []
    return own + [o for value in node.values() for o in _objects(value)]


# --------------------------------------------------------------------------- the docs follow the code


def test_docs_list_the_challenge_categories_of_the_code_in_order() -> None:
    paragraph = DOCS[DOCS.index("and a *category*:") :].split("\n\n")[0]
    assert tuple(re.findall(r"`([a-z_]+)`", paragraph)) == CATEGORIES


def test_docs_ops_table_names_every_op_of_the_model_and_no_other() -> None:
    names = _first_column_names(_section(DOCS, "## Deterministic ops"))
    assert sorted(names) == sorted(op_registry.names())


def test_docs_expect_table_names_every_assertion_of_the_model_and_no_other() -> None:
    names = _first_column_names(_section(DOCS, "## DOM assertions"))
    assert sorted(names) == sorted(EXPECT_KEYS)


def test_every_assertion_of_the_model_has_a_judge_and_no_judge_is_left_over() -> None:
    # A key the loader accepts but nothing judges would fail every check using it at run time.
    judged = set(assertions._ASSERTIONS) | set(assertions.PAGE_HOLDER_KEYS)
    assert sorted(judged) == sorted(EXPECT_KEYS)
    assert not set(assertions._ASSERTIONS) & set(assertions.PAGE_HOLDER_KEYS)


def test_docs_agent_action_enum_is_the_code_s() -> None:
    line = next(ln for ln in DOCS.splitlines() if ln.startswith("- `agent_action`:"))
    enum = re.search(r'"action": ((?:"[a-z_]+"\|?)+)', line)
    assert enum is not None, line
    assert tuple(re.findall(r'"([a-z_]+)"', enum.group(1))) == AGENT_ACTIONS


@pytest.mark.parametrize("name", sorted(SCHEMAS))
def test_docs_describe_every_model_answer_with_its_fields(name: str) -> None:
    line = next((ln for ln in DOCS.splitlines() if ln.startswith(f"- `{name}`")), None)
    assert line is not None, f"docs/workflow-format.md does not describe the model answer {name}"
    fields = {key for obj in _objects(SCHEMAS[name][0]) for key in obj["properties"]}
    # Field names: "name": or the short {"name", "value"} form; enum members are joined by |.
    documented = set(re.findall(r'(?<!\|)"([a-z_]+)"(?=[:,}])', line))
    assert documented == fields, f"{name}: docs {sorted(documented)} vs code {sorted(fields)}"


def test_docs_settings_defaults_are_the_model_s() -> None:
    top = _section(DOCS, "## Top level")
    shown = dict(re.findall(r"(\w+): (\d+)", re.search(r"settings: \{([^}]*)\}", top).group(1)))  # type: ignore[union-attr]
    assert shown, "the settings example lost its values"
    defaults = WorkflowSettings()
    for key, value in shown.items():
        assert float(value) == getattr(defaults, key), key
    assert f"action_timeout` (seconds an op waits for its element, default {defaults.action_timeout:g})" in DOCS


def test_readme_option_defaults_are_the_plugin_s() -> None:
    checked = 0
    for row in README.splitlines():
        if "see below" in row:
            continue
        flags = re.findall(r"`--reuseit-([a-z-]+)", row.split("|")[1] if row.startswith("|") else "")
        for flag in flags:
            name = flag.replace("-", "_")
            default = settings.OPTIONS.get(name, ("", None, ""))[2]
            if default:
                assert default in row, f"README: --reuseit-{flag} default is {default!r}: {row}"
                checked += 1
    assert checked >= 10
    files_row = next(row for row in README.splitlines() if "`reuseit_files`" in row)
    assert f"`{' '.join(FILE_PATTERNS)}`" in files_row


# --------------------------------------------------------------------------- derived definitions


def test_settings_defaults_come_from_the_engine_and_the_model_client() -> None:
    got = settings.defaults()
    run, llm = RunOptions(), LlmConfig()
    assert (got.screenshots, got.jpeg_quality, got.screenshot_width, got.page_text) == (
        run.screenshots,
        run.jpeg_quality,
        run.max_width,
        run.page_text_chars,
    )
    assert (got.model, got.cache, got.llm, got.llm_timeout, got.llm_retries, got.llm_backoff) == (
        llm.model,
        llm.cache_dir,
        llm.mode,
        llm.timeout,
        llm.retries,
        llm.backoff,
    )
    assert got.files == FILE_PATTERNS


def test_allure_categories_cover_exactly_the_challenge_categories() -> None:
    assert set(CATEGORY_TITLES) == set(CATEGORIES)
    failures = [c for c in categories() if c["matchedStatuses"] != ["passed"]]
    assert [c["messageRegex"] for c in failures] == [rf"(?s)[^\n]*\[{c}\].*" for c in CATEGORIES]


def test_agent_actions_on_elements_are_agent_actions() -> None:
    assert set(_ON_ELEMENT) <= set(AGENT_ACTIONS)
    assert SCHEMAS["agent_action"][0]["properties"]["action"]["enum"] == list(AGENT_ACTIONS)
    assert AgentAction.model_fields["action"].annotation is not str


@pytest.mark.parametrize("name", sorted(SCHEMAS))
def test_answer_schemas_are_strict_and_match_their_models(name: str) -> None:
    schema, model = SCHEMAS[name]
    objects = _objects(schema)
    assert objects and objects[0] is schema
    for obj in objects:
        assert obj["additionalProperties"] is False
        assert obj["required"] == list(obj["properties"])
    assert "$ref" not in repr(schema) and "$defs" not in schema
    assert list(schema["properties"]) == list(model.model_fields)


# --------------------------------------------------------------------------- no second copy in the code


def _joined(names: tuple[str, ...], at_least: int) -> re.Pattern[str]:
    """``at_least`` of ``names`` written one after another as code: quoted items of a list, tuple
    or Literal, or the alternatives of a regex (prose that names a few of them is not a copy)."""
    name = "(?:" + "|".join(map(re.escape, names)) + ")"
    quoted = f"[\"']{name}[\"']"
    more = at_least - 1
    return re.compile(rf"{quoted}(?:\s*[,|]\s*{quoted}){{{more},}}|\b{name}(?:\|{name}){{{more},}}\b")


@pytest.mark.parametrize(
    ("what", "pattern", "home"),
    [
        ("the challenge categories", _joined(CATEGORIES, 4), {"pytest_reuseit/engine/result.py"}),
        ("the agent's actions", _joined(AGENT_ACTIONS, 5), {"pytest_reuseit/llm/schemas.py"}),
        ("the workflow file patterns", re.compile(r"\*\.reuseit\.yml\b"), {"pytest_reuseit/workflow/loader.py"}),
        ("an atomic write", re.compile(r"os\.replace\("), {"pytest_reuseit/atomic.py"}),
        ("a hand-written strict JSON Schema", re.compile(r"[\"']additionalProperties[\"']\s*:\s*False"), set()),
        (
            "the default model name",
            re.compile(r"[\"']gpt-4o-mini[\"']\s*[,)]?\s*$", re.M),
            {"pytest_reuseit/llm/client.py"},
        ),
    ],
    ids=["categories", "agent-actions", "file-patterns", "atomic-write", "strict-schema", "model-name"],
)
def test_no_second_copy_in_the_package(what: str, pattern: re.Pattern[str], home: set[str]) -> None:
    found = {path for path, text in _sources() if pattern.search(text)}
    assert found <= home, f"{what} written again in {sorted(found - home)}: use the definition in {sorted(home)}"


def test_the_copy_detector_sees_a_copy() -> None:
    """The patterns above are not vacuous: each finds the definition it protects."""
    texts = dict(_sources())
    assert _joined(CATEGORIES, 4).search(texts["pytest_reuseit/engine/result.py"])
    assert _joined(AGENT_ACTIONS, 5).search(texts["pytest_reuseit/llm/schemas.py"])
    assert _joined(AGENT_ACTIONS, 5).search('re.compile(r"^(click|fill|select|press|scroll|hover)(\\s|$)")')


# --------------------------------------------------------------------------- the one atomic write


def test_atomic_write_replaces_content_keeps_mode_and_leaves_no_temp_file(tmp_path: Path) -> None:
    target = tmp_path / "deep" / "file.yaml"
    write_text_atomic(target, "one\r\n")
    assert target.read_bytes() == b"one\r\n"
    os.chmod(target, 0o640)
    write_text_atomic(target, "two\n")
    assert target.read_text(encoding="utf-8") == "two\n"
    assert stat.S_IMODE(target.stat().st_mode) == 0o640
    assert [p.name for p in target.parent.iterdir()] == ["file.yaml"]


def test_atomic_write_that_fails_keeps_the_old_content(tmp_path: Path) -> None:
    target = tmp_path / "file.txt"
    target.write_text("old", encoding="utf-8")
    with pytest.raises(UnicodeEncodeError):
        write_text_atomic(target, "bad \udcff surrogate")
    assert target.read_text(encoding="utf-8") == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["file.txt"]
