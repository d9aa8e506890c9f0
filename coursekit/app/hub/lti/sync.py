"""Roster sync from the LMS (NRPS): who joined the course and who dropped it, on demand or on a schedule.

    python -m coursekit.app.hub.lti.sync DATA_FOLDER                  once, as root, on the hub's machine
    python -m coursekit.app.hub.lti.sync DATA_FOLDER --every SECONDS  the hub's `lti-roster-sync` service

Someone who joined gets their account, home and course role before their first launch; someone the LMS
no longer lists as active is marked dropped in <data>/lti/people.json: their account, home and files are
kept (an instructor may still need them; a re-enrolled student finds their work), and a later sync that
sees them again marks them back. Roles follow the LMS (roles.py); a member whose username claim is
missing or unusable is listed, not guessed.
"""
from __future__ import annotations

import sys
from dataclasses import dataclass, field

from coursekit.app.hub.lti.auth import people_file, read_people, remember
from coursekit.app.hub.lti.identities import Identities, IdentityTaken, roster_conflict
from coursekit.app.lti import keys
from coursekit.app.lti.names import LtiNameError, unix_name
from coursekit.app.lti.roles import course_role


@dataclass
class SyncReport:
    joined: list[str] = field(default_factory=list)
    dropped: list[str] = field(default_factory=list)
    returned: list[str] = field(default_factory=list)
    unchanged: int = 0
    problems: list[str] = field(default_factory=list)

    def render(self) -> str:
        lines = [f"joined: {', '.join(self.joined) or 'nobody'}", f"dropped (files kept): {', '.join(self.dropped) or 'nobody'}"]
        if self.returned:
            lines.append(f"back in the course: {', '.join(self.returned)}")
        lines += [f"not synced: {p}" for p in self.problems]
        return "\n".join(lines + [f"{len(self.joined)} joined, {len(self.dropped)} dropped, {self.unchanged} unchanged"])


def sync(layout, settings, admit) -> SyncReport:
    """One sync. `admit(name, role)` makes an account (classroom.admit in the hub)."""
    import json
    import os

    from coursekit.app.hub.lti.hub import lti_folder, roster_roles
    from coursekit.app.lti.client import LmsClient
    from coursekit.app.lti.platform import load_platform

    platform = load_platform(settings.lti_config)
    key_file = lti_folder(layout.data) / keys.KEYS_FILE
    keys.ensure(key_file)
    members = LmsClient(platform, key_file).members()
    report, people, active = SyncReport(), read_people(layout.data), set()
    listed = roster_roles(settings.roster)
    for member in members:
        role = course_role(member.get("roles"))
        if member.get("status", "Active") != "Active" or role is None:
            continue
        try:
            name = unix_name(member, platform.username_claim)
        except LtiNameError as error:
            report.problems.append(str(error))
            continue
        conflict = roster_conflict(name, listed.get(name), role)
        if conflict:
            report.problems.append(f"{conflict}; not admitted (docs/LMS.md, section 3)")
            continue
        try:
            Identities(layout.data).bind(name, platform.issuer, member.get("user_id"))
        except IdentityTaken as error:
            report.problems.append(f"{error}; not admitted (docs/LMS.md, section 3)")
            continue
        active.add(name)
        known = people.get(name)
        if known and known.get("role") == role and not known.get("dropped"):
            report.unchanged += 1
            continue
        admit(name, role)
        remember(layout.data, name, role, member["user_id"])
        (report.returned if known and known.get("dropped") else report.joined).append(name)
    people = read_people(layout.data)
    for name, person in people.items():
        if name not in active and not person.get("dropped"):
            person["dropped"] = True
            report.dropped.append(name)
    path = people_file(layout.data)
    tmp = path.with_suffix(".sync.tmp")
    tmp.write_text(json.dumps(people, indent=1, sort_keys=True))
    os.replace(tmp, path)
    return report


def main(argv: list[str] | None = None) -> int:
    import argparse
    import time

    from coursekit.app.hub.classroom import Layout, admit
    from coursekit.app.lti.client import LmsError

    parser = argparse.ArgumentParser(prog="python -m coursekit.app.hub.lti.sync")
    parser.add_argument("data")
    parser.add_argument("--every", type=float, default=0, help="sync again every SECONDS (0: once)")
    args = parser.parse_args(argv)
    layout = Layout(args.data)
    settings = layout.read_settings()
    if not settings.lti_config:
        print(f"{layout.settings}: this hub was not started with --lti-config", file=sys.stderr)
        return 2
    if args.every:      # a hub service: end at once on the hub's SIGINT or SIGTERM (coursekit/app/hub/services.py)
        import signal

        for sig in (signal.SIGINT, signal.SIGTERM):
            signal.signal(sig, lambda *_: sys.exit(0))
    while True:
        try:
            report = sync(layout, settings, lambda name, role: admit(layout, settings, name, role))
            print(report.render(), flush=True)
            status = 0
        except LmsError as error:
            print(f"roster sync: {error.reason}; nothing changed", file=sys.stderr, flush=True)
            status = 1
        if not args.every:
            return status
        time.sleep(args.every)        # a schedule, not a wait for a condition: the next sync is due then


if __name__ == "__main__":
    sys.exit(main())
