"""The suite's time beside the machine's CPU floor (tests/support/machine_time.py): the line read
from /proc/stat text, and the line a real session prints."""

from __future__ import annotations

import os
import re

import pytest

from tests.support.machine_time import PROC_STAT, CpuTimes, MachineTime, parse_stat, summary

# /proc/stat's all-cores line: user nice system idle iowait irq softirq steal guest guest_nice.
STAT = """cpu  1000 50 250 3000 100 0 100 0 400 0
cpu0 500 25 125 1500 50 0 50 0 200 0
intr 12345
"""


def test_busy_is_everything_but_idle_and_iowait_and_guest_is_not_counted_twice() -> None:
    times = parse_stat(STAT, ticks_per_s=100)
    assert times == CpuTimes(busy=14.0, idle=31.0, cores=1)  # (1000+50+250+100)/100, (3000+100)/100
    two = parse_stat(STAT.replace("intr", "cpu1 500 25 125 1500 50 0 50 0 200 0\nintr"), ticks_per_s=100)
    assert two is not None and two.cores == 2


@pytest.mark.parametrize(
    "text", ["", "intr 1 2 3\n", "cpu  a b c d e\ncpu0 1\n", "cpu  1 2 3\ncpu0 1\n", "cpu  1 2 3 4 5\n"]
)
def test_a_stat_without_a_readable_cpu_line_gives_nothing(text: str) -> None:
    assert parse_stat(text, ticks_per_s=100) is None


def test_the_floor_is_the_busy_time_spread_over_every_core() -> None:
    # 100 s on 2 cores: 200 core-seconds, 140 busy; with both busy the work needs 70 s.
    line = summary(100.0, CpuTimes(busy=10.0, idle=5.0, cores=2), CpuTimes(busy=150.0, idle=65.0, cores=2))
    assert line == (
        "machine: 2 cores busy 140 of 200 core-seconds (70%) in 100 s; the CPU work alone needs "
        "70.0 s with every core busy: this run took 1.43x that"
    )


def test_no_line_when_nothing_was_measured() -> None:
    same = CpuTimes(busy=10.0, idle=5.0, cores=2)
    assert summary(100.0, same, same) is None
    assert summary(0.0, same, CpuTimes(busy=20.0, idle=5.0, cores=2)) is None


@pytest.mark.skipif(not PROC_STAT.is_file(), reason="no /proc/stat on this system")
def test_a_session_ends_with_the_line_measured_on_this_machine(pytester: pytest.Pytester) -> None:
    pytester.makepyfile("def test_spin():\n    sum(range(3_000_000))\n")
    result = pytester.runpytest("-p", "no:cacheprovider", plugins=[MachineTime()])
    result.assert_outcomes(passed=1)
    (line,) = [line for line in result.stdout.lines if line.startswith("machine: ")]
    found = re.fullmatch(
        r"machine: (\d+) cores busy ([\d.]+) of ([\d.]+) core-seconds \((\d+)%\) in ([\d.]+) s; "
        r"the CPU work alone needs ([\d.]+) s with every core busy: this run took (\d+\.\d\d)x that",
        line,
    )
    assert found, line
    # Every core of the machine counted: the busy time is shared out over all of them. (The ratio
    # of a session this short is not asserted: /proc/stat counts in ticks of 10 ms, read at other
    # moments than the session's clock.)
    assert int(found.group(1)) == os.cpu_count(), line
    assert float(found.group(2)) <= float(found.group(3)), line  # busy is a share of the total
    # The session's own CPU, whatever else the machine does: at least the spin it ran.
    (own,) = [line for line in result.stdout.lines if line.startswith("session: ")]
    spent = re.fullmatch(r"session: its own processes \(pytest, [^)]*\) used ([\d.]+) CPU seconds", own)
    assert spent and float(spent.group(1)) > 0, own
