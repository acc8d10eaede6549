"""Browsers from a Selenium Grid 4 (``--reuseit-grid``): one Grid session per process, reached over
the session's Chrome DevTools address (``se:cdp``).

The session is created over the W3C WebDriver HTTP API (so its lifetime and the Grid's answers
are ours to read) and Playwright connects to its ``se:cdp`` path, on the session's node when the
node answers from here (else on the hub), through a relay on 127.0.0.1 (browser/relay.py, a
process of its own). The relay is how a run learns that its node died: the Grid may keep the client's DevTools connection open when the node behind it dies, so every call
would wait out its own timeout and some (a script, a context) have none. A watchdog asks the
Grid about the session every :data:`PROBE_S` seconds; when the Grid answers that the session's
node cannot be reached, the relay is cut and every Playwright call fails at once with "browser
has been closed".

The session is deleted when the browser session closes, and at exit (``atexit``, and SIGTERM
where nobody else handles it) for a run that is interrupted. A process killed outright (SIGKILL,
a machine that dies) cannot: the watchdog's requests are then what stops, and the node's own
``--session-timeout`` (300 s by default, counted from the last WebDriver command) ends the session.
"""

from __future__ import annotations

import atexit
import base64
import json
import logging
import re
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import SplitResult, quote, urlsplit

from ..errors import BrokenRun, ReuseitError

log = logging.getLogger(__name__)

# What a browser launched here gets (session.DEFAULT_ARGS), plus what a node needs: headless, no
# sandbox (nodes often run as root in containers), /tmp instead of a small /dev/shm. Without
# --disable-back-forward-cache, back and forward restore pages from Chromium's cache and never
# fire the load events Playwright waits for (Playwright gives its own browsers this flag).
DEFAULT_ARGS = (
    "--headless=new",
    "--no-sandbox",
    "--disable-dev-shm-usage",
    "--disable-gpu",
    "--disable-quic",
    "--disable-partial-raster",
    "--disable-back-forward-cache",
)
DEFAULT_CAPABILITIES: dict[str, Any] = {
    "browserName": "chrome",
    "goog:chromeOptions": {"args": list(DEFAULT_ARGS)},
}
BFCACHE_FLAG = "--disable-back-forward-cache"
# How often the watchdog asks the Grid whether the session's node still answers, and how many
# failed answers in a row mean it is gone (one may be a hiccup of the network).
PROBE_S = 2.0
PROBE_FAILURES = 2
# How long one question waits: a node that froze or whose machine left the network (no connection
# reset) leaves the Grid's request to it unanswered; the Grid answers about a live node in
# milliseconds. Two unanswered questions in a row, 2 s apart, then take 2 + 4 + 2 + 4 = 12 s.
PROBE_TIMEOUT_S = 4.0
# A new session waits in the Grid's queue for a free slot up to the Grid's own limit
# (--session-request-timeout, 300 s by default); the answer is awaited a little longer.
CREATE_TIMEOUT_S = 360.0
REQUEST_TIMEOUT_S = 10.0
# How long a new session is asked for again while the Grid keeps offering a node that died (it
# does until its health check marks the node down: 120 s by default). As long as an op waits for
# its element by default (action_timeout): another node may free a slot meanwhile; past it the
# run is broken, naming the node, and the worker's next run asks again.
DEAD_NODE_RETRY_S = 10.0
# How long the session's node is given to answer from here before DevTools go through the hub.
NODE_PROBE_S = 1.0
# How long an exit waits for a session being started, to delete it (a node starts one in well
# under a second; a request still queued is dropped by the Grid when the connection closes).
CANCEL_WAIT_S = 3.0


def parse_capabilities(text: str) -> dict[str, Any]:
    """``--reuseit-grid-capabilities``: a JSON object of W3C capabilities (the ``alwaysMatch``
    part); empty means :data:`DEFAULT_CAPABILITIES`. The back/forward cache flag is always added
    to ``goog:chromeOptions`` args (see :data:`DEFAULT_ARGS`)."""
    if not text.strip():
        caps: Any = json.loads(json.dumps(DEFAULT_CAPABILITIES))
    else:
        try:
            caps = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ReuseitError(
                f"reuseit_grid_capabilities: not JSON ({exc.msg} at character {exc.pos}); "
                'write an object such as {"browserName": "chrome", "goog:chromeOptions": {"args": ["--headless=new"]}}'
            ) from None
        if not isinstance(caps, dict):
            raise ReuseitError("reuseit_grid_capabilities: expected a JSON object of capabilities")
    options = caps.setdefault("goog:chromeOptions", {})
    if not isinstance(options, dict) or not isinstance(options.setdefault("args", []), list):
        raise ReuseitError('reuseit_grid_capabilities: "goog:chromeOptions" must be an object with an "args" list')
    if BFCACHE_FLAG not in options["args"]:
        options["args"].append(BFCACHE_FLAG)
    return caps


