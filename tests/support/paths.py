"""Where the repository's files are, for a test module in any folder under tests/."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]  # the repository: workflows/, docs/, ci/, node_modules/
TESTS = ROOT / "tests"
PAGES = TESTS / "pages"  # what tests/conftest.py serves at pages_url
