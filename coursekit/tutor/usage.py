"""A learner's questions over time (for the class's per-student rate limit) and, where the class opted
in, which task each question was about: counts, never the question's text.

The rate limit is kept in the learner's own progress folder, so it is enforced by the learner's own
server: it stops a student from emptying the class's budget by accident, not one set on doing so (a
key the student's server can use is a key the student can use; docs/TUTOR.md says what to do about it).
"""
from __future__ import annotations

import getpass
import json
import os
import time
from collections import Counter
from pathlib import Path

from .config import TutorConfig

HOUR_S = 3600


def _times_file() -> Path:
    from coursekit.progress import store_path

    return store_path().parent / "tutor-asks.json"


def _times() -> list[float]:
    try:
        data = json.loads(_times_file().read_text(encoding="utf-8"))
        return [float(t) for t in data] if isinstance(data, list) else []
    except (OSError, ValueError, TypeError):
        return []


def allowed(config: TutorConfig, now: float | None = None) -> str | None:
    """None if the learner may ask now, else why not (how long to wait)."""
    if config.rate_per_hour is None:
        return None
    now = time.time() if now is None else now
    recent = sorted(t for t in _times() if now - t < HOUR_S)
    if len(recent) < config.rate_per_hour:
        return None
    wait = int(HOUR_S - (now - recent[-config.rate_per_hour])) + 1
    return (f"the class allows {config.rate_per_hour} questions an hour (set in {config.source}); "
            f"ask again in {wait // 60} min {wait % 60} s, or use the lab's hints meanwhile")


def record(config: TutorConfig, lab: str | None, task: str | None, now: float | None = None) -> None:
    now = time.time() if now is None else now
    path = _times_file()
    path.parent.mkdir(parents=True, exist_ok=True)
    kept = [t for t in _times() if now - t < HOUR_S] + [now]
    temp = path.with_suffix(f".{os.getpid()}.tmp")
    temp.write_text(json.dumps(kept), encoding="utf-8")
    os.replace(temp, path)
    if config.count_asks and config.asks_dir:
        # one line per question: the lab and task only. The hub's folder is write-only for students (1733).
        line = json.dumps({"lab": lab or "", "task": task or ""}) + "\n"
        fd = os.open(Path(config.asks_dir) / f"{getpass.getuser()}.jsonl", os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        with os.fdopen(fd, "a", encoding="utf-8") as handle:
            handle.write(line)


def counts(asks_dir: Path) -> list[tuple[str, str, int, int]]:
    """(lab, task, questions, learners who asked) per task, most asked first; a broken line is skipped
    and named on stderr, the rest still counted."""
    import sys

    asked, who = Counter(), {}
    for path in sorted(Path(asks_dir).glob("*.jsonl")):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            try:
                entry = json.loads(line)
                key = (str(entry["lab"]), str(entry["task"]))
            except (ValueError, KeyError, TypeError):
                print(f"{path}:{number}: not a count line, skipped", file=sys.stderr)
                continue
            asked[key] += 1
            who.setdefault(key, set()).add(path.stem)
    return [(lab, task, n, len(who[(lab, task)])) for (lab, task), n in asked.most_common()]
