"""One Unix account per roster member: the isolation between students is the kernel's file permissions.

Homes live in the hub's data folder (mode 0700, owned by the person), so they survive restarts with
everything else, and no student can read or write another's files or the instructor's.
"""
from __future__ import annotations

import os
import pwd
import shutil
import stat
import subprocess
import sys
from pathlib import Path

FIRST_UID = 1000   # accounts below this are the system's: never hand one of them to a roster name


class AccountError(RuntimeError):
    pass


def ensure_account(username: str, home: Path) -> pwd.struct_passwd:
    """Create `username` with `home` (or check the existing account), then make the home private."""
    try:
        account = pwd.getpwnam(username)
    except KeyError:
        if os.geteuid() != 0:
            raise AccountError(f"creating the account {username!r} needs root: run `course hub` as root "
                               "(or create the roster's accounts first)") from None
        home.parent.mkdir(parents=True, exist_ok=True)
        done = subprocess.run(["useradd", "--create-home", "--home-dir", str(home), "--shell", "/bin/bash",
                               "--user-group", "--no-log-init", username], capture_output=True, text=True)
        if done.returncode != 0:
            raise AccountError(f"useradd {username} failed: {done.stderr.strip()}")
        account = pwd.getpwnam(username)
    if account.pw_uid < FIRST_UID:
        raise AccountError(f"roster name {username!r} is a system account (uid {account.pw_uid}); rename it in the roster")
    Path(account.pw_dir).mkdir(parents=True, exist_ok=True)
    os.chown(account.pw_dir, account.pw_uid, account.pw_gid)
    os.chmod(account.pw_dir, 0o700)
    return account


def make_reachable(path: Path) -> list[Path]:
    """Add o+x (traverse, not list) to each folder above `path` that lacks it, so class accounts can run
    the course's Python (pyenv and conda often live in root's 0700 home). Returns the folders changed."""
    changed = []
    for folder in reversed(Path(path).resolve().parents):
        mode = folder.stat().st_mode
        if not mode & stat.S_IXOTH:
            os.chmod(folder, stat.S_IMODE(mode) | stat.S_IXOTH)
            changed.append(folder)
    return changed


def give(path: Path, account: pwd.struct_passwd) -> None:
    """chown -R path to the account (files seeded by root into a home)."""
    for folder, dirs, files in os.walk(path):
        os.chown(folder, account.pw_uid, account.pw_gid)
        for name in files:
            os.chown(os.path.join(folder, name), account.pw_uid, account.pw_gid)


def seed(source: Path, target: Path, account: pwd.struct_passwd) -> None:
    """Copy `source` into a home once; later runs keep what the person changed."""
    if target.exists() or not source.exists():
        return
    if source.is_dir():
        shutil.copytree(source, target, ignore=shutil.ignore_patterns(".ipynb_checkpoints", "__pycache__"))
    else:
        shutil.copy2(source, target)
    give(target, account)


SHELL_MARK = "# llm-course: the course's commands (written by `course hub`)"
SHELL_END = "# llm-course: end"


def shell_block(scripts: Path, config_path: str) -> str:
    """The lines for a person's shells: the course's scripts on PATH, and the Jupyter config folders their
    server reads (the class exchange, the course id), unless the shell already has them (a JupyterLab
    terminal inherits its server's)."""
    return (f'{SHELL_MARK}\ncase ":$PATH:" in *":{scripts}:"*) ;; *) export PATH="{scripts}:$PATH" ;; esac\n'
            f'export JUPYTER_CONFIG_PATH="${{JUPYTER_CONFIG_PATH:-{config_path}}}"\n{SHELL_END}\n')


def _without_block(text: str) -> tuple[str, int]:
    """`text` less the course's block (one written by an older `course hub` ends after its one PATH line),
    and where it stood (-1: none)."""
    start = text.find(SHELL_MARK)
    if start < 0:
        return text, -1
    end = text.find(SHELL_END, start)
    end = text.find("\n", end if end >= 0 else start + len(SHELL_MARK) + 1)
    return text[:start] + text[end + 1 if end >= 0 else len(text):], start


def _open_own(path: Path, flags: int) -> int | None:
    """A file in a person's home, opened by root without following a link (O_NOFOLLOW) and only if it is
    a regular file with one name: they own the folder, and a ~/.bashrc linked to /etc/passwd must not
    lead root's write there. None for anything else."""
    try:
        fd = os.open(path, flags | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
    except FileNotFoundError:
        return None
    except OSError as error:          # ELOOP: a symbolic link
        raise AccountError(f"{path} is not a plain file ({error.strerror}); not touched") from None
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode) or info.st_nlink != 1:
        os.close(fd)
        raise AccountError(f"{path} is not a plain file with one name; not touched")
    return fd


def read_in_home(path: Path) -> str:
    fd = _open_own(path, os.O_RDONLY)
    if fd is None:
        return ""
    with os.fdopen(fd) as handle:
        return handle.read()


def write_in_home(path: Path, text: str, account: pwd.struct_passwd) -> None:
    """Write `text` to a file in the person's home (created theirs), as _open_own allows."""
    fd = _open_own(path, os.O_WRONLY | os.O_CREAT)
    with os.fdopen(fd, "w") as handle:
        os.fchown(handle.fileno(), account.pw_uid, account.pw_gid)
        handle.truncate(0)
        handle.write(text)


def shell_path(account: pwd.struct_passwd, scripts: Path, config_path: str) -> None:
    """Put the course's scripts (`course`, `autograder`, `nbgrader`) on PATH and the class's Jupyter config
    in the person's own shells, as over ssh: ~/.profile for login shells, the top of ~/.bashrc (before
    its "not interactive" return) for the rest. The block is rewritten in place on every run (a new
    `course hub` brings its lines to older accounts); the person's own lines are kept."""
    block = shell_block(scripts, config_path)
    for name, first in ((".bashrc", True), (".profile", False)):
        path = Path(account.pw_dir) / name
        try:
            text, where = _without_block(read_in_home(path))
            if where >= 0:
                text = text[:where] + block + text[where:]
            else:
                text = block + text if first else text + ("\n" if text else "") + block
            write_in_home(path, text, account)
        except AccountError as error:      # the person's own business; the rest of the class goes on
            print(f"course hub: {error}", file=sys.stderr)


def remove_account(username: str) -> None:
    """userdel, after the account's processes are gone (tests clean up the users they made)."""
    subprocess.run(["userdel", username], capture_output=True, text=True)
