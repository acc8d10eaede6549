"""The tables of the nightly history (report/history.py): each version's statements, in order.

A file's ``PRAGMA user_version`` says how many of them it has had; opening an older file runs the
rest (after a copy of it is written beside it).
"""

from __future__ import annotations

# Each entry takes the schema one version up; a new file gets them all. Never edit a shipped
# entry: a file of that version exists somewhere and is upgraded by the ones after it.
MIGRATIONS: tuple[tuple[str, ...], ...] = (
    (  # 1: the runs of the suite, their workflow runs and steps, pages kept once
        "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
        "CREATE TABLE suite_runs (id INTEGER PRIMARY KEY, key TEXT NOT NULL UNIQUE,"
        " reported_at REAL NOT NULL, started REAL NOT NULL, runs INTEGER NOT NULL)",
        "CREATE INDEX suite_runs_started ON suite_runs(started, id)",
        "CREATE TABLE tests (id INTEGER PRIMARY KEY, test TEXT NOT NULL UNIQUE,"
        " workflow TEXT NOT NULL, variation TEXT NOT NULL)",
        "CREATE TABLE texts (id INTEGER PRIMARY KEY, text TEXT NOT NULL UNIQUE)",
        "CREATE TABLE snapshots (id INTEGER PRIMARY KEY, hash BLOB NOT NULL UNIQUE, aria BLOB NOT NULL)",
        "CREATE TABLE runs (id INTEGER PRIMARY KEY,"
        " suite_run INTEGER NOT NULL REFERENCES suite_runs(id) ON DELETE CASCADE,"
        " test INTEGER NOT NULL REFERENCES tests(id), name TEXT NOT NULL, status TEXT NOT NULL,"
        " started REAL NOT NULL, duration REAL NOT NULL, step INTEGER, action TEXT NOT NULL,"
        ' phase TEXT NOT NULL, "check" TEXT NOT NULL, locator TEXT NOT NULL, expected TEXT NOT NULL,'
        " actual TEXT NOT NULL, error TEXT NOT NULL, category TEXT NOT NULL, infrastructure TEXT NOT NULL,"
        " recovered TEXT NOT NULL, calls INTEGER NOT NULL, cache_hits INTEGER NOT NULL,"
        " tokens INTEGER NOT NULL, cost REAL NOT NULL, changed TEXT)",
        "CREATE INDEX runs_test ON runs(test, suite_run)",
        "CREATE INDEX runs_suite ON runs(suite_run)",
        "CREATE TABLE steps (run INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
        " idx INTEGER NOT NULL, action INTEGER, status TEXT NOT NULL, duration REAL NOT NULL,"
        " url INTEGER, title INTEGER, snapshot INTEGER, screenshot TEXT NOT NULL,"
        " PRIMARY KEY (run, idx)) WITHOUT ROWID",
    ),
    (  # 2: causes kept per failing run (first_seen) and the alert state per test
        "ALTER TABLE runs ADD COLUMN cause TEXT",
        "CREATE INDEX runs_cause ON runs(cause) WHERE cause IS NOT NULL",
        "CREATE TABLE alert_state (test TEXT PRIMARY KEY, alerted INTEGER NOT NULL DEFAULT 0,"
        " since INTEGER, last_event TEXT NOT NULL DEFAULT '', updated REAL NOT NULL DEFAULT 0)",
    ),
    (  # 3: the alert policy: each test's kept track, and the runs a sick night broke (counted toward no rule)
        "ALTER TABLE suite_runs ADD COLUMN unhealthy TEXT",
        "ALTER TABLE runs ADD COLUMN uncounted INTEGER NOT NULL DEFAULT 0",
        "ALTER TABLE alert_state ADD COLUMN state TEXT NOT NULL DEFAULT ''",
        "ALTER TABLE alert_state ADD COLUMN flapping INTEGER NOT NULL DEFAULT 0",
        "ALTER TABLE alert_state ADD COLUMN open_runs INTEGER NOT NULL DEFAULT 0",
        "ALTER TABLE alert_state ADD COLUMN quiet INTEGER",
        "ALTER TABLE alert_state ADD COLUMN since_when TEXT NOT NULL DEFAULT ''",
        "ALTER TABLE alert_state ADD COLUMN rule TEXT NOT NULL DEFAULT ''",
    ),
)
