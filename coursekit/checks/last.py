"""The output of the learner's last check of each lab, kept so the tutor can explain it.

`check_here()` and `course check` both remember what they printed, in the progress folder
(`last-check/<lab>.json` beside progress.json): the same text the learner saw, nothing more.
"""
from __future__ import annotations

import json
import os
import re
from datetime import datetime, timezone
from pathlib import Path

LAB_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]*")   # a lab id names a file here: no separators


def folder() -> Path:
    from coursekit.progress import store_path

    return store_path().parent / "last-check"


def remember(lab_id: str, text: str, how: str) -> None:
    """Keep `text` (what the check printed) as lab_id's last check; `how` says which check made it."""
    if not LAB_ID.fullmatch(lab_id):
        return
    where = folder()
    where.mkdir(parents=True, exist_ok=True)
    path = where / f"{lab_id}.json"
    temp = path.with_suffix(f".{os.getpid()}.tmp")
    temp.write_text(json.dumps({"lab": lab_id, "how": how, "text": text,
                                "at": datetime.now(timezone.utc).isoformat(timespec="seconds")}), encoding="utf-8")
    os.replace(temp, path)   # a reader never sees half a file


def last(lab_id: str, read=lambda path: path.read_text(encoding="utf-8")) -> dict | None:
    """{"lab", "how", "text", "at"} of the last check of lab_id, or None (never checked, or unreadable);
    `read` opens the file (the tutor passes its allowlist's reader)."""
    if not LAB_ID.fullmatch(lab_id):
        return None
    try:
        data = json.loads(read((folder() / f"{lab_id}.json")))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) and isinstance(data.get("text"), str) else None