def check_url(url: str) -> str:
    """The Grid's address without a trailing slash; one clear line when it is not http(s)."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ReuseitError(f"reuseit_grid = {url!r}: expected the http(s) address of a Selenium Grid 4 router or hub")
    return url.rstrip("/")


def shown(url: str) -> str:
    """The Grid's address as messages show it: without credentials."""
    parts = urlsplit(url)
    port = f":{parts.port}" if parts.port else ""
    return f"{parts.scheme}://{parts.hostname}{port}{parts.path}"


class _Http:
    """JSON over HTTP to the Grid, with its basic-auth credentials when the URL carries some."""

    def __init__(self, grid: str) -> None:
        parts = urlsplit(grid)
        self.base = shown(grid).rstrip("/")
        self.headers = {"Content-Type": "application/json; charset=utf-8"}
        if parts.username:
            token = base64.b64encode(f"{parts.username}:{parts.password or ''}".encode()).decode()
            self.headers["Authorization"] = f"Basic {token}"

    def call(self, method: str, path: str, body: Any = None, timeout: float = REQUEST_TIMEOUT_S) -> Any:
        """The decoded JSON answer; urllib.error.HTTPError (read with :func:`grid_error`) or OSError."""
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(self.base + path, data=data, method=method, headers=self.headers)
        with urllib.request.urlopen(request, timeout=timeout) as answer:
            return json.loads(answer.read() or b"null")


def _timed_out(said: str) -> bool:
    low = said.lower()
    return "timed out" in low or "timeout" in low


def _why(said: str) -> str:
    if _timed_out(said):
        return "no free slot for these capabilities within the Grid's queue time (add nodes or slots, or run fewer workers)"
    return "check --reuseit-grid-capabilities against the nodes' browsers"


# How the Grid (4.x) says it could not reach the node it chose for a new session: "Connection
# error (POST http://10.0.3.7:5555/se/grid/node/session)" when the node was gone already, "Failed
# to execute request (POST ...)" when it died while starting the browser.
_NODE_GONE = re.compile(
    r"(?:connection error|failed to execute request) \((?:POST|GET|DELETE) (https?://[^/\s)]+)", re.I
)


def unanswering_node(said: str) -> str:
    """The node's address when the Grid's answer says the node it chose does not answer, else ''."""
    found = _NODE_GONE.search(said)
    return found.group(1) if found else ""


def grid_error(exc: BaseException) -> str:
    """The Grid's own words for a failed request: the WebDriver error's first line."""
    if isinstance(exc, urllib.error.HTTPError):
        try:
            value = json.loads(exc.read() or b"{}").get("value", {})
            message = str(value.get("message") or value.get("error") or "").strip()
        except (ValueError, AttributeError, OSError):
            message = ""
        line = message.splitlines()[0] if message else ""
        return f"HTTP {exc.code}: {line.strip()}" if line else f"HTTP {exc.code}"
    if isinstance(exc, urllib.error.URLError):
        return str(exc.reason)
    return str(exc) or type(exc).__name__


class _Relay:
    """The relay process (browser/relay.py) between Playwright and the session's DevTools address:
    :meth:`cut` ends it, which Playwright sees as the browser disconnecting. Started before the
    new session is asked for, so the process starts while the node starts the browser; :meth:`to`
    tells it where to relay and answers its port."""

    def __init__(self) -> None:
        self._proc = subprocess.Popen(
            [sys.executable, str(Path(__file__).with_name("relay.py"))],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )

    def to(self, host: str, port: int, tls: bool) -> int:
        try:
            assert self._proc.stdin is not None and self._proc.stdout is not None
            self._proc.stdin.write(f"{host} {port}{' tls' if tls else ''}\n")
            self._proc.stdin.flush()
            line = self._proc.stdout.readline()
        except OSError as exc:
            line = str(exc)
        if not line.strip().isdigit():
            self.cut()
            raise BrokenRun(f"the relay to the Selenium Grid did not start ({line.strip() or 'no answer'})")
        return int(line)

    def cut(self) -> None:
        if self._proc.poll() is None:
            self._proc.kill()
        self._proc.wait()
        for pipe in (self._proc.stdin, self._proc.stdout):
            if pipe is not None:
                pipe.close()


