"""How long each test file took in a full run (tests/durations.json), so the run can start the longest first.

pytest-xdist hands a worker one unit (a file, or a group of files that share a start-up: conftest.unit_of)
at a time, in collection order. When a long unit starts last, one worker runs it alone while the other
has finished: on 2 cores that tail was about two minutes of a full run. Sorting units by their measured
seconds, longest first, is the classic longest-processing-time rule. A file the table does not know keeps
its collection order after the known ones; a stale table costs minutes, never a result.

`./course.sh test --store-durations` measures the files it runs (setup, call and teardown of each test)
and merges them into the table; files that no longer exist leave it.
"""
from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from pathlib import Path

TABLE = Path(__file__).resolve().parent / "durations.json"


def load(table: Path = TABLE) -> dict[str, float]:
    """file (relative to the repository) -> seconds; {} when the table is missing or unreadable."""
    try:
        seconds = json.loads(table.read_text())["seconds"]
    except (OSError, ValueError, KeyError, TypeError):
        return {}
    return {path: float(s) for path, s in seconds.items() if isinstance(s, (int, float))} \
        if isinstance(seconds, dict) else {}


def longest_first(nodeids: list[str], seconds: dict[str, float], unit_of: Callable[[str], str]) -> list[str]:
    """`nodeids` reordered so units run longest first (a unit's seconds are its files' sum); tests keep
    their order within a unit, and units the table does not know keep theirs, after the known ones."""
    files = {nodeid.split("::", 1)[0] for nodeid in nodeids}
    per_unit: dict[str, float] = {}
    for path in files:
        if path in seconds:
            per_unit[unit_of(path)] = per_unit.get(unit_of(path), 0.0) + seconds[path]
    first_seen: dict[str, int] = {}
    for n, nodeid in enumerate(nodeids):
        first_seen.setdefault(unit_of(nodeid), n)
    order = {nodeid: n for n, nodeid in enumerate(nodeids)}

    def key(nodeid: str):
        unit = unit_of(nodeid)
        known = unit in per_unit
        return (not known, -per_unit.get(unit, 0.0), first_seen[unit], order[nodeid])
    return sorted(nodeids, key=key)


def merge(measured: dict[str, float], root: Path, table: Path = TABLE, note: str = "") -> dict[str, float]:
    """The table with `measured` written over it, files that no longer exist under `root` dropped."""
    seconds = {**load(table), **measured}
    seconds = {path: round(s, 1) for path, s in sorted(seconds.items(), key=lambda kv: -kv[1])
               if (root / path).is_file()}
    table.write_text(json.dumps({"note": note or "./course.sh test --store-durations", "seconds": seconds},
                                indent=1) + "\n")
    return seconds


def per_file(reports: Iterable) -> dict[str, float]:
    """Seconds per test file from pytest's test reports (every phase of every test)."""
    totals: dict[str, float] = {}
    for report in reports:
        path = report.nodeid.split("::", 1)[0]
        totals[path] = totals.get(path, 0.0) + float(report.duration)
    return totals
