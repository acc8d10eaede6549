"""``reuseit trace PATH``: Playwright's trace viewer, served from the installed package, offline.

``playwright show-trace`` opens the viewer in a browser Playwright downloads, which a machine set
up from the README does not have. Its server works without that browser: this command starts it
on 127.0.0.1, prints the address, and opens it in the system Chromium when there is a display.
"""

from __future__ import annotations

import argparse
import os
import re
import signal
import subprocess
import sys
import time
import zipfile
from pathlib import Path

from ..browser.session import default_executable

_LISTENING = re.compile(r"Listening on (http://\S+)")


def start_viewer(trace: Path, port: int = 0, timeout: float = 60) -> tuple[subprocess.Popen[str], str]:
    """Start the trace viewer's server for ``trace``; return the process and the viewer's address."""
    cmd = [sys.executable, "-m", "playwright", "show-trace", "--host", "127.0.0.1", "--port", str(port), str(trace)]
    # BROWSER=true: the server's own attempt to open a browser tab does nothing; we open it ourselves.
    env = {**os.environ, "BROWSER": "true"}
    # A session of its own: ``python -m playwright`` runs the server in a Node child, which must go
    # when the viewer is stopped (see stop_viewer), not linger as an orphan.
    proc = subprocess.Popen(
        cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env, start_new_session=True
    )
    assert proc.stdout is not None
    deadline = time.monotonic() + timeout
    seen = []
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        if not line:
            break
        seen.append(line)
        found = _LISTENING.search(line)
        if found:
            return proc, found.group(1)
    stop_viewer(proc)
    raise RuntimeError("the trace viewer did not start: " + "".join(seen).strip())


def stop_viewer(proc: subprocess.Popen[str]) -> None:
    """Stop the viewer's server and the Node process under it."""
    try:
        os.killpg(proc.pid, signal.SIGTERM)
    except (ProcessLookupError, PermissionError):
        pass  # already gone
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()


def _is_trace(path: Path) -> bool:
    try:
        with zipfile.ZipFile(path) as archive:
            return any(name.endswith(".trace") for name in archive.namelist())
    except (zipfile.BadZipFile, OSError):
        return False


def cmd_trace(args: argparse.Namespace) -> int:
    trace = Path(args.path)
    if trace.is_dir():
        trace = trace / "trace.zip"
    if not trace.is_file():
        print(f"no trace at {trace}: traces are kept for failed runs (--reuseit-trace on keeps all)", file=sys.stderr)
        return 2
    if not _is_trace(trace):
        # The viewer would serve it anyway and show an empty page: say what is wrong instead.
        print(f"{trace} is not a Playwright trace (a zip with trace.trace in it)", file=sys.stderr)
        return 2
    try:
        proc, url = start_viewer(trace.resolve(), port=args.port)
    except RuntimeError as exc:
        print(str(exc), file=sys.stderr)
        return 1
    print(f"trace viewer: {url}  (serving {trace}; Ctrl-C stops it)", flush=True)
    browser = args.browser or default_executable(headed=True)  # a window to look at
    viewer = None
    if not args.no_open and browser and (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")):
        viewer = subprocess.Popen([browser, f"--app={url}"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        return proc.wait()
    except KeyboardInterrupt:
        return 0
    finally:
        if viewer is not None and viewer.poll() is None:
            viewer.terminate()
        stop_viewer(proc)


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("trace", help="open a run's Playwright trace in the trace viewer (offline)")
    p.add_argument("path", help="trace.zip, or the run's folder under the output folder")
    p.add_argument("--port", type=int, default=0, help="port to serve the viewer on [any free port]")
    p.add_argument("--browser", help="Chromium to open it in [$REUSEIT_CHROMIUM, /usr/bin/chromium]")
    p.add_argument("--no-open", action="store_true", help="only print the address")
    p.set_defaults(func=cmd_trace)
