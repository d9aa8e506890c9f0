"""What has been sent to the LMS, per lab and student: the state that makes a passback idempotent and
resumable. A score is recorded as posted only after the LMS accepted it, one committed row per student,
so a run killed or failed half way resumes with exactly the students not yet posted, and a score that
has not changed since it was posted is never sent again.

    autograded/.autograder/lms.sqlite
"""
from __future__ import annotations

import sqlite3
import time
from pathlib import Path

SCHEMA = """
CREATE TABLE IF NOT EXISTS outcomes (
    lab_id TEXT NOT NULL, student_id TEXT NOT NULL,
    state TEXT NOT NULL CHECK (state IN ('posted', 'skipped', 'failed')),
    payload TEXT, reason TEXT, lineitem TEXT, at REAL NOT NULL,
    PRIMARY KEY (lab_id, student_id)
);
CREATE TABLE IF NOT EXISTS lineitems (lab_id TEXT PRIMARY KEY, url TEXT NOT NULL);
"""


class Ledger:
    def __init__(self, path: Path):
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        self.db = sqlite3.connect(path, timeout=30, isolation_level=None)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=FULL")
        self.db.executescript(SCHEMA)

    def close(self) -> None:
        self.db.close()

    def __enter__(self) -> "Ledger":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def posted_payload(self, lab: str, student: str) -> str | None:
        """The payload the LMS last accepted for this student (None: nothing posted yet)."""
        found = self.db.execute("SELECT payload FROM outcomes WHERE lab_id=? AND student_id=? AND state='posted'",
                                (lab, student)).fetchone()
        return found[0] if found else None

    def record(self, lab: str, student: str, state: str, payload: str | None = None, reason: str | None = None,
               lineitem: str | None = None) -> None:
        """A failure or skip never erases what was posted before: the LMS still holds that score."""
        if state != "posted" and self.posted_payload(lab, student) is not None:
            return
        self.db.execute("INSERT OR REPLACE INTO outcomes VALUES (?,?,?,?,?,?,?)",
                        (lab, student, state, payload, reason, lineitem, time.time()))

    def lineitem(self, lab: str) -> str | None:
        found = self.db.execute("SELECT url FROM lineitems WHERE lab_id=?", (lab,)).fetchone()
        return found[0] if found else None

    def set_lineitem(self, lab: str, url: str) -> None:
        self.db.execute("INSERT OR REPLACE INTO lineitems VALUES (?,?)", (lab, url))

    def outcomes(self, lab: str) -> dict[str, tuple[str, str | None]]:
        rows = self.db.execute("SELECT student_id, state, reason FROM outcomes WHERE lab_id=?", (lab,))
        return {student: (state, reason) for student, state, reason in rows}
