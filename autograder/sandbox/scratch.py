"""Private scratch folders that do not outlive their grading run.

A folder is named `<prefix><pid>-<random>`, so a later run can tell a dead process's leftovers (a worker
killed with SIGKILL runs no cleanup) from a live run's, and removes them before making its own. The
owner removes its folder when it closes; `sweep` covers the owner that never got to.
"""
from __future__ import annotations

import os
import re
import shutil
import tempfile
from pathlib import Path


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:          # someone else's live process
        return True
    return True


def sweep(prefix: str, parent: str | Path | None = None) -> list[Path]:
    """Remove this user's `<prefix><pid>-*` folders whose process is gone; returns what it removed."""
    parent = Path(parent or tempfile.gettempdir())
    pattern = re.compile(re.escape(prefix) + r"(\d+)-")
    removed = []
    for folder in parent.glob(prefix + "*"):
        found = pattern.match(folder.name)
        try:
            mine = folder.is_dir() and not folder.is_symlink() and folder.stat().st_uid == os.getuid()
        except OSError:
            continue
        if found and mine and not _alive(int(found.group(1))):
            shutil.rmtree(folder, ignore_errors=True)
            removed.append(folder)
    return removed


def private_folder(prefix: str, parent: str | Path | None = None) -> Path:
    """A new 0700 folder for this process (after sweeping dead processes' leftovers of the same prefix)."""
    sweep(prefix, parent)
    return Path(tempfile.mkdtemp(prefix=f"{prefix}{os.getpid()}-", dir=parent))
