"""When a course kernel last ran a cell, for `course check` to compare with the saved file.

The server's `last_activity` of a kernel moves on any message: a kernel that had only started (after a
server restart, say) looked as if it had "run code after the last save", and the check went unrecorded.
The course's kernel (coursekit/app/kernel.py) writes this record next to its connection file: written at
start with no run, then the time each cell finished. No record: not a course kernel (nothing known).
"""
from __future__ import annotations

import json
import os
from pathlib import Path


def record_path(connection_file: str | Path) -> Path:
    """The record beside a kernel's connection file, `kernel-<id>.json` -> `course-ran-kernel-<id>.json`."""
    connection_file = Path(connection_file)
    return connection_file.with_name(f"course-ran-{connection_file.stem}.json")


def write_record(path: Path, last_run: float | None) -> None:
    partial = path.with_name(f".{path.name}.{os.getpid()}")
    partial.write_text(json.dumps({"last_run": last_run}))
    os.replace(partial, path)   # a check reading it never sees half a record


def last_run(runtime_dir: Path, kernel_id: str) -> tuple[bool, float | None]:
    """(whether the kernel keeps a record, when it last finished a cell or None if it ran none)."""
    try:
        record = json.loads(record_path(runtime_dir / f"kernel-{kernel_id}.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False, None
    return True, record.get("last_run")
