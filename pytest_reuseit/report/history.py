"""The nightly history: every reported run of the suite in one SQLite file (docs/monitoring.md).

One ``reuseit report`` appends one *suite run* (a night): its workflow runs (the run records'
fields), their steps, and each step's page as its accessibility tree saw it. Pages are stored
content-addressed (a hash of the ARIA snapshot, zlib-compressed once), so a page that did not
change since yesterday costs one integer per step, and the short texts that repeat night after
night (step words, urls, titles) are kept once and referred to.

The file is checked before anything is written: a file that is not a history (not SQLite,
damaged, another program's database, a newer version of this one) raises :class:`HistoryError`
with one line naming it and is never touched: it is opened read-only to be inspected, and tables
are only ever created in a file that is new, empty, or already ours. An older version is upgraded
in place after a copy of it is written beside it. A report writes in one transaction taken with
``BEGIN IMMEDIATE`` and waits up to 30 s for another report on the same file, so two reports at
once both keep their nights.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import sqlite3
import time
import zlib
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from ..browser.aria import PageSnapshot
from ..errors import ReuseitError
from .alert_policy import Track
from .history_schema import MIGRATIONS
from .records import FAILING, PASSING

DEFAULT_PATH = ".reuseit/history.sqlite"
ENV = "REUSEIT_HISTORY"
# "RUIT": what tells this file from any other program's SQLite database (PRAGMA application_id).
APPLICATION_ID = 0x52554954
VERSION = len(MIGRATIONS)
# Trimming after each report: the last KEEP_RUNS runs of the suite, none older than KEEP_DAYS.
# A year of nightly runs of 300 workflows is about 44 MB (benchmarks/README.md, bench_history.py).
KEEP_RUNS = 400
KEEP_DAYS = 400
BUSY_SECONDS = 30.0
SWEEP_EVERY = 30  # nights dropped between two sweeps of the pages nothing refers to

_HEADER = b"SQLite format 3\x00"


class HistoryError(ReuseitError):
    """The file at --history is not a history this version can use; the message is one line."""


@dataclass(frozen=True)
class SuiteRun:
    id: int
    key: str
    started: float
    reported_at: float
    new: bool = True  # False: this results folder had been reported before (recorded once)

    @property
    def when(self) -> str:
        return iso(self.started)


@dataclass(frozen=True)
class PassedStep:
    page: PageSnapshot
    screenshot: str = ""  # the after-step screenshot kept by that run, "" when none


@dataclass(frozen=True)
class LastPass:
    """The last run of a test that passed (with or without help) and its steps' pages; ``earlier``
    is the pass before it (its own ``earlier`` None), when the history has one: what differs
    between the two is the page's own churn, not a change (browser/aria.py ``compare``)."""

    started: float
    suite_run: int
    status: str
    steps: dict[int, PassedStep] = field(default_factory=dict)
    earlier: LastPass | None = None

    @property
    def when(self) -> str:
        return iso(self.started)


def iso(epoch: float) -> str:
    return datetime.fromtimestamp(epoch, tz=timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


# --------------------------------------------------------------------------- checking a file


def check(path: str | Path) -> int | None:
    """The file's schema version (0: empty, to be created; None: no file), or HistoryError.

    Only reads: the file is opened read-only, so a file that is not a history stays as it was.
    """
    path = Path(path)
    if not path.exists():
        return None
    if path.is_dir():
        raise HistoryError(f"history {path}: is a folder, not a history file")
    try:
        with path.open("rb") as fh:
            header = fh.read(100)
    except OSError as exc:
        raise HistoryError(f"history {path}: cannot be read ({exc.strerror or exc})") from None
    if not header:
        return 0  # an empty file is an empty database to SQLite too
    if not header.startswith(_HEADER):
        raise HistoryError(f"history {path}: not a reuseit history (not an SQLite database); left as it is")
    try:
        conn = _connect_ro(path)
    except sqlite3.Error as exc:
        raise HistoryError(f"history {path}: cannot be opened ({exc}); left as it is") from None
    try:
        return _version(conn, path)
    except sqlite3.Error as exc:
        raise HistoryError(f"history {path}: damaged ({exc}); left as it is") from None
    finally:
        conn.close()


def _connect_ro(path: Path) -> sqlite3.Connection:
    conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True, timeout=BUSY_SECONDS)
    conn.execute(f"PRAGMA busy_timeout={int(BUSY_SECONDS * 1000)}")
    return conn


