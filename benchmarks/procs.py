"""A process and those under it, read from Linux's /proc: the benchmarks' memory (PSS) and CPU of
a browser, a Grid node or a pytest worker with everything it started."""

from __future__ import annotations

import os


def children() -> dict[int, list[int]]:
    """Parent pid -> its children's pids, every process now."""
    tree: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as fh:
                ppid = int(fh.read().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        tree.setdefault(ppid, []).append(int(entry))
    return tree


def descendants(pid: int, tree: dict[int, list[int]]) -> list[int]:
    out, todo = [], [pid]
    while todo:
        for child in tree.get(todo.pop(), []):
            out.append(child)
            todo.append(child)
    return out


def pss_kb(pid: int) -> int:
    """Proportional set size: shared pages (Chromium's processes share many) counted once in all."""
    try:
        with open(f"/proc/{pid}/smaps_rollup") as fh:
            for line in fh:
                if line.startswith("Pss:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def cpu_ticks(pid: int) -> int:
    """User + system clock ticks of ``pid``, the finished children it waited for included."""
    try:
        with open(f"/proc/{pid}/stat") as fh:
            fields = fh.read().rsplit(")", 1)[1].split()
        return sum(int(f) for f in fields[11:15])
    except (OSError, ValueError, IndexError):
        return 0