@dataclass
class GridSession:
    """One session on the Grid: its id, the node that holds it, the local DevTools address."""

    grid: str
    id: str
    node: str
    cdp: str
    headers: dict[str, str]
    _http: _Http
    _relay: _Relay
    # Where DevTools messages go: the node's address, or the Grid's when the node does not answer from here.
    via: str = ""
    # Why the session is gone (its node stopped answering), once the watchdog found out.
    lost: str = ""
    # The watchdog's unanswered questions in a row.
    _failures: int = 0
    _closed: threading.Event = field(default_factory=threading.Event)

    @classmethod
    def open(cls, grid: str, capabilities: dict[str, Any]) -> GridSession:
        """A new session, or BrokenRun naming the Grid and what it answered."""
        http = _Http(grid)
        where = f"Selenium Grid {http.base}"
        try:
            relay = _Relay()
        except OSError as exc:
            raise BrokenRun(f"{where}: the relay to the Selenium Grid did not start ({exc})") from None
        try:
            sid, caps = _new_session(http, where, capabilities)
        except BaseException:
            relay.cut()
            raise
        cdp = str(caps.get("se:cdp") or "")
        if not cdp:
            relay.cut()
            _delete(http, sid)
            raise BrokenRun(
                f"{where} started a browser without a DevTools address (no se:cdp): the nodes need a "
                "Chromium-based browser (browserName chrome or MicrosoftEdge)"
            )
        node = _node_of(http, sid)
        # The hub names its own address in se:cdp, which may be one only it can reach (a pod's):
        # the path is the session's; the host is the node's when it answers from here (each
        # DevTools message then skips the hub's proxy: a run 1.42x a local one through the hub,
        # 1.21x straight to the node, benchmarks/README.md), else the one the user gave.
        direct = _reachable(node)
        target = direct or urlsplit(grid)
        port = target.port or (443 if target.scheme == "https" else 80)
        try:
            local = f"ws://127.0.0.1:{relay.to(target.hostname or '127.0.0.1', port, target.scheme == 'https')}"
        except BrokenRun as exc:
            _delete(http, sid)
            raise BrokenRun(f"{where}: {exc}") from None
        # The router's credentials are for the router: a node reached straight gets none.
        headers = {} if direct else dict(http.headers)
        local += urlsplit(cdp).path
        session = cls(grid, sid, node, local, headers, http, relay, via=node if direct else http.base)
        _register()
        _OPEN.add(session)
        threading.Thread(target=session._watch, name="reuseit-grid-watchdog", daemon=True).start()
        log.info(
            "grid session %s on node %s (DevTools %s)",
            sid,
            node,
            "straight to the node" if direct else "through the hub",
        )
        return session

    def _watch(self) -> None:
        """Ask the Grid about the session until it closes; cut the relay when its node is gone.
        The requests are WebDriver commands, so they also keep the session from the node's idle
        timeout while this process lives."""
        while not self._closed.wait(PROBE_S):
            said = self._probe()
            self._failures = self._failures + 1 if said else 0
            if self._failures >= PROBE_FAILURES:
                self._lose(said)
                return

    def _probe(self) -> str:
        """'' when the Grid reaches the session's node, else what it said."""
        try:
            self._http.call("GET", f"/session/{quote(self.id)}/timeouts", timeout=PROBE_TIMEOUT_S)
            return ""
        except (OSError, ValueError) as exc:
            return grid_error(exc) or "no answer"

    def _lose(self, said: str) -> None:
        if self._closed.is_set() or self.lost:
            return
        self.lost = (
            f"the Selenium Grid node {self.node} stopped answering for session {self.id} (the Grid said: {said})"
        )
        log.warning("%s", self.lost)
        self._relay.cut()

    def confirm(self, *, disconnected: bool) -> str:
        """Why the session is gone, asked now, before the watchdog's next question: the browser's
        connection closed under a run (the Grid may close it when the node goes), or a run
        failed, which a node that froze makes of every call (each waits out its timeout, no
        connection is reset). One unanswered question is enough after a disconnection; after a
        failure two in a row are needed, as the watchdog needs them (its last one counts), so
        that one slow answer of a live Grid does not turn a failure into a broken run. '' when
        the node answers."""
        if not self.lost and not self._closed.is_set():
            said = self._probe()
            if said and not disconnected and self._failures == 0:
                said = self._probe()
            if said:
                self._lose(said)
        return self.lost

    @property
    def closed(self) -> bool:
        return self._closed.is_set()

    def close(self) -> None:
        """Delete the session on the Grid (once; a lost node's session is deleted as far as the Grid can)."""
        if self._closed.is_set():
            return
        self._closed.set()
        self._relay.cut()
        _OPEN.discard(self)
        # A lost node's session is only forgotten by the Grid: not waited for as long as a live one's end.
        _delete(self._http, self.id, timeout=PROBE_TIMEOUT_S if self.lost else REQUEST_TIMEOUT_S)

    __hash__ = object.__hash__


