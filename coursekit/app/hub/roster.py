"""The class roster: who may log in to the hub, and as what.

A CSV with a header row and the columns `username,role` (optional `name`), one person per line,
role `instructor` or `student`. Usernames become Unix accounts, home folders and nbgrader student
ids, so they must be valid Unix names (lowercase letter first, then lowercase letters, digits, - and _,
at most 32). A bad line is refused with its line number: a half-loaded roster would leave a student
locked out on the day of the lab.
"""
from __future__ import annotations

import csv
import re
from dataclasses import dataclass
from pathlib import Path

USERNAME = re.compile(r"^[a-z_][a-z0-9_-]{0,31}$")
ROLES = ("instructor", "student")


class RosterError(ValueError):
    """The roster file cannot be used; the message names the file and line."""


@dataclass(frozen=True)
class Member:
    username: str
    role: str
    name: str = ""


@dataclass(frozen=True)
class Roster:
    members: tuple[Member, ...]

    @property
    def instructors(self) -> list[str]:
        return [m.username for m in self.members if m.role == "instructor"]

    @property
    def students(self) -> list[str]:
        return [m.username for m in self.members if m.role == "student"]

    @property
    def usernames(self) -> list[str]:
        return [m.username for m in self.members]


def load_roster(path: str | Path) -> Roster:
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as error:
        raise RosterError(f"{path}: cannot read the roster ({error})") from None
    rows = csv.reader(text.splitlines())
    header = [h.strip().lower() for h in next(rows, [])]
    if "username" not in header or "role" not in header:
        raise RosterError(f"{path}:1: the header must name the columns username and role (found {header})")
    members: list[Member] = []
    seen: dict[str, int] = {}
    for line, row in enumerate(rows, start=2):
        if not any(cell.strip() for cell in row):
            continue
        if len(row) != len(header):
            raise RosterError(f"{path}:{line}: expected {len(header)} columns, found {len(row)}")
        record = {key: cell.strip() for key, cell in zip(header, row)}
        username, role = record["username"], record["role"].lower()
        if not USERNAME.match(username):
            raise RosterError(f"{path}:{line}: invalid username {username!r}: use a lowercase letter first, then "
                              "lowercase letters, digits, - or _ (at most 32 characters)")
        if username in seen:
            raise RosterError(f"{path}:{line}: duplicate username {username!r} (first on line {seen[username]})")
        if role not in ROLES:
            raise RosterError(f"{path}:{line}: role {record['role']!r} for {username!r} must be one of {', '.join(ROLES)}")
        seen[username] = line
        members.append(Member(username, role, record.get("name", "")))
    roster = Roster(tuple(members))
    if not roster.instructors:
        raise RosterError(f"{path}: no instructor: at least one line needs role instructor")
    return roster
