"""The spawner of a class's JupyterLab servers: JupyterHub's LocalProcessSpawner, plus a session keyring of
each server's own.

A process keeps its parent's session keyring across fork, exec and setuid, so every server the hub starts
would share the hub's (root's) session keyring: one student could read keys another put there, or the
hub's own (Kerberos tickets in `KEYRING:` caches). Each server joins a new, empty one as it starts, after
the switch to the student's uid, before anything of theirs runs (issue 51; coursekit/app/keyring.py).
"""
from __future__ import annotations

import sys

from jupyterhub.spawner import LocalProcessSpawner

from coursekit.app.keyring import join_new_session_keyring


def with_own_keyring(set_user):
    """A Popen preexec_fn: the spawner's own (the uid switch), then a new session keyring."""

    def preexec() -> None:
        set_user()
        problem = join_new_session_keyring()
        if problem:
            # preexec runs in the forked child: stderr goes to the hub's log, and the server still starts
            print(f"course hub: this server shares the hub's session keyring ({problem})", file=sys.stderr)

    return preexec


class CourseSpawner(LocalProcessSpawner):
    def make_preexec_fn(self, name):
        return with_own_keyring(super().make_preexec_fn(name))
