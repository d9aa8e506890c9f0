"""A class prepared as `course hub` prepares it (accounts cth<hex>-*, removed at the end), without starting
the hub: the lines it writes into each person's ~/.profile and ~/.bashrc, so that over ssh (a login shell
with nothing of the server's environment) nbgrader finds the class's exchange, not its default
/usr/local/share/nbgrader/exchange; the class roster in the instructor's course; and the end of term
(`course hub remove-accounts`). The whole ssh day against a running hub is in tests/app/hub/test_hub_stop.py."""
from __future__ import annotations

import os
import pwd
import secrets
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from coursekit.app.hub.accounts import SHELL_MARK, shell_path
from coursekit.app.hub.classroom import CLASS_ROSTER, COURSE_ID, Layout, Settings, prepare
from coursekit.app.hub.roster import load_roster
from hub_server import class_course, kill_user_processes


@pytest.fixture
def class_data():
    prefix = f"cth{secrets.token_hex(2)}-"
    tmp_path = Path(tempfile.mkdtemp(prefix="course-hub-", dir="/tmp"))    # pytest's own is 0700: homes inside
    os.chmod(tmp_path, 0o711)                                             # would be out of their owners' reach
    roster = tmp_path / "roster.csv"
    roster.write_text(f"username,role\n{prefix}prof,instructor\n{prefix}ada,student\n")
    course = class_course(tmp_path / "course")
    layout = Layout(tmp_path / "data")
    prepare(layout, load_roster(roster), Settings(roster=str(roster), course_source=str(course)))
    try:
        yield layout, prefix
    finally:
        for name in ("prof", "ada"):
            kill_user_processes(prefix + name)
            subprocess.run(["userdel", prefix + name], capture_output=True)
        shutil.rmtree(tmp_path, ignore_errors=True)


def login_shell(username: str, script: str) -> subprocess.CompletedProcess:
    return subprocess.run(["runuser", "-l", username, "-c", script], capture_output=True, text=True, timeout=120)


def test_a_login_shell_points_nbgrader_at_the_class_exchange(class_data):
    layout, prefix = class_data
    released = layout.exchange / COURSE_ID / "outbound" / "toy-pipeline"     # what release_assignment leaves
    released.mkdir(parents=True)
    (released / "toy-pipeline.ipynb").write_text("{}")
    for folder in (released.parent.parent, released.parent, released):
        os.chmod(folder, 0o755)
    ada = login_shell(prefix + "ada", "nbgrader list")
    assert ada.returncode == 0, ada.stdout + ada.stderr
    assert "Could not create" not in ada.stdout + ada.stderr
    assert f"{COURSE_ID} toy-pipeline" in ada.stderr, ada.stderr       # the class's exchange and course id
    # the instructor's shell reads their server's config folders, their own course first
    home = pwd.getpwnam(prefix + "prof").pw_dir
    paths = login_shell(prefix + "prof", "echo $JUPYTER_CONFIG_PATH").stdout.strip()
    assert paths == layout.config_path(home, instructor=True) and paths.startswith(f"{home}/course:")
    # a JupyterLab terminal already has its server's value: the lines keep it
    kept = login_shell(prefix + "ada", "JUPYTER_CONFIG_PATH=/from/server bash -ic 'echo $JUPYTER_CONFIG_PATH'")
    assert kept.stdout.strip().splitlines()[-1] == "/from/server"
    # the class roster where `autograder export --format canvas` finds the logins, the instructor's own
    roster = login_shell(prefix + "prof", f"cat ~/course/{CLASS_ROSTER}")
    assert roster.returncode == 0 and f"{prefix}ada,student," in roster.stdout, roster.stderr
    assert login_shell(prefix + "ada", "command -v course").stdout.strip() == f"{Path(sys.executable).parent}/course"


def test_an_older_block_is_rewritten_and_the_persons_own_lines_kept(tmp_path):
    me = pwd.getpwuid(os.getuid())
    account = pwd.struct_passwd((me.pw_name, "x", me.pw_uid, me.pw_gid, "", str(tmp_path), "/bin/bash"))
    old = f'{SHELL_MARK}\ncase ":$PATH:" in *":/venv/bin:"*) ;; *) export PATH="/venv/bin:$PATH" ;; esac\n'
    (tmp_path / ".bashrc").write_text(old + "alias ll='ls -l'\n")
    (tmp_path / ".profile").write_text("umask 022\n\n" + old)
    for _ in range(2):                                  # rewritten in place, never written twice
        shell_path(account, tmp_path / "venv" / "bin", "/class/jupyter-config")
    for name in (".bashrc", ".profile"):
        text = (tmp_path / name).read_text()
        assert text.count(SHELL_MARK) == 1 and text.count("export PATH") == 1, text
        assert 'JUPYTER_CONFIG_PATH="${JUPYTER_CONFIG_PATH:-/class/jupyter-config}"' in text
        assert "/venv/bin:" not in text.replace(f"{tmp_path}/venv/bin", "")
    assert (tmp_path / ".bashrc").read_text().endswith("alias ll='ls -l'\n")
    assert (tmp_path / ".profile").read_text().startswith("umask 022\n")


def test_remove_accounts_ends_the_term_and_keeps_the_files(class_data):
    layout, prefix = class_data
    home = pwd.getpwnam(prefix + "ada").pw_dir
    left = subprocess.Popen(["runuser", "-u", prefix + "ada", "--", "sleep", "300"])   # a job left behind
    done = subprocess.run([sys.executable, "-m", "coursekit.app.cli", "hub", "remove-accounts", "--data",
                           str(layout.data)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    assert left.wait(timeout=30) != 0
    for name in ("prof", "ada"):
        with pytest.raises(KeyError):
            pwd.getpwnam(prefix + name)
        assert f"removed the account {prefix}{name}" in done.stdout
    assert Path(home, ".profile").is_file() and "2 account(s) removed" in done.stdout
    (layout.data / "jupyterhub.pid").write_text(f"{os.getpid()}\n")       # not a hub: the pid's command is checked
    again = subprocess.run([sys.executable, "-m", "coursekit.app.cli", "hub", "remove-accounts", "--data",
                            str(layout.data)], capture_output=True, text=True, timeout=120)
    assert again.returncode == 0 and "0 account(s) removed" in again.stdout


def test_a_linked_shell_file_is_never_followed(tmp_path, capsys):
    """root rewrites the block at every `course hub`: a ~/.bashrc linked to a file of root's must not lead
    the write there (a person owns their home and could make such a link)."""
    me = pwd.getpwuid(os.getuid())
    account = pwd.struct_passwd((me.pw_name, "x", me.pw_uid, me.pw_gid, "", str(tmp_path / "home"), "/bin/bash"))
    (tmp_path / "home").mkdir()
    target = tmp_path / "passwd"
    target.write_text("root:x:0:0::/root:/bin/bash\n")
    (tmp_path / "home" / ".bashrc").symlink_to(target)
    os.link(target, tmp_path / "home" / ".profile")         # a second name for it: not touched either
    shell_path(account, tmp_path / "venv" / "bin", "/class/jupyter-config")
    assert target.read_text() == "root:x:0:0::/root:/bin/bash\n"
    assert ".bashrc is not a plain file" in capsys.readouterr().err
