"""Playwright's own files: traces and what its recorder writes.

- ``trace.py``: a ``trace.zip`` (Playwright Test's ``--trace on``, pytest-playwright's
  ``--tracing on``), with ``calls.py`` (the browser's calls as steps), ``expects.py`` and
  ``polls.py`` (the test's assertions, ``expect.poll``) and ``snapshots.py`` (the DOM before
  each call, from which the locators are read);
- ``codegen.py``: the JSONL ``playwright codegen --target jsonl`` (and ``reuseit record``) writes.
"""

from __future__ import annotations

from ..source import Source
from . import codegen, trace

TRACE = Source("a Playwright trace (.zip)", trace.in_folder, trace.given, trace.read_file)
CODEGEN = Source("a codegen file (.jsonl)", codegen.in_folder, codegen.given, codegen.read_file)
SOURCES = (TRACE, CODEGEN)
