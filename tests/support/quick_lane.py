"""The quick lane stays quick: a test not marked ``slow`` whose setup, call or teardown takes the
limit or longer fails the session, each one named with its time.

The promise is 1 s (the ``slow`` mark's "a second or more"). The limit is 2 s in the quick lane
(``-m "not slow"``), so that a shared or slower machine does not fail a test that takes 0.8 s on a
quiet one, and 8 s in any other session (CI's whole suite): beside the slow tests' browsers and
subprocesses a 0.3 s test was once measured at 2.2 s on a busy machine, and a CI that fails on
noise lands nothing; a test that takes 8 s unmarked is mis-marked whatever the machine. ``REUSEIT_QUICK_LIMIT``
(seconds) sets another limit for every session; 0 turns the check off.

On a machine that other programs keep busy a test's wall time stretches with their load: the limit
stretches with it, by the machine's load average over its cores when that is above 1 (a 2-core
machine at load 8 gives a test 4 times as long), so a shared machine does not fail the lane that
an idle one passes. The lane's CPU is what to watch there (the session's own line, machine_time.py).
"""

from __future__ import annotations

import os
from collections.abc import Callable

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


def machine_load() -> float:
    """How many times over the machine's cores are asked for (1-minute load average), 1 at least."""
    try:
        return max(1.0, os.getloadavg()[0] / (os.cpu_count() or 1))
    except OSError:
        return 1.0


class QuickLane:
    """A plugin: register it on the process that sees every report (the controller under xdist)."""

    def __init__(self, limit: float, load: Callable[[], float] = machine_load) -> None:
        self.limit = limit
        self.load = load
        self.stretched = 1.0  # the most the limit was stretched for a test named (the summary says so)
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
            stretch = self.load()
            if report.duration >= self.limit * stretch:
                self.too_slow.append((report.nodeid, report.when, report.duration))
                self.stretched = max(self.stretched, stretch)

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        if self.too_slow and session.exitstatus == pytest.ExitCode.OK:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED

    def pytest_terminal_summary(self, terminalreporter: pytest.TerminalReporter) -> None:
        if not self.too_slow:
            return
        terminalreporter.section("quick lane: tests not marked slow took too long", red=True)
        for nodeid, phase, seconds in self.too_slow:
            terminalreporter.line(f"{nodeid} ({phase}): {seconds:.2f}s >= {self.limit:g}s")
        if self.stretched > 1:
            terminalreporter.line(
                f"(the limit was stretched up to {self.stretched:.1f}x for the machine's load, and still ran out)"
            )
        terminalreporter.line(
            "Make them quick (share the browser or the app per module, await a condition instead of "
            "sleeping) or mark them @pytest.mark.slow. REUSEIT_QUICK_LIMIT sets the limit (0: off)."
        )
