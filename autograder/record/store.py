"""The pipeline's results store: one row per (lab, student, submission hash), written atomically.

SQLite in WAL mode with synchronous=FULL: each result is one committed transaction, so a grader
killed at any instant leaves every row either fully written or absent. The row is the commit point
of grading one submission: the autograded notebook and the gradebook are written *before* it (both
idempotent), so a rerun skips exactly the rows that exist and redoes the rest; nothing is
duplicated or lost.

`context` fingerprints what the result depends on besides the notebook (grader secret, spec module,
solution notebook): a row graded under another context is stale and gets regraded.
"""
from __future__ import annotations

import json
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path

SCHEMA = """
CREATE TABLE IF NOT EXISTS results (
    lab_id TEXT NOT NULL,
    student_id TEXT NOT NULL,
    submission_hash TEXT NOT NULL,
    context TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('graded', 'failed')),
    score REAL NOT NULL,
    max_score REAL NOT NULL,
    reason TEXT,
    result_json TEXT NOT NULL,
    graded_at REAL NOT NULL,
    PRIMARY KEY (lab_id, student_id, submission_hash)
);
CREATE TABLE IF NOT EXISTS graders (
    lab_id TEXT NOT NULL,
    student_id TEXT NOT NULL,
    submission_hash TEXT NOT NULL,
    worker TEXT NOT NULL,
    PRIMARY KEY (lab_id, student_id, submission_hash)
);
CREATE TABLE IF NOT EXISTS roster (
    student_id TEXT PRIMARY KEY,
    name TEXT, canvas_id TEXT, sis_user_id TEXT, sis_login_id TEXT, section TEXT
);
"""

ROSTER_FIELDS = ("name", "canvas_id", "sis_user_id", "sis_login_id", "section")


@dataclass(frozen=True)
class Row:
    lab_id: str
    student_id: str
    submission_hash: str
    context: str
    status: str
    score: float
    max_score: float
    reason: str | None
    result: dict


class Store:
    def __init__(self, path: Path):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.db = sqlite3.connect(self.path, timeout=30, isolation_level=None)  # explicit transactions
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=FULL")
        self.db.executescript(SCHEMA)

    def close(self) -> None:
        self.db.close()

    def __enter__(self) -> "Store":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def get(self, lab_id: str, student_id: str, submission_hash: str) -> Row | None:
        cur = self.db.execute("SELECT * FROM results WHERE lab_id=? AND student_id=? AND submission_hash=?",
                              (lab_id, student_id, submission_hash))
        found = cur.fetchone()
        return _row(found) if found else None

    def put(self, row: Row) -> None:
        """Insert or replace the row in one durable transaction."""
        values = (row.lab_id, row.student_id, row.submission_hash, row.context, row.status, row.score,
                  row.max_score, row.reason, json.dumps(row.result, sort_keys=True), time.time())
        self.db.execute("BEGIN IMMEDIATE")
        try:
            self.db.execute("INSERT OR REPLACE INTO results VALUES (?,?,?,?,?,?,?,?,?,?)", values)
        except BaseException:
            self.db.execute("ROLLBACK")
            raise
        self.db.execute("COMMIT")

    def set_grader(self, lab_id: str, student_id: str, submission_hash: str, worker: str) -> None:
        """Which worker graded a submission ("local", or a Dask worker's name); shown by `status`."""
        self.db.execute("INSERT OR REPLACE INTO graders VALUES (?,?,?,?)", (lab_id, student_id, submission_hash, worker))

    def grader(self, lab_id: str, student_id: str, submission_hash: str) -> str | None:
        found = self.db.execute("SELECT worker FROM graders WHERE lab_id=? AND student_id=? AND submission_hash=?",
                                (lab_id, student_id, submission_hash)).fetchone()
        return found[0] if found else None

    def rows(self, lab_id: str | None = None) -> list[Row]:
        query, args = "SELECT * FROM results", ()
        if lab_id:
            query, args = query + " WHERE lab_id=?", (lab_id,)
        return [_row(r) for r in self.db.execute(query + " ORDER BY lab_id, student_id, graded_at", args)]

    def count(self) -> int:
        return self.db.execute("SELECT COUNT(*) FROM results").fetchone()[0]

    # The roster maps course student ids to LMS identities for the Canvas export.
    def set_roster(self, entries: dict[str, dict]) -> None:
        self.db.execute("BEGIN IMMEDIATE")
        for student_id, info in entries.items():
            self.db.execute("INSERT OR REPLACE INTO roster VALUES (?,?,?,?,?,?)",
                            (student_id, *[info.get(key) or None for key in ROSTER_FIELDS]))
        self.db.execute("COMMIT")

    def roster(self) -> dict[str, dict]:
        cur = self.db.execute("SELECT * FROM roster")
        return {r[0]: dict(zip(ROSTER_FIELDS, r[1:])) for r in cur}


def _row(r: tuple) -> Row:
    return Row(lab_id=r[0], student_id=r[1], submission_hash=r[2], context=r[3], status=r[4], score=r[5],
               max_score=r[6], reason=r[7], result=json.loads(r[8]))