class Opening:
    """A new session asked for in a thread of its own while the caller starts what it needs too
    (Playwright's driver): a worker's first browser waits for the slower of the two, not for both.

    An opening the caller gives up on (an interrupt, an error of its own) is cancelled: a session
    that arrives after that is deleted at once. At exit, openings still pending are waited for up
    to :data:`CANCEL_WAIT_S` (a node starting its browser); a request still in the Grid's queue is
    dropped by the Grid when this process' connection to it closes (measured with Grid 4.48: a
    request whose client went away, queued or being started, leaves no session)."""

    def __init__(self, grid: str, capabilities: dict[str, Any]) -> None:
        _register()
        self._lock = threading.Lock()
        self._done = threading.Event()
        self._session: GridSession | None = None
        self._error: BaseException | None = None
        self._cancelled = False
        _PENDING.add(self)
        threading.Thread(target=self._open, args=(grid, capabilities), name="reuseit-grid-open", daemon=True).start()

    def _open(self, grid: str, capabilities: dict[str, Any]) -> None:
        session = None
        try:
            session = GridSession.open(grid, capabilities)
        except BaseException as exc:  # handed to the caller as it is
            self._error = exc
        with self._lock:
            unwanted = self._cancelled
            self._session = session
        if unwanted and session is not None:
            log.info("grid session %s arrived after its run gave up on it: deleted", session.id)
            session.close()
        _PENDING.discard(self)
        self._done.set()

    def result(self) -> GridSession:
        """The session, once the Grid has answered; BrokenRun as :meth:`GridSession.open` says it."""
        self._done.wait()
        if self._error is not None:
            raise self._error
        assert self._session is not None
        return self._session

    def cancel(self) -> None:
        """The caller will not use the session: delete it, now or when it arrives."""
        with self._lock:
            self._cancelled = True
            session = self._session
        if session is not None:
            session.close()

    def wait(self, timeout: float) -> None:
        self._done.wait(timeout)