def _version(conn: sqlite3.Connection, path: Path) -> int:
    app = conn.execute("PRAGMA application_id").fetchone()[0]
    tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    if app != APPLICATION_ID:
        if app == 0 and not tables:
            return 0  # an empty SQLite file: nobody's yet
        raise HistoryError(f"history {path}: another program's SQLite database, not a reuseit history; left as it is")
    if "meta" not in tables:
        raise HistoryError(f"history {path}: damaged (no meta table); left as it is")
    row = conn.execute("SELECT value FROM meta WHERE key = 'version'").fetchone()
    if row is None or not str(row[0]).isdigit():
        raise HistoryError(f"history {path}: damaged (no schema version); left as it is")
    version = int(row[0])
    if version > VERSION:
        raise HistoryError(
            f"history {path}: written by a newer reuseit (schema {version}; this one reads up to {VERSION}); left as it is"
        )
    return version


# --------------------------------------------------------------------------- writing


@contextmanager
def writing(path: str | Path) -> Iterator[History]:
    """The history open for one report: created, or upgraded after a backup, all in one transaction.

    Everything done through the yielded :class:`History` is committed when the block ends and
    rolled back if it raises. A file that is not a history raises HistoryError before any write.
    """
    path = Path(path)
    check(path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(path, timeout=BUSY_SECONDS, isolation_level=None)
    except (OSError, sqlite3.Error) as exc:
        raise HistoryError(f"history {path}: cannot be opened for writing ({exc})") from None
    try:
        conn.execute(f"PRAGMA busy_timeout={int(BUSY_SECONDS * 1000)}")
        conn.execute("PRAGMA foreign_keys = ON")
        conn.execute("BEGIN IMMEDIATE")  # one writer at a time; the other waits its turn
        try:
            _prepare(conn, path)
            yield History(conn, path)
            conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise
    except sqlite3.Error as exc:
        raise HistoryError(f"history {path}: {exc}; nothing was written to it") from None
    finally:
        conn.close()


def _prepare(conn: sqlite3.Connection, path: Path) -> None:
    """Create or upgrade the schema, holding the write lock (another report may have done it)."""
    version = _version(conn, path)
    if version == VERSION:
        return
    if version > 0:
        backup = _backup_name(path, version)
        shutil.copyfile(path, backup)  # the lock is held: nobody changes the file while it is copied
    for step in MIGRATIONS[version:]:
        for statement in step:
            conn.execute(statement)
    conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
    conn.execute(f"PRAGMA user_version = {VERSION}")
    conn.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('version', ?)", (str(VERSION),))
    conn.execute("INSERT OR IGNORE INTO meta (key, value) VALUES ('application', 'reuseit history')")


def _backup_name(path: Path, version: int) -> Path:
    candidate = path.with_name(f"{path.name}.v{version}.bak")
    n = 1
    while candidate.exists():
        candidate = path.with_name(f"{path.name}.v{version}.{n}.bak")
        n += 1
    return candidate


def suite_key(records: Iterable[dict[str, Any]]) -> str:
    """What identifies a results folder: its records' test ids and contents."""
    digest = hashlib.sha256()
    for record in sorted(records, key=lambda r: str(r.get("test", ""))):
        digest.update(json.dumps(record, sort_keys=True, ensure_ascii=False).encode())
        digest.update(b"\x00")
    return digest.hexdigest()[:32]


def _s(value: Any) -> str:
    return value if isinstance(value, str) else "" if value is None else str(value)


def _f(value: Any) -> float:
    try:
        return float(value)
    except (TypeError, ValueError):
        return 0.0


def _i(value: Any) -> int | None:
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


_RUN_KEYS = [
    "id",
    "suite_run",
    "test",
    "workflow",
    "variation",
    "name",
    "status",
    "started",
    "duration",
    "step",
    "action",
    "cause",
    "recovered",
    "calls",
    "cost",
    "uncounted",
    "phase",
    "check",
    "locator",
    "error",
    "category",
    "changed",
]


class History:
    """An open history inside one write transaction (see :func:`writing`)."""

    def __init__(self, conn: sqlite3.Connection, path: Path) -> None:
        self.conn = conn
        self.path = path
        self._texts: dict[str, int] = {}
        self._order: list[tuple[float, int]] | None = None

    # ----------------------------------------------------------------- appending

    def append(self, records: list[dict[str, Any]], *, reported_at: float | None = None) -> SuiteRun:
        """Add one run of the suite (the records of one results folder); the same folder once."""
        key = suite_key(records)
        row = self.conn.execute("SELECT id, started, reported_at FROM suite_runs WHERE key = ?", (key,)).fetchone()
        if row is not None:
            return SuiteRun(row[0], key, row[1], row[2], new=False)
        now = time.time() if reported_at is None else reported_at
        starts = [_f(r.get("started")) for r in records if _f(r.get("started")) > 0]
        started = min(starts) if starts else now
        cur = self.conn.execute(
            "INSERT INTO suite_runs (key, reported_at, started, runs) VALUES (?, ?, ?, ?)",
            (key, now, started, len(records)),
        )
        suite_id = int(cur.lastrowid or 0)
        for record in records:
            self._add_run(suite_id, record)
        self._order = None
        return SuiteRun(suite_id, key, started, now)

    def _add_run(self, suite_id: int, r: dict[str, Any]) -> None:
        test_id = self._test(_s(r.get("test")), _s(r.get("workflow")), _s(r.get("variation")))
        usage = r.get("usage") if isinstance(r.get("usage"), dict) else {}
        assert isinstance(usage, dict)
        recovered = r.get("recovered") if isinstance(r.get("recovered"), list) else []
        changed = r.get("changed") if isinstance(r.get("changed"), dict) else None
        cur = self.conn.execute(
            "INSERT INTO runs (suite_run, test, name, status, started, duration, step, action, phase,"
            ' "check", locator, expected, actual, error, category, infrastructure, recovered, calls,'
            " cache_hits, tokens, cost, changed, cause) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
            (
                suite_id,
                test_id,
                _s(r.get("name")),
                _s(r.get("status")),
                _f(r.get("started")),
                _f(r.get("duration")),
                _i(r.get("step")),
                _s(r.get("action")),
                _s(r.get("phase")),
                _s(r.get("check")),
                _s(r.get("locator")),
                _s(r.get("expected")),
                _s(r.get("actual")),
                _s(r.get("error")),
                _s(r.get("category")),
                _s(r.get("infrastructure")),
                json.dumps(recovered, ensure_ascii=False),
                _i(usage.get("calls")) or 0,
                _i(usage.get("cache_hits")) or 0,
                _i(usage.get("tokens")) or 0,
                _f(usage.get("cost")),
                json.dumps(changed, ensure_ascii=False) if changed is not None else None,
                _s(r.get("cause")) or None,
            ),
        )
        run_id = cur.lastrowid
        steps = r.get("steps") if isinstance(r.get("steps"), list) else []
        assert isinstance(steps, list)
        rows = []
        seen: set[int] = set()
        for step in steps:
            if not isinstance(step, dict):
                continue
            idx = _i(step.get("index"))
            if idx is None or idx in seen:
                continue
            seen.add(idx)
            rows.append(
                (
                    run_id,
                    idx,
                    self._text(_s(step.get("action"))),
                    _s(step.get("status")),
                    _f(step.get("duration")),
                    self._text(_s(step.get("url"))),
                    self._text(_s(step.get("title"))),
                    self._snapshot(_s(step.get("aria"))),
                    _s(step.get("screenshot")),
                )
            )
        self.conn.executemany("INSERT INTO steps VALUES (?,?,?,?,?,?,?,?,?)", rows)

    def _test(self, test: str, workflow: str, variation: str) -> int:
        row = self.conn.execute("SELECT id, workflow, variation FROM tests WHERE test = ?", (test,)).fetchone()
        if row is None:
            cur = self.conn.execute(
                "INSERT INTO tests (test, workflow, variation) VALUES (?, ?, ?)", (test, workflow, variation)
            )
            return int(cur.lastrowid or 0)
        if (row[1], row[2]) != (workflow, variation):
            self.conn.execute(
                "UPDATE tests SET workflow = ?, variation = ? WHERE id = ?", (workflow, variation, row[0])
            )
        return int(row[0])

    def _text(self, text: str) -> int | None:
        if not text:
            return None
        found = self._texts.get(text)
        if found is None:
            row = self.conn.execute("SELECT id FROM texts WHERE text = ?", (text,)).fetchone()
            if row is None:
                row = (self.conn.execute("INSERT INTO texts (text) VALUES (?)", (text,)).lastrowid,)
            found = self._texts[text] = int(row[0])
        return found

    def _snapshot(self, aria: str) -> int | None:
        if not aria:
            return None
        digest = hashlib.sha256(aria.encode()).digest()[:16]
        row = self.conn.execute("SELECT id FROM snapshots WHERE hash = ?", (digest,)).fetchone()
        if row is not None:
            return int(row[0])
        cur = self.conn.execute(
            "INSERT INTO snapshots (hash, aria) VALUES (?, ?)", (digest, zlib.compress(aria.encode(), 6))
        )
        return int(cur.lastrowid or 0)

    # ----------------------------------------------------------------- reading

    def _suite_order(self) -> list[tuple[float, int]]:
        if self._order is None:
            self._order = [(r[0], r[1]) for r in self.conn.execute("SELECT started, id FROM suite_runs")]
            self._order.sort()
        return self._order

    def suite_run(self, suite_id: int) -> SuiteRun | None:
        row = self.conn.execute("SELECT id, key, started, reported_at FROM suite_runs WHERE id = ?", (suite_id,))
        found = row.fetchone()
        return SuiteRun(found[0], found[1], found[2], found[3]) if found else None

    def window(self, suite: SuiteRun, n: int) -> list[SuiteRun]:
        """The last ``n`` runs of the suite up to and including ``suite``, oldest first."""
        order = self._suite_order()
        pos = order.index((suite.started, suite.id))
        ids = [sid for _, sid in order[max(0, pos - n + 1) : pos + 1]]
        marks = ",".join("?" * len(ids))
        rows = self.conn.execute(
            f"SELECT id, key, started, reported_at FROM suite_runs WHERE id IN ({marks})",
            ids,
        ).fetchall()
        runs = [SuiteRun(*row) for row in rows]
        return sorted(runs, key=lambda s: (s.started, s.id))

    def is_latest(self, suite: SuiteRun) -> bool:
        return self._suite_order()[-1] == (suite.started, suite.id)

    def runs_in(self, suites: list[SuiteRun]) -> list[dict[str, Any]]:
        """The workflow runs of these runs of the suite (without steps), as dicts."""
        if not suites:
            return []
        marks = ",".join("?" * len(suites))
        cur = self.conn.execute(
            "SELECT r.id, r.suite_run, t.test, t.workflow, t.variation, r.name, r.status, r.started, r.duration,"
            ' r.step, r.action, r.cause, r.recovered, r.calls, r.cost, r.uncounted, r.phase, r."check", r.locator,'
            # What a failure met is read for failures only: a passing run's columns are empty anyway.
            " r.error, r.category, CASE WHEN r.status IN ('failed', 'broken') THEN r.changed END"
            " FROM runs r JOIN tests t ON t.id = r.test"
            f" WHERE r.suite_run IN ({marks})",
            [s.id for s in suites],
        )
        keys = _RUN_KEYS
        out = []
        for row in cur:
            item = dict(zip(keys, row, strict=True))
            # Most runs needed no help: their "[]" is not worth a parse (15 000 rows a night on 500 workflows).
            item["recovered"] = json.loads(item["recovered"]) if item["recovered"] not in (None, "", "[]") else []
            item["uncounted"] = bool(item["uncounted"])
            out.append(item)
        return out

    def failing_streak(self, test: str, suite: SuiteRun) -> list[SuiteRun]:
        """The runs of the suite, newest first, in which ``test`` failed without a pass between,
        ending at ``suite`` (the test's own runs: a night it did not run breaks nothing, nor does a
        run a sick night broke, which counts toward no rule)."""
        cur = self.conn.execute(
            "SELECT s.id, s.key, s.started, s.reported_at, r.status FROM runs r"
            " JOIN tests t ON t.id = r.test JOIN suite_runs s ON s.id = r.suite_run"
            " WHERE t.test = ? AND r.uncounted = 0 AND (s.started < ? OR (s.started = ? AND s.id <= ?))"
            " ORDER BY s.started DESC, s.id DESC",
            (test, suite.started, suite.started, suite.id),
        )
        streak: list[SuiteRun] = []
        for sid, key, started, reported, status in cur:
            if status not in FAILING:
                break
            streak.append(SuiteRun(sid, key, started, reported))
        return streak

    def cause_first_seen(self, cause: str, suite: SuiteRun) -> SuiteRun:
        """The first run of the suite of the unbroken chain of nights, ending at ``suite``, that met ``cause``."""
        met = {row[0] for row in self.conn.execute("SELECT DISTINCT suite_run FROM runs WHERE cause = ?", (cause,))}
        order = self._suite_order()
        pos = order.index((suite.started, suite.id))
        first = suite.id
        for _, sid in reversed(order[: pos + 1]):
            if sid not in met:
                break
            first = sid
        found = self.suite_run(first)
        return found if found is not None else suite

    def last_pass(self, test: str, before: SuiteRun | None = None) -> LastPass | None:
        """The last passing run of ``test`` (before ``before`` when given) and its steps' pages."""
        return _last_pass(self.conn, test, before)

    # ----------------------------------------------------------------- the alert policy

    def tracks(self) -> dict[str, Track]:
        """Each test's kept alert track (report/alert_policy.py); a test with none starts passing."""
        out = {}
        for row in self.conn.execute(
            "SELECT test, alerted, since, state, flapping, open_runs, quiet, since_when FROM alert_state"
        ):
            test, alerted, since, state, flapping, open_runs, quiet, since_when = row
            # A file from before the policy kept only whether an alert was open.
            state = state or ("failing" if alerted else "passing")
            out[test] = Track(state, bool(alerted), since, since_when or "", bool(flapping), int(open_runs), quiet)
        return out

    def keep_track(self, test: str, track: Track, rule: str, event: str) -> None:
        self.conn.execute(
            "INSERT INTO alert_state (test, alerted, since, last_event, updated, state, flapping, open_runs, quiet,"
            " since_when, rule) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(test) DO UPDATE SET"
            " alerted = excluded.alerted, since = excluded.since, updated = excluded.updated,"
            " last_event = CASE WHEN excluded.last_event = '' THEN last_event ELSE excluded.last_event END,"
            " state = excluded.state, flapping = excluded.flapping, open_runs = excluded.open_runs,"
            " quiet = excluded.quiet, since_when = excluded.since_when, rule = excluded.rule",
            (test, int(track.open), track.since, event, time.time(), track.state, int(track.flapping),
             track.open_runs, track.quiet, track.since_when, rule),
        )  # fmt: skip

    def mark_unhealthy(self, suite: SuiteRun, cause: str, tests: Iterable[str]) -> None:
        """Record that a sick night broke these tests' runs: they count toward no rule, then or later."""
        self.conn.execute("UPDATE suite_runs SET unhealthy = ? WHERE id = ?", (cause, suite.id))
        self.conn.executemany(
            "UPDATE runs SET uncounted = 1 WHERE suite_run = ? AND test = (SELECT id FROM tests WHERE test = ?)",
            [(suite.id, test) for test in tests],
        )

    def unhealthy_streak(self, suite: SuiteRun) -> int:
        """Runs of the suite in a row, ending at ``suite``, that were unhealthy (0: ``suite`` was not)."""
        order = self._suite_order()
        pos = order.index((suite.started, suite.id))
        sick = {row[0] for row in self.conn.execute("SELECT id FROM suite_runs WHERE unhealthy IS NOT NULL")}
        n = 0
        for _, sid in reversed(order[: pos + 1]):
            if sid not in sick:
                break
            n += 1
        return n

    def last_passed(self, test: str) -> str:
        """When ``test`` last passed (with or without help), "" when the history holds no pass."""
        row = self.conn.execute(
            "SELECT MAX(s.started) FROM runs r JOIN tests t ON t.id = r.test JOIN suite_runs s ON s.id = r.suite_run"
            " WHERE t.test = ? AND r.status IN ('passed', 'recovered', 'healed')",
            (test,),
        ).fetchone()
        return iso(row[0]) if row and row[0] is not None else ""

    # ----------------------------------------------------------------- trimming

    def trim(
        self,
        *,
        keep_runs: int = KEEP_RUNS,
        keep_days: float = KEEP_DAYS,
        now: float | None = None,
        sweep_every: int = SWEEP_EVERY,
    ) -> int:
        """Drop runs of the suite beyond the last ``keep_runs`` or older than ``keep_days`` before the
        newest one (or ``now``), and every ``sweep_every`` nights dropped, the pages and texts
        nothing refers to any more. The number of runs of the suite dropped."""
        order = self._suite_order()
        if not order:
            return 0
        # Age counts back from the newest run of the suite, not the clock: a suite that was not run
        # for a while keeps what it had.
        cutoff = (order[-1][0] if now is None else now) - keep_days * 86400
        drop = [sid for n, (started, sid) in enumerate(reversed(order)) if n >= keep_runs or started < cutoff]
        if not drop:
            return 0
        for start in range(0, len(drop), 500):
            chunk = drop[start : start + 500]
            self.conn.execute(f"DELETE FROM suite_runs WHERE id IN ({','.join('?' * len(chunk))})", chunk)
        # Pages and texts nothing refers to are swept once SWEEP_EVERY nights have gone: the sweep
        # reads every step (about 0.7 s for a year of 300 workflows), and the few orphans of a
        # month cost less than that every night.
        row = self.conn.execute("SELECT value FROM meta WHERE key = 'unswept'").fetchone()
        unswept = (int(row[0]) if row and str(row[0]).isdigit() else 0) + len(drop)
        if unswept < sweep_every:
            self.conn.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('unswept', ?)", (str(unswept),))
            self._order = None
            return len(drop)
        self.conn.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('unswept', '0')")
        self.conn.execute(
            "DELETE FROM snapshots WHERE id NOT IN (SELECT snapshot FROM steps WHERE snapshot IS NOT NULL)"
        )
        self.conn.execute(
            "DELETE FROM texts WHERE id NOT IN (SELECT action FROM steps WHERE action IS NOT NULL"
            " UNION SELECT url FROM steps WHERE url IS NOT NULL UNION SELECT title FROM steps WHERE title IS NOT NULL)"
        )
        self.conn.execute("DELETE FROM tests WHERE id NOT IN (SELECT DISTINCT test FROM runs)")
        # A workflow deleted or renamed long ago keeps no alert track either.
        self.conn.execute("DELETE FROM alert_state WHERE test NOT IN (SELECT test FROM tests)")
        self._texts.clear()
        self._order = None
        return len(drop)


# --------------------------------------------------------------------------- reading, for a run


def last_pass(path: str | Path, test: str) -> LastPass | None:
    """The last passing run of ``test`` in the history at ``path``: read-only and cheap.

    None when there is no file (yet) or no pass of that test; HistoryError when the file is not a
    history this version reads.
    """
    path = Path(path)
    if not path.exists():
        return None
    version = check(path)
    if not version:
        return None
    conn = _connect_ro(path)
    try:
        return _last_pass(conn, test, None)
    except sqlite3.Error as exc:
        raise HistoryError(f"history {path}: damaged ({exc})") from None
    finally:
        conn.close()


def _last_pass(conn: sqlite3.Connection, test: str, before: SuiteRun | None) -> LastPass | None:
    marks = ",".join("?" * len(PASSING))
    sql = (
        "SELECT r.id, s.id, r.started, s.started, r.status FROM runs r JOIN tests t ON t.id = r.test"
        f" JOIN suite_runs s ON s.id = r.suite_run WHERE t.test = ? AND r.status IN ({marks})"
    )
    params: list[Any] = [test, *PASSING]
    if before is not None:
        sql += " AND (s.started < ? OR (s.started = ? AND s.id < ?))"
        params += [before.started, before.started, before.id]
    # The last two passes: the one before the last tells the page's own churn from a change.
    rows = conn.execute(sql + " ORDER BY s.started DESC, s.id DESC LIMIT 2", params).fetchall()
    if not rows:
        return None
    earlier = _passed(conn, rows[1], None) if len(rows) > 1 else None
    return _passed(conn, rows[0], earlier)


def _passed(conn: sqlite3.Connection, row: tuple[Any, ...], earlier: LastPass | None) -> LastPass:
    run_id, suite_id, run_started, suite_started, status = row
    steps: dict[int, PassedStep] = {}
    cur = conn.execute(
        "SELECT st.idx, u.text, ti.text, sn.aria, st.screenshot FROM steps st"
        " LEFT JOIN texts u ON u.id = st.url LEFT JOIN texts ti ON ti.id = st.title"
        " LEFT JOIN snapshots sn ON sn.id = st.snapshot WHERE st.run = ?",
        (run_id,),
    )
    for idx, url, title, aria, shot in cur:
        text = zlib.decompress(aria).decode() if aria is not None else ""
        steps[idx] = PassedStep(PageSnapshot(url or "", title or "", text), shot or "")
    return LastPass(run_started or suite_started, suite_id, status, steps, earlier)
