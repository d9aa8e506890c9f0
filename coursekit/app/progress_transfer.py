"""Progress carried between JupyterLab and the course website: `course progress --export FILE` writes the
progress store as it is (coursekit/progress.py's format, which the site keeps in the browser too), and
`course progress --import FILE` merges a file exported by either into the store.

Merging keeps everything: attempts and checks are added, never replaced, so every best result
survives; an attempt both sides hold (the same quiz seed, the same submitted test) is kept once, with
the further-along record of each answered question. static/progress.js merges the same way in the
browser. A file that is not a progress file (coursekit/progress.schema.json, checked on both sides) is
refused with its name and the first problems found.
"""
from __future__ import annotations

import json
from pathlib import Path

from coursekit import progress
from coursekit.progress_schema import problems

MAX_PROBLEMS = 5


def read_export(text: str, name: str) -> dict:
    """A progress file's contents; ValueError naming the file and what is wrong with it."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"{name}: not a course progress file: not valid JSON ({exc.msg} at line {exc.lineno}, "
                         f"column {exc.colno})") from None
    found = problems(data)
    if found:
        more = f" (and {len(found) - MAX_PROBLEMS} more)" if len(found) > MAX_PROBLEMS else ""
        raise ValueError(f"{name}: not a course progress file: {'; '.join(found[:MAX_PROBLEMS])}{more}")
    return data


def _further(a: dict, b: dict) -> dict:
    """Of two records of one question in one attempt, the further along: right now, then more tries."""
    return max((a, b), key=lambda r: (bool(r.get("correct")), r.get("tries", 0)))


def merge(data: dict, incoming: dict) -> int:
    """Add `incoming`'s attempts, checks and exercise reveals to `data` (in place); returns how many were added."""
    added = 0
    for bank, entry in incoming["quizzes"].items():
        mine = data["quizzes"].setdefault(bank, {"module": entry.get("module", "other"), "attempts": []})
        mine.setdefault("module", entry.get("module", "other"))
        by_seed = {str(a["seed"]): a for a in mine["attempts"]}
        for attempt in entry["attempts"]:
            same = by_seed.get(str(attempt["seed"]))
            if same is None:
                copy = json.loads(json.dumps(attempt))
                mine["attempts"].append(copy)
                by_seed[str(copy["seed"])] = copy
                added += 1
                continue
            for item, record in attempt["items"].items():
                here = same["items"].get(item)
                same["items"][item] = json.loads(json.dumps(record if here is None else _further(here, record)))
            same["score"] = sum(same["items"].get(i, {}).get("first_correct", False) for i in same["shown"])
            same["total"] = len(same["shown"])
        mine["attempts"].sort(key=lambda a: a.get("started") or "")
    for module, entry in incoming["module_tests"].items():
        mine = data["module_tests"].setdefault(module, {"attempts": []})
        added += _add_unseen(mine["attempts"], entry["attempts"], _test_key)
    for lab, entry in incoming["labs"].items():
        mine = data["labs"].setdefault(lab, {"module": entry.get("module") or progress.lab_module(lab), "checks": []})
        added += _add_unseen(mine["checks"], entry["checks"], _check_key)
    for exercise, entry in incoming.get("exercises", {}).items():
        mine = data.setdefault("exercises", {}).setdefault(exercise, {"lesson": entry["lesson"], "reveals": []})
        added += _add_unseen(mine["reveals"], entry["reveals"], _reveal_key)
    return added


def _add_unseen(mine: list, incoming: list, key) -> int:
    """Append each incoming record not already in `mine` (by `key`), keep `mine` in time order; how many."""
    seen = {key(r) for r in mine}
    added = 0
    for record in incoming:
        if key(record) not in seen:
            mine.append(json.loads(json.dumps(record)))
            seen.add(key(record))
            added += 1
    mine.sort(key=lambda r: r.get("time") or "")
    return added


def _test_key(a: dict) -> str:
    return json.dumps([a.get("bank"), a.get("student"), a.get("attempt"), str(a.get("seed")), a.get("time")])


def _reveal_key(r: dict) -> str:
    return json.dumps([r.get("time"), r.get("prediction")])


def _check_key(c: dict) -> str:
    return json.dumps([c.get("time"), c.get("passed"), c.get("total")])


def import_file(path: Path | str) -> int:
    """Merge a progress file into the store; returns the number of attempts and checks added."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ValueError(f"{path}: cannot read it: {getattr(exc, 'strerror', None) or exc}") from None
    incoming = read_export(text, str(path))
    return progress.update(lambda data: merge(data, incoming))


def export_file(path: Path | str) -> dict:
    """Write the store, as it is, to `path` (the site's "Import progress" reads it)."""
    data = progress.load()
    Path(path).write_text(json.dumps(data, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return data