def _new_session(http: _Http, where: str, capabilities: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """The new session's id and capabilities, asked of the Grid (again while it offers a node that
    died); BrokenRun in the Grid's words."""
    body = {"capabilities": {"alwaysMatch": {**capabilities, "se:cdpEnabled": True}}}
    retry_until = 0.0  # set at the first answer naming a node that does not answer
    while True:
        try:
            value = http.call("POST", "/session", body, timeout=CREATE_TIMEOUT_S)["value"]
            return str(value["sessionId"]), dict(value["capabilities"])
        except urllib.error.HTTPError as exc:
            said = grid_error(exc)
            node = unanswering_node(said)
            if not node and _timed_out(said):
                # A node that died while starting this request's browser can leave the request in
                # the Grid's queue until its queue time (a loaded hub puts it back): the dead node,
                # not a lack of slots, is then what the morning must hear of.
                node = next((n for n in _grid_nodes(http) if _reachable(n) is None), "")
                if node:
                    raise BrokenRun(
                        f"the Selenium Grid node {node} does not answer ({where} said: {said}); no free slot "
                        "for this run within the Grid's queue time while it does: this run cannot be judged, "
                        "the worker's next run asks the Grid again"
                    ) from None
            if not node:
                raise BrokenRun(f"{where} started no browser: {said}; {_why(said)}") from None
            # A node that died is offered until the Grid's health check finds it down: ask again
            # (another node may free a slot), for as long as an op waits for its element.
            retry_until = retry_until or time.monotonic() + DEAD_NODE_RETRY_S
            if time.monotonic() < retry_until:
                log.info("%s offered a node that does not answer (%s); asking again", where, said)
                time.sleep(PROBE_S)
                continue
            raise BrokenRun(
                f"the Selenium Grid node {node} does not answer ({where} said: {said}); the Grid offered it "
                f"again for {DEAD_NODE_RETRY_S:.0f} s (it does until its health check marks the node down): "
                "this run cannot be judged, the worker's next run asks the Grid again"
            ) from None
        except OSError as exc:
            raise BrokenRun(
                f"{where} cannot be reached: {grid_error(exc)}; is the Grid running, and is its router or hub at this address?"
            ) from None
        except (KeyError, TypeError, ValueError):
            raise BrokenRun(
                f"{where} answered the new session request with something else than a WebDriver session"
            ) from None


def _delete(http: _Http, sid: str, timeout: float = REQUEST_TIMEOUT_S) -> None:
    try:
        http.call("DELETE", f"/session/{quote(sid)}", timeout=timeout)
    except (OSError, ValueError) as exc:
        log.info("grid session %s not deleted: %s", sid, grid_error(exc))


def _reachable(node: str) -> SplitResult | None:
    """The node's address when its own HTTP answers from here within :data:`NODE_PROBE_S`, name
    lookup included (a pod's name outside its cluster may take the resolver's seconds to fail,
    which no socket timeout bounds: the answer is awaited in a thread of its own)."""
    parts = urlsplit(node)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return None
    answered: list[bool] = []

    def probe() -> None:
        try:
            with urllib.request.urlopen(f"{node.rstrip('/')}/status", timeout=NODE_PROBE_S) as answer:
                status = json.loads(answer.read())["value"]
            answered.append(isinstance(status, dict) and "ready" in status)  # a node's /status, not any page
        except (OSError, ValueError, KeyError, TypeError):
            answered.append(False)

    thread = threading.Thread(target=probe, name="reuseit-grid-node-probe", daemon=True)
    thread.start()
    thread.join(NODE_PROBE_S)
    return parts if answered[:1] == [True] else None


def _grid_nodes(http: _Http) -> list[str]:
    """The nodes the Grid lists (their URIs), or none when it does not say."""
    try:
        nodes = http.call("GET", "/status")["value"]["nodes"]
        return [str(n["uri"]) for n in nodes if isinstance(n, dict) and n.get("uri")]
    except (OSError, ValueError, KeyError, TypeError):
        return []


def _node_of(http: _Http, sid: str) -> str:
    """The node holding session ``sid``, by its URI (the Grid's GraphQL, else its /status)."""
    query = {"query": "{ session (id: " + json.dumps(sid) + ") { nodeUri } }"}
    try:
        uri = http.call("POST", "/graphql", query)["data"]["session"]["nodeUri"]
        if uri:
            return str(uri)
    except (OSError, ValueError, KeyError, TypeError):
        pass
    try:
        for node in http.call("GET", "/status")["value"]["nodes"]:
            for slot in node.get("slots", []):
                if (slot.get("session") or {}).get("sessionId") == sid:
                    return str(node.get("uri") or node.get("id"))
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        pass
    return "(unknown node)"


# Sessions not closed yet: deleted at exit whatever ended the process (but SIGKILL).
_OPEN: set[GridSession] = set()
# Sessions asked for and not answered yet.
_PENDING: set[Opening] = set()


def _close_all() -> None:
    pending = list(_PENDING)
    for opening in pending:
        opening.cancel()
    deadline = time.monotonic() + CANCEL_WAIT_S
    for opening in pending:
        opening.wait(max(0.0, deadline - time.monotonic()))
    for session in list(_OPEN):
        session.close()


def _on_sigterm(signum: int, frame: Any) -> None:
    sys.exit(128 + signum)  # unwinds: the session's own close and atexit run


def _register() -> None:
    """At the first session: delete what is open at exit, and let SIGTERM exit normally (its
    default ends the process without atexit) where nobody else handles it."""
    global _REGISTERED
    if _REGISTERED:
        return
    _REGISTERED = True
    atexit.register(_close_all)
    if threading.current_thread() is threading.main_thread():
        try:
            if signal.getsignal(signal.SIGTERM) is signal.SIG_DFL:
                signal.signal(signal.SIGTERM, _on_sigterm)
        except (ValueError, OSError):  # not settable here
            pass


_REGISTERED = False
