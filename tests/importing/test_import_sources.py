"""The sources ``reuseit import`` reads, as the registry lists them (importing/registry.py).

A source family is a folder under ``importing/`` that declares its sources (``SOURCES``); the
shared machinery is the modules beside those folders. Every declared source is registered, every
registered one comes from its folder, and each reads its own kind of file, found in a folder or
given by name (docs/import.md, "Adding a source")."""

from __future__ import annotations

import importlib
import json
import shutil
from pathlib import Path

import pytest

from pytest_reuseit import importing
from pytest_reuseit.importing import chrome, playwright, selenium
from pytest_reuseit.importing.registry import SOURCES, find_sources, source_of
from pytest_reuseit.importing.source import Source
from tests.support import katalon_suites, side_projects
from tests.support.paths import TESTS

PACKAGE = Path(importing.__file__).parent


def test_the_sources_are_listed_in_the_order_a_file_given_by_name_is_offered_to_them() -> None:
    assert [s.name for s in SOURCES] == [
        "a Playwright trace (.zip)",
        "a codegen file (.jsonl)",
        "a Selenium IDE project (.side)",
        "a Katalon Recorder test suite (.html)",
        "a Chrome DevTools recording (.json)",
    ]
    assert (*playwright.SOURCES, *selenium.SOURCES, *chrome.SOURCES) == SOURCES


def _families() -> dict[str, tuple[Source, ...]]:
    """Each folder under importing/ and the sources it declares (a folder that declares none is
    said by the test: a family must declare its sources, and the shared machinery is modules)."""
    out: dict[str, tuple[Source, ...]] = {}
    for folder in sorted(p for p in PACKAGE.iterdir() if p.is_dir() and p.name != "__pycache__"):
        module = importlib.import_module(f"{importing.__name__}.{folder.name}")
        out[folder.name] = tuple(getattr(module, "SOURCES", ()))
    return out


def test_every_folder_under_importing_is_a_registered_source_family_and_every_source_has_its_folder() -> None:
    families = _families()
    assert families, "no source family under importing/"
    undeclared = [name for name, sources in families.items() if not sources]
    assert not undeclared, f"folders under importing/ that declare no SOURCES: {undeclared}"
    for name, sources in families.items():
        unregistered = [s.name for s in sources if s not in SOURCES]
        assert not unregistered, f"importing/{name}/ declares sources registry.SOURCES does not list: {unregistered}"
    declared = [s for sources in families.values() for s in sources]
    strays = [s.name for s in SOURCES if s not in declared]
    assert not strays, f"registry.SOURCES lists sources no folder under importing/ declares: {strays}"
    assert len(SOURCES) == len(set(SOURCES)), "a source registered twice"
    for name, sources in families.items():
        for s in sources:
            for part in (s.in_folder, s.given, s.read):
                assert part.__module__.startswith(f"{importing.__name__}.{name}."), (s.name, part)


def _one_of_each(folder: Path) -> dict[str, Path]:
    """A small file of each source, as its tool writes it."""
    folder.mkdir()
    trace = folder / "todo" / "trace.zip"
    trace.parent.mkdir()
    shutil.copy(TESTS / "fixtures" / "traces" / "playwright-1.64.0.zip", trace)
    codegen = folder / "rec.jsonl"
    codegen.write_text(
        json.dumps({"name": "openPage", "url": "http://127.0.0.1:1/", "signals": []})
        + "\n"
        + json.dumps({"name": "click", "selector": "#add", "signals": []})
        + "\n"
    )
    side = side_projects.write(folder / "shop.side", side_projects.shop_project("http://127.0.0.1:1"))
    katalon = katalon_suites.write(folder / "shop.html", katalon_suites.shop_suite("http://127.0.0.1:1"))
    chrome_rec = folder / "recording.json"
    chrome_rec.write_text(json.dumps({"title": "add", "steps": [{"type": "navigate", "url": "http://127.0.0.1:1/"}]}))
    (folder / "notes.txt").write_text("not a source")
    (folder / "data.json").write_text('{"a": 1}')
    return {
        "a Playwright trace (.zip)": trace,
        "a codegen file (.jsonl)": codegen,
        "a Selenium IDE project (.side)": side,
        "a Katalon Recorder test suite (.html)": katalon,
        "a Chrome DevTools recording (.json)": chrome_rec,
    }


def test_each_source_tells_its_own_file_in_a_folder_and_given_by_name_and_reads_it(tmp_path: Path) -> None:
    files = _one_of_each(tmp_path / "sources")
    assert set(files) == {s.name for s in SOURCES}, "a registered source with no file in this test"
    assert find_sources([str(tmp_path / "sources")]) == sorted(files.values())
    for name, path in files.items():
        source = source_of(path)
        assert source.name == name, path
        demos = source.read(path)
        assert demos and all(d.steps or d.failed for d in demos), path


@pytest.mark.parametrize("source", SOURCES, ids=lambda s: s.name)
def test_no_source_takes_a_file_no_source_reads(tmp_path: Path, source: Source) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text("hello")
    assert not source.in_folder(notes)
    assert not source.given(notes, b"he")
