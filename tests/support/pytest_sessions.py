"""A pytest session of workflow files through pytester, as the plugin's tests run one: ``write`` a
file into pytester's folder, ``run_sub`` pytest on it against a site (no cache, no model, no
trace unless asked), ``output_of`` what it printed, ``summary_line`` the reuseit summary's counts.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest


def write(pytester: pytest.Pytester, name: str, text: str) -> Path:
    path = pytester.path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def run_sub(pytester: pytest.Pytester, site: str, *args: str) -> pytest.RunResult:
    """Run pytest in a subprocess against the tiny site: no cache, no model; no trace unless asked (speed)."""
    trace = () if "--reuseit-trace" in args else ("--reuseit-trace", "off")
    return pytester.runpytest("-p", "no:cacheprovider", "--reuseit-llm", "off", *trace, "--base-url", site, *args)


def output_of(result: pytest.RunResult) -> str:
    return result.stdout.str() + "\n" + result.stderr.str()


SUMMARY = re.compile(r"^\d+ passed, \d+ recovered, \d+ healed, \d+ failed, \d+ broken  \(\d+ workflow runs\)$")


def summary_line(text: str | pytest.RunResult) -> str:
    """The counts line under the 'reuseit summary' header."""
    lines = text.stdout.lines if isinstance(text, pytest.RunResult) else text.splitlines()
    start = next(i for i, line in enumerate(lines) if re.search(r"=+ reuseit summary =+", line))
    return next(line for line in lines[start + 1 :] if SUMMARY.match(line))
