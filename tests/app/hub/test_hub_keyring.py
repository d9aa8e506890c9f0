"""Each class server gets a session keyring of its own (issue 51): started by the hub's spawner, a server
can neither read the hub's session keys nor leave one in a keyring the hub, or another student's server,
shares. Checked with the spawner's real preexec function, the uid switch included, under a stand-in hub
process that holds a key in a session keyring made for this test."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

HUB = """
import ctypes, json, platform, subprocess, sys
from jupyterhub.spawner import LocalProcessSpawner
from coursekit.app.hub.spawner import CourseSpawner
libc = ctypes.CDLL(None, use_errno=True)
KEYCTL = {"x86_64": 250, "aarch64": 219}[platform.machine()]
ADD_KEY = {"x86_64": 248, "aarch64": 217}[platform.machine()]
SESSION = ctypes.c_int(-3)
assert libc.syscall(KEYCTL, 1, None) >= 0
assert libc.syscall(ADD_KEY, b"user", b"hub-token", b"kerberos", 8, SESSION) >= 0
SERVER = '''
import ctypes, platform, sys
libc = ctypes.CDLL(None, use_errno=True)
KEYCTL = {"x86_64": 250, "aarch64": 219}[platform.machine()]
ADD_KEY = {"x86_64": 248, "aarch64": 217}[platform.machine()]
found = libc.syscall(KEYCTL, 10, ctypes.c_int(-3), b"user", b"hub-token", 0) >= 0
libc.syscall(ADD_KEY, b"user", b"planted-" + sys.argv[1].encode(), b"x", 1, ctypes.c_int(-3))
print(int(found))
'''
out = {}
for name, spawner in (("course", CourseSpawner()), ("plain", LocalProcessSpawner())):
    done = subprocess.run([sys.executable, "-c", SERVER, name], preexec_fn=spawner.make_preexec_fn("nobody"),
                          capture_output=True, text=True, cwd="/")
    planted = libc.syscall(KEYCTL, 10, SESSION, b"user", b"planted-" + name.encode(), 0) >= 0
    out[name] = {"found": done.stdout.strip(), "planted": planted, "stderr": done.stderr[-500:]}
print(json.dumps(out))
"""


@pytest.mark.skipif(os.geteuid() != 0, reason="the spawner switches to the student's uid: root only")
def test_a_server_started_by_the_class_spawner_shares_no_session_key_with_the_hub():
    done = subprocess.run([sys.executable, "-c", HUB], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert (out["course"]["found"], out["course"]["planted"]) == ("0", False), out
    assert "session keyring" not in out["course"]["stderr"], out
    # the same probe under JupyterHub's own spawner reads the hub's key and plants one: the probe works
    assert out["plain"]["found"] == "1" and out["plain"]["planted"], out


def test_the_class_hub_uses_the_course_spawner():
    from coursekit.app.hub import config

    source = open(config.__file__, encoding="utf-8").read()       # configure() needs a class's data folder
    assert 'c.JupyterHub.spawner_class = "coursekit.app.hub.spawner.CourseSpawner"' in source
