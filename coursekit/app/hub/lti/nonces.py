"""The nonces of accepted launches, kept on disk with their expiry, so a captured launch posted again is
refused even after the hub restarted (1EdTech security framework: a nonce is used once).

    <data>/lti/used-nonces.sqlite    (root only, inside the 0700 lti folder)

A nonce is remembered for NONCE_TTL_S, longer than an id_token is accepted (ltiauthenticator's max_age,
600 s): by the time it is forgotten its token is refused as too old anyway. The check and the record are
one INSERT, so two hub processes (or two requests at once) cannot both accept the same nonce.
"""
from __future__ import annotations

import sqlite3
import time
from pathlib import Path

NONCE_TTL_S = 900
FILE = "used-nonces.sqlite"


class UsedNonces:
    def __init__(self, path: str | Path):
        self.path = Path(path)

    def _connect(self) -> sqlite3.Connection:
        db = sqlite3.connect(self.path, timeout=30, isolation_level=None)
        db.execute("CREATE TABLE IF NOT EXISTS used (nonce TEXT PRIMARY KEY, expires REAL NOT NULL)")
        return db

    def first_use(self, nonce: str) -> bool:
        """True the first time `nonce` is seen (it is then recorded), False on any later use, and False for
        anything but a non-empty string (a forged token's list or number is a refusal, not a database error)."""
        if not isinstance(nonce, str) or not nonce:
            return False
        now = time.time()          # wall clock: the expiry must mean the same after a restart
        db = self._connect()
        try:
            db.execute("DELETE FROM used WHERE expires < ?", (now,))
            try:
                db.execute("INSERT INTO used VALUES (?, ?)", (nonce, now + NONCE_TTL_S))
            except sqlite3.IntegrityError:
                return False
            return True
        finally:
            db.close()
