"""Wiring LTI into the class's JupyterHub configuration (called by config.configure with --lti-config).

The tool's key set is made on first start in <data>/lti/ (root only). An instructor's or TA's server
gets, at each start, a copy of it and of the platform settings in ~/course/lti/ (0600, theirs, inside
their 0700 home), so `autograder lms post` works from their terminal; no student's server, sandbox or
tutor can read either.
"""
from __future__ import annotations

import os
import pwd
import shutil
from pathlib import Path

from coursekit.app.lti import keys


def lti_folder(data: Path) -> Path:
    folder = Path(data) / "lti"
    folder.mkdir(mode=0o700, exist_ok=True)
    os.chmod(folder, 0o700)
    return folder


def roster_roles(roster_file: str) -> dict[str, str]:
    """The CSV roster's name -> 'instructor' or 'student' ({} for a hub without one)."""
    if not roster_file:
        return {}
    from coursekit.app.hub.roster import load_roster

    roster = load_roster(roster_file)
    return {**dict.fromkeys(roster.students, "student"), **dict.fromkeys(roster.instructors, "instructor")}


def hand_to_instructor(data: Path, settings, username: str, course_folder: Path) -> None:
    """Copy the key set and platform settings into an instructor's course folder, theirs and private."""
    account = pwd.getpwnam(username)
    target = Path(course_folder) / "lti"
    target.mkdir(mode=0o700, exist_ok=True)
    for source, name in ((lti_folder(data) / keys.KEYS_FILE, keys.KEYS_FILE), (Path(settings.lti_config), "platform.json")):
        copy = target / name
        shutil.copyfile(source, copy)
        os.chmod(copy, 0o600)
        os.chown(copy, account.pw_uid, account.pw_gid)
    os.chmod(target, 0o700)
    os.chown(target, account.pw_uid, account.pw_gid)


def use_lti(c, layout, settings, student_environment) -> None:
    """`student_environment(name)`: a student's server's environment (config.server_environment), in which
    a Deep-Linked assignment is fetched for them (assignment.py)."""
    from coursekit.app.hub.classroom import admit
    from coursekit.app.hub.lti.auth import ClassAuthenticator, read_people
    from coursekit.app.hub.lti.identities import Identities
    from coursekit.app.lti.platform import load_platform

    platform = load_platform(settings.lti_config)
    key_file = lti_folder(layout.data) / keys.KEYS_FILE
    keys.ensure(key_file)
    Identities(layout.data).adopt(read_people(layout.data), platform.issuer)     # people from before bindings
    c.JupyterHub.authenticator_class = ClassAuthenticator
    c.ClassAuthenticator.lti_config = settings.lti_config
    c.ClassAuthenticator.data = str(layout.data)
    c.ClassAuthenticator.keys_file = str(key_file)
    c.ClassAuthenticator.context_id = platform.context_id
    c.ClassAuthenticator.public_url = settings.public_url
    # a roster account is claimed from the LMS only with the roster's role (identities.roster_conflict)
    c.ClassAuthenticator.roster_roles = roster_roles(settings.roster)
    c.ClassAuthenticator.course_source = settings.course_source
    c.ClassAuthenticator.dbm_path = str(layout.passwords)
    c.ClassAuthenticator.create_users = False
    ClassAuthenticator.admit = staticmethod(lambda name, role: admit(layout, settings, name, role))
    ClassAuthenticator.student_environment = staticmethod(student_environment)
    if platform.memberships_url:      # who joined and who dropped, every hour by default (sync.py)
        c.JupyterHub.services.append({"name": "lti-roster-sync", "command": [
            settings.python, "-m", "coursekit.app.hub.lti.sync", str(layout.data), "--every", str(settings.lti_sync_every)]})
