"""The suite's time beside the machine's ceiling, measured in the same run.

A whole run's minutes move with the machine (these are shared, noisy ones), so a figure alone
says little. At the end of a session this prints how busy the machine's cores were meanwhile
(Linux's ``/proc/stat``, every process: the browsers, the Node.js drivers and the pytest sessions
the tests start) and how long the CPU work alone would have taken with every core busy, the
floor no reordering of waits gets under. The wall time over that floor is what waits cost: the
timeouts a test's question needs, the pauses of a test that starts a program. On a machine doing
other work too, the busy share counts that work as well: the floor then reads high and the ratio
low (the run is at least that far from its own floor). So a second line gives the session's own
CPU (the controller, each xdist worker and what they started and waited for: browsers, their
drivers, the sessions and programs tests run), the figure that holds on a shared machine.
"""

from __future__ import annotations

import os
import resource
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

PROC_STAT = Path("/proc/stat")


@dataclass(frozen=True)
class CpuTimes:
    """The machine's CPU time since boot, in core-seconds, and its cores."""

    busy: float
    idle: float
    cores: int


def parse_stat(text: str, ticks_per_s: float) -> CpuTimes | None:
    """The all-cores ``cpu`` line of ``/proc/stat`` (idle is idle + iowait, busy the rest but guest
    time, already counted in user time) and how many ``cpuN`` lines follow it."""
    lines = [line.split() for line in text.splitlines()]
    total = next((fields for fields in lines if fields[:1] == ["cpu"]), None)
    cores = sum(1 for fields in lines if fields and fields[0][3:].isdigit() and fields[0].startswith("cpu"))
    if total is None or cores == 0:
        return None
    try:
        values = [int(v) for v in total[1:9]]  # user nice system idle iowait irq softirq steal
    except ValueError:
        return None
    if len(values) < 5:
        return None
    idle = values[3] + values[4]
    return CpuTimes(busy=(sum(values) - idle) / ticks_per_s, idle=idle / ticks_per_s, cores=cores)


def read_cpu() -> CpuTimes | None:
    try:
        ticks = float(os.sysconf("SC_CLK_TCK"))
        return parse_stat(PROC_STAT.read_text(encoding="ascii"), ticks)
    except (OSError, ValueError):
        return None


def summary(wall_s: float, before: CpuTimes, after: CpuTimes) -> str | None:
    """One line: the cores' busy share during ``wall_s`` and the run's time over its CPU floor."""
    busy, idle = after.busy - before.busy, after.idle - before.idle
    total = busy + idle
    if wall_s <= 0 or busy <= 0 or total <= 0:
        return None
    cores = after.cores
    floor = busy / cores
    return (
        f"machine: {cores} cores busy {_n(busy)} of {_n(total)} core-seconds ({busy / total:.0%}) "
        f"in {_n(wall_s)} s; the CPU work alone needs {_n(floor)} s with every core busy: "
        f"this run took {wall_s / floor:.2f}x that"
    )


def _n(value: float) -> str:
    """Whole numbers for a suite's minutes, a tenth for a session of seconds."""
    return f"{value:.0f}" if value >= 100 else f"{value:.1f}"


WORKER_CPU_KEY = "reuseit_cpu_s"


def process_cpu(children: bool = True) -> float:
    """User and system seconds of this process, and of its children it waited for (``children``)."""
    who = [resource.RUSAGE_SELF, *([resource.RUSAGE_CHILDREN] if children else [])]
    return sum(u.ru_utime + u.ru_stime for u in map(resource.getrusage, who))


def own_line(cpu_s: float, workers: int) -> str:
    where = f"the controller and {workers} worker(s)" if workers else "pytest"
    return f"session: its own processes ({where}, the browsers and programs they started) used {_n(cpu_s)} CPU seconds"


class WorkerCpu:
    """A plugin for each xdist worker: its CPU, browsers closed and subprocesses waited for by the
    end of its session, goes back to the controller."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config

    def pytest_sessionfinish(self) -> None:
        self.config.workeroutput[WORKER_CPU_KEY] = process_cpu()  # type: ignore[attr-defined]


class MachineTime:
    """A plugin for the process that runs the session (the controller under xdist)."""

    def __init__(self) -> None:
        self.started = time.monotonic()
        self.before = read_cpu()
        self.workers: list[float] = []

    def pytest_testnodedown(self, node: object, error: object) -> None:
        found = getattr(node, "workeroutput", {}).get(WORKER_CPU_KEY)
        if isinstance(found, float):
            self.workers.append(found)

    def pytest_terminal_summary(self, terminalreporter: pytest.TerminalReporter) -> None:
        after = read_cpu()
        if self.before is not None and after is not None:
            line = summary(time.monotonic() - self.started, self.before, after)
            if line:
                terminalreporter.write_line(line)
        # Under xdist the workers tell their own (the controller may not have waited for them yet).
        own = process_cpu(children=not self.workers) + sum(self.workers)
        terminalreporter.write_line(own_line(own, len(self.workers)))
