"""Playwright's driver keeps what Node compiled of it in the user's cache folder (Node's own
NODE_COMPILE_CACHE): every pytest worker and command starts one, 0.2 CPU s less each."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from pytest_reuseit.browser.session import use_node_compile_cache
from tests.support.paths import ROOT


@pytest.fixture
def env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    monkeypatch.delenv("NODE_COMPILE_CACHE", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    return tmp_path


def test_the_cache_goes_in_the_users_cache_folder(env: Path) -> None:
    use_node_compile_cache()
    assert os.environ["NODE_COMPILE_CACHE"] == str(env / "home" / ".cache" / "pytest-reuseit" / "node-compile-cache")


def test_xdg_cache_home_is_the_users_cache_folder(env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(env / "xdg"))
    use_node_compile_cache()
    assert os.environ["NODE_COMPILE_CACHE"] == str(env / "xdg" / "pytest-reuseit" / "node-compile-cache")


def test_a_users_own_setting_is_kept(env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NODE_COMPILE_CACHE", str(env / "mine"))
    use_node_compile_cache()
    assert os.environ["NODE_COMPILE_CACHE"] == str(env / "mine")


def test_a_relative_cache_home_is_not_used(env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The XDG rule: a relative path is invalid (it would land in whatever folder pytest runs in)."""
    monkeypatch.setenv("XDG_CACHE_HOME", "cache")
    use_node_compile_cache()
    assert "NODE_COMPILE_CACHE" not in os.environ


START = """
from pytest_reuseit.browser.session import _acquire_driver, _release_driver
import threading
_acquire_driver()
_release_driver(threading.get_ident())
"""


@pytest.mark.slow
def test_the_driver_fills_the_cache_when_it_starts(env: Path) -> None:
    child = {**os.environ, "XDG_CACHE_HOME": str(env / "xdg")}
    child.pop("NODE_COMPILE_CACHE", None)
    subprocess.run([sys.executable, "-c", START], cwd=ROOT, env=child, check=True, timeout=60)
    cached = list((env / "xdg" / "pytest-reuseit" / "node-compile-cache").rglob("*"))
    assert any(p.is_file() and p.stat().st_size > 0 for p in cached), cached


@pytest.mark.slow
def test_a_cache_folder_that_cannot_be_written_costs_only_the_cache(env: Path) -> None:
    (env / "file").write_text("not a folder")
    child = {**os.environ, "XDG_CACHE_HOME": str(env / "file")}  # its cache folder cannot be made
    child.pop("NODE_COMPILE_CACHE", None)
    done = subprocess.run(
        [sys.executable, "-c", START], cwd=ROOT, env=child, timeout=60, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
