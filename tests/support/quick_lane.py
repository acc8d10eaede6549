"""The quick lane stays quick: a test not marked ``slow`` whose setup, call or teardown takes the
limit or longer fails the session, each one named with its time.

The promise is 1 s (the ``slow`` mark's "a second or more"). The limit is 2 s in the quick lane
(``-m "not slow"``), so that a shared or slower machine does not fail a test that takes 0.8 s on a
quiet one, and 8 s in any other session (CI's whole suite): beside the slow tests' browsers and
subprocesses a 0.3 s test was once measured at 2.2 s on a busy machine, and a CI that fails on
noise lands nothing; a test that takes 8 s unmarked is mis-marked whatever the machine. ``REUSEIT_QUICK_LIMIT``
(seconds) sets another limit for every session; 0 turns the check off.
"""

from __future__ import annotations

import os

import pytest

QUICK_LANE_LIMIT = 2.0
OTHER_SESSION_LIMIT = 8.0


def is_quick_lane(markexpr: str) -> bool:
    return " ".join(markexpr.split()) == "not slow"


def limit_from_env(quick_lane: bool) -> float:
    raw = os.environ.get("REUSEIT_QUICK_LIMIT", "")
    try:
        return float(raw) if raw else QUICK_LANE_LIMIT if quick_lane else OTHER_SESSION_LIMIT
    except ValueError:
        raise pytest.UsageError(
            f"REUSEIT_QUICK_LIMIT={raw!r}: write a number of seconds (0 turns the check off)"
        ) from None


class QuickLane:
    """A plugin: register it on the process that sees every report (the controller under xdist)."""

    def __init__(self, limit: float) -> None:
        self.limit = limit
        self.too_slow: list[tuple[str, str, float]] = []  # (test, phase, seconds)
        self.set_up: set[tuple[str, str]] = set()  # (worker, module) whose first test was set up

    def _shared_setup(self, report: pytest.TestReport) -> bool:
        """The first setup of a module on a worker also starts what the module or session shares (a
        browser, a server): a cost of them all, not of that test."""
        worker = getattr(getattr(getattr(report, "node", None), "gateway", None), "id", "")
        key = (worker, report.nodeid.split("::")[0])
        first = key not in self.set_up
        self.set_up.add(key)
        return first

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        # A failing test is reported as such already; a skipped one took no time worth naming.
        if self.limit <= 0 or not report.passed or "slow" in report.keywords:
            return
        if report.when == "setup" and self._shared_setup(report):
            return
        if report.duration >= self.limit:
            self.too_slow.append((report.nodeid, report.when, report.duration))

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        if self.too_slow and session.exitstatus == pytest.ExitCode.OK:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED

    def pytest_terminal_summary(self, terminalreporter: pytest.TerminalReporter) -> None:
        if not self.too_slow:
            return
        terminalreporter.section("quick lane: tests not marked slow took too long", red=True)
        for nodeid, phase, seconds in self.too_slow:
            terminalreporter.line(f"{nodeid} ({phase}): {seconds:.2f}s >= {self.limit:g}s")
        terminalreporter.line(
            "Make them quick (share the browser or the app per module, await a condition instead of "
            "sleeping) or mark them @pytest.mark.slow. REUSEIT_QUICK_LIMIT sets the limit (0: off)."
        )
