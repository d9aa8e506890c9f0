"""Which LMS person owns each Unix name: the first one who claimed it, by the LMS's own id for them
(issuer and `sub`), kept on disk so that nobody else logs into that account later.

    <data>/lti/identities.sqlite     (root only, inside the 0700 lti folder)

The Unix name comes from a claim the LMS lets people influence (a login id, an e-mail cut at @,
lowercased: names.py), so `ada@uni.example`, `ADA@gmail.example` and a roster instructor `ada` would
otherwise all be one account. A launch or roster sync that claims a name bound to another LMS person is
refused; the admin frees a name (someone's LMS account was replaced) with

    python -m coursekit.app.hub.lti.identities DATA release NAME      (as root; `list` shows them all)

The check and the record are one INSERT on a primary key, so two hub processes (the hub and its
roster-sync service) or two launches at once cannot both bind the same name.
"""
from __future__ import annotations

import argparse
import sqlite3
import sys
import time
from pathlib import Path

FILE = "identities.sqlite"


class IdentityTaken(ValueError):
    """A name already bound to another LMS person; the message says whose and what to do."""


def identities_file(data: str | Path) -> Path:
    return Path(data) / "lti" / FILE


def roster_conflict(name: str, listed: str | None, role: str | None) -> str | None:
    """Why an LMS person with course role `role` may not have the roster's account `name` (roster role
    `listed`), or None. A roster instructor's home holds the solutions and the grading secret: an LMS
    student whose username maps to it must never land there, nor an LMS instructor in a roster student's."""
    if not listed or (listed == "instructor") == (role in ("instructor", "ta")):
        return None
    said = {"instructor": "an instructor", "ta": "a TA", "student": "a student"}.get(role or "", "no member")
    return f"the course account {name!r} is the roster's {listed}, and the LMS says this person is {said} of the course"


def release_command(data: str | Path, name: str) -> str:
    return f"python -m coursekit.app.hub.lti.identities {data} release {name}"


class Identities:
    def __init__(self, data: str | Path):
        self.data = Path(data)
        self.path = identities_file(data)

    def _connect(self) -> sqlite3.Connection:
        db = sqlite3.connect(self.path, timeout=30, isolation_level=None)
        db.execute("CREATE TABLE IF NOT EXISTS bound (name TEXT PRIMARY KEY, issuer TEXT NOT NULL, "
                   "sub TEXT NOT NULL, since REAL NOT NULL)")
        return db

    def bind(self, name: str, issuer: str, sub: str) -> bool:
        """Bind `name` to (issuer, sub) if it is free; True when it was bound now, False when it already was
        bound to this person. Raises IdentityTaken when another LMS person holds it."""
        if not isinstance(sub, str) or not sub:
            raise IdentityTaken(f"the LMS sent no user id (sub) to bind {name!r} to")
        db = self._connect()
        try:
            try:
                db.execute("INSERT INTO bound VALUES (?, ?, ?, ?)", (name, issuer, sub, time.time()))
                return True
            except sqlite3.IntegrityError:
                owner = db.execute("SELECT issuer, sub FROM bound WHERE name = ?", (name,)).fetchone()
        finally:
            db.close()
        if tuple(owner) == (issuer, sub):
            return False
        raise IdentityTaken(
            f"the course account {name!r} belongs to another LMS person (user id {owner[1]!r} of {owner[0]}; "
            f"this launch is user id {sub!r}), and an account is never handed to a second person")

    def adopt(self, people: dict, issuer: str) -> list[str]:
        """Bind the people a hub admitted before bindings existed (people.json: name -> {"user_id"}) to the
        LMS user id it recorded for them, so that after an upgrade nobody else claims them first. Names
        already bound are left as they are; returns the names bound now."""
        db = self._connect()
        try:
            return [name for name, person in sorted(people.items())
                    if isinstance(person, dict) and isinstance(person.get("user_id"), str) and person["user_id"]
                    and db.execute("INSERT OR IGNORE INTO bound VALUES (?, ?, ?, ?)",
                                   (name, issuer, person["user_id"], time.time())).rowcount]
        finally:
            db.close()

    def owner(self, name: str) -> tuple[str, str] | None:
        db = self._connect()
        try:
            row = db.execute("SELECT issuer, sub FROM bound WHERE name = ?", (name,)).fetchone()
        finally:
            db.close()
        return tuple(row) if row else None

    def release(self, name: str) -> bool:
        db = self._connect()
        try:
            return db.execute("DELETE FROM bound WHERE name = ?", (name,)).rowcount > 0
        finally:
            db.close()

    def all(self) -> list[tuple[str, str, str]]:
        db = self._connect()
        try:
            return [tuple(r) for r in db.execute("SELECT name, issuer, sub FROM bound ORDER BY name")]
        finally:
            db.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m coursekit.app.hub.lti.identities",
                                     description="the LMS person each course account is bound to (docs/LMS.md)")
    parser.add_argument("data", help="the hub's data folder (course hub --data)")
    parser.add_argument("action", choices=["list", "release"])
    parser.add_argument("name", nargs="?", help="release: the account whose binding is removed")
    args = parser.parse_args(argv)
    if not identities_file(args.data).parent.is_dir():
        print(f"{args.data}: no lti folder (was the hub started with --lti-config?)", file=sys.stderr)
        return 1
    book = Identities(args.data)
    if args.action == "list":
        for name, issuer, sub in book.all():
            print(f"{name}\t{sub}\t{issuer}")
        return 0
    if not args.name:
        parser.error("release needs the account's NAME")
    if not book.release(args.name):
        print(f"{args.name}: not bound to anyone; nothing to release", file=sys.stderr)
        return 1
    print(f"{args.name}: released; the next LMS person to launch as {args.name} is bound to it")
    return 0


if __name__ == "__main__":
    sys.exit(main())
