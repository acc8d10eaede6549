"""Pytest fixtures around :class:`~tests.support.llm_server.FakeLLM`.

Import them in a conftest (``from tests.support.fixtures import fake_llm, fake_llm_env``) or
list the module in ``pytest_plugins``. Each test gets its own server on a fresh port, so rules
and request logs never leak between tests (and xdist workers never collide).
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.llm_server import FakeLLM

__all__ = ["fake_llm", "fake_llm_env"]


@pytest.fixture
def fake_llm() -> Iterator[FakeLLM]:
    """A started FakeLLM with no rules; closed (hangs cut short) when the test ends."""
    with FakeLLM() as fake:
        yield fake


@pytest.fixture
def fake_llm_env(fake_llm: FakeLLM, monkeypatch: pytest.MonkeyPatch) -> FakeLLM:
    """``fake_llm`` plus ``OPENAI_BASE_URL``/``OPENAI_API_KEY`` pointing at it.

    For tests that exercise the plugin's own client construction, which reads the environment.
    """
    monkeypatch.setenv("OPENAI_BASE_URL", fake_llm.base_url)
    monkeypatch.setenv("OPENAI_API_KEY", fake_llm.api_key or "test-key")
    return fake_llm
