"""The self-paced learner's progress: quiz answers, module tests and lab checks, kept on this machine.

One JSON file (store_path(); COURSE_PROGRESS_DIR overrides the folder). Every change is a locked
read-modify-write that ends in an atomic rename, so a crash or a second kernel never leaves half a
file. A file that cannot be read is moved aside to progress.corrupt-<time>.json and reported, here
and in every summary, before a fresh store is started: learners' records are never dropped silently.
"""
from __future__ import annotations

import contextlib
import json
import os
import re
import sys
import tempfile
import uuid
import warnings
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable, Iterable

SCHEMA = 1
SECTIONS = ("quizzes", "module_tests", "labs")


class CorruptStoreWarning(UserWarning):
    """The progress file could not be read; it was backed up and a fresh one started."""


def store_path() -> Path:
    """COURSE_PROGRESS_DIR/progress.json, else the user's data folder (XDG_DATA_HOME or ~/.local/share)."""
    folder = os.environ.get("COURSE_PROGRESS_DIR")
    if folder:
        base = Path(folder).expanduser()
    else:
        base = Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share") / "llm-course"
    return base / "progress.json"


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def _empty() -> dict:
    return {"schema": SCHEMA, "learner": uuid.uuid4().hex[:12], "quizzes": {}, "module_tests": {}, "labs": {},
            "recovered": []}


def _valid(data: Any) -> bool:
    return (isinstance(data, dict) and data.get("schema") == SCHEMA and isinstance(data.get("learner"), str)
            and all(isinstance(data.get(k), dict) for k in SECTIONS) and isinstance(data.get("recovered"), list))


@contextlib.contextmanager
def _locked(path: Path):
    """Hold an exclusive lock on path.lock (POSIX) so two kernels don't lose each other's updates."""
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        import fcntl
    except ImportError:  # Windows: atomic replace still protects the file, only concurrent updates race
        yield
        return
    with open(path.with_name(path.name + ".lock"), "w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _write(path: Path, data: dict) -> None:
    fd, tmp = tempfile.mkstemp(prefix=".progress-", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump(data, handle, indent=1, sort_keys=True)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def _read(path: Path) -> dict:
    """The store's contents; a missing file is an empty store, an unreadable one is backed up."""
    if not path.exists():
        return _empty()
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        error = None if _valid(data) else "not a progress store of schema 1"
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        data, error = None, f"{type(exc).__name__}: {exc}"
    if error is None:
        return data
    stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%S%f")
    backup = path.with_name(f"progress.corrupt-{stamp}.json")
    os.replace(path, backup)
    message = (f"progress store {path} could not be read ({error}); it was moved to {backup} and a new "
               "store started. Your earlier results are in the backup.")
    warnings.warn(message, CorruptStoreWarning, stacklevel=3)
    print(f"WARNING: {message}", file=sys.stderr)
    fresh = _empty()
    if isinstance(data, dict) and isinstance(data.get("learner"), str):
        fresh["learner"] = data["learner"]  # keep the learner's seeds stable where the id survived
    fresh["recovered"].append({"time": _now(), "backup": str(backup), "error": error})
    _write(path, fresh)
    return fresh


def load() -> dict:
    """A snapshot of the store (read under the lock, so never half-written)."""
    path = store_path()
    with _locked(path):
        return _read(path)


def update(change: Callable[[dict], Any]) -> Any:
    """Apply change(data) under the lock and write the result atomically; returns change's result."""
    path = store_path()
    with _locked(path):
        data = _read(path)
        result = change(data)
        _write(path, data)
        return result


def learner_id() -> str:
    """COURSE_STUDENT if set, else this store's random learner id (seeds quizzes per learner)."""
    # update(), not load(): a new store's random id must be saved before anything is seeded with it.
    return os.environ.get("COURSE_STUDENT") or update(lambda data: data["learner"])


# --- recording --------------------------------------------------------------------------------------

def quiz_attempts(bank_id: str) -> list[dict]:
    return load()["quizzes"].get(bank_id, {}).get("attempts", [])


def attempt_finished(attempt: dict) -> bool:
    shown = attempt.get("shown") or []
    return bool(shown) and all(attempt["items"].get(i, {}).get("correct") for i in shown)


def record_quiz(bank_id: str, *, module: str, seed: int, shown: list[str], item_id: str, response: Any,
                correct: bool) -> dict:
    """Record one checked answer in the lesson-quiz attempt identified by (bank_id, seed).

    Per item it keeps every response, the number of tries, whether the first try was right (the
    score) and whether it is right now. Returns the attempt as stored.
    """
    if item_id not in shown:
        raise ValueError(f"record_quiz: item {item_id!r} is not among the shown items {shown}")

    def change(data):
        entry = data["quizzes"].setdefault(bank_id, {"module": module, "attempts": []})
        entry["module"] = module
        attempt = next((a for a in entry["attempts"] if a["seed"] == seed), None)
        if attempt is None:
            attempt = {"seed": seed, "started": _now(), "shown": list(shown), "items": {}}
            entry["attempts"].append(attempt)
        record = attempt["items"].setdefault(item_id, {"tries": 0, "first_correct": bool(correct),
                                                       "correct": False, "responses": []})
        record["tries"] += 1
        record["correct"] = bool(correct)
        record["responses"].append(_jsonable(response))
        attempt["updated"] = _now()
        attempt["score"] = sum(attempt["items"].get(i, {}).get("first_correct", False) for i in shown)
        attempt["total"] = len(shown)
        return json.loads(json.dumps(attempt))

    return update(change)


def module_test_attempts(module: str, bank_id: str, student: str, *, formerly: Iterable[str] = ()) -> list[dict]:
    """The submitted attempts of one student at one module test, oldest first. `formerly`: the bank's
    earlier ids (Bank.formerly): attempts recorded before a rename stay under the id they had then."""
    ids = {bank_id, *formerly}
    attempts = load()["module_tests"].get(module, {}).get("attempts", [])
    return [a for a in attempts if a.get("bank") in ids and a.get("student") == student]


def record_module_test(module: str, *, bank_id: str, student: str, seed: int, items: dict[str, dict],
                       pass_mark: float, attempt: int = 1) -> dict:
    """Record submitted attempt number `attempt`; `items` maps item id -> {response, correct}. Returns the record."""
    total = len(items)
    score = sum(bool(v.get("correct")) for v in items.values())
    record = {"time": _now(), "bank": bank_id, "student": student, "attempt": attempt, "seed": seed,
              "score": score, "total": total,
              "pass_mark": pass_mark, "passed": total > 0 and score / total >= pass_mark - 1e-12,
              "items": {k: {"response": _jsonable(v.get("response")), "correct": bool(v.get("correct"))}
                        for k, v in items.items()}}

    def change(data):
        data["module_tests"].setdefault(module, {"attempts": []})["attempts"].append(record)

    update(change)
    return record


def lab_module(lab_id: str) -> str:
    """The module the course outline lists the lab under; failing that, its name's number ('lab3-kv-cache':
    m3): a progress record never waits on the outline (`course doctor` reports a broken one)."""
    from .outline import OutlineError, module_of

    try:
        module = module_of(lab_id)
    except OutlineError:
        module = None
    match = re.match(r"lab(\d+)", lab_id)
    return module or (f"m{match.group(1)}" if match else "other")


def record_lab_check(lab_id: str, passed: int, total: int, *, module: str | None = None) -> dict:
    """Record a `course check` run: how many of the lab's visible checks passed."""
    if not 0 <= passed <= total:
        raise ValueError(f"record_lab_check({lab_id!r}): passed={passed} must be between 0 and total={total}")
    check = {"time": _now(), "passed": int(passed), "total": int(total)}

    def change(data):
        entry = data["labs"].setdefault(lab_id, {"module": module or lab_module(lab_id), "checks": []})
        entry["checks"].append(check)

    update(change)
    return check


def record_exercise(exercise_id: str, *, lesson: str, prediction: float, answer: float, off_pct: float,
                    close: bool) -> dict:
    """Record a revealed exercise: the committed prediction against the worked answer. Kept in its own
    section (older stores have none yet), each reveal appended."""
    entry = {"time": _now(), "prediction": float(prediction), "answer": float(answer),
             "off_pct": round(float(off_pct), 3), "close": bool(close)}

    def change(data):
        record = data.setdefault("exercises", {}).setdefault(exercise_id, {"lesson": lesson, "reveals": []})
        record["reveals"].append(entry)

    update(change)
    return entry


def exercise_reveals(exercise_id: str) -> list[dict]:
    return load().get("exercises", {}).get(exercise_id, {}).get("reveals", [])


def _jsonable(value: Any) -> Any:
    if isinstance(value, (set, frozenset, tuple)):
        return sorted(value, key=str)
    return value


# --- reporting --------------------------------------------------------------------------------------

def summary() -> dict:
    """Per module: quizzes (attempts, latest and best score), module test (best, passed), labs."""
    data = load()
    modules: dict[str, dict] = {}

    def mod(name):
        return modules.setdefault(name, {"quizzes": {}, "module_test": None, "labs": {}})

    for bank_id, entry in data["quizzes"].items():
        attempts = entry["attempts"]
        scores = [a.get("score", 0) / a["total"] for a in attempts if a.get("total")]
        latest = attempts[-1] if attempts else {}
        mod(entry.get("module", "other"))["quizzes"][bank_id] = {
            "attempts": len(attempts), "answered": len(latest.get("items", {})), "shown": latest.get("total", 0),
            "latest": scores[-1] if scores else None, "best": max(scores) if scores else None,
            "finished": attempt_finished(latest) if latest else False}
    for module, entry in data["module_tests"].items():
        attempts = entry["attempts"]
        best = max(attempts, key=lambda a: (a["score"] / a["total"] if a["total"] else 0), default=None)
        mod(module)["module_test"] = {
            "attempts": len(attempts), "best": best["score"] / best["total"] if best and best["total"] else None,
            "best_score": f"{best['score']}/{best['total']}" if best else None,
            "passed": any(a["passed"] for a in attempts)}
    for lab_id, entry in data["labs"].items():
        checks = entry["checks"]
        last = checks[-1] if checks else None
        best = max(checks, key=lambda c: c["passed"] / c["total"] if c["total"] else 0) if checks else None
        mod(entry.get("module") or lab_module(lab_id))["labs"][lab_id] = {
            "checks": len(checks), "latest": f"{last['passed']}/{last['total']}" if last else None,
            "best": f"{best['passed']}/{best['total']}" if best else None,   # a later check may see less
            "all_passed": any(c["total"] and c["passed"] == c["total"] for c in checks)}
    return {name: modules[name] for name in sorted(modules)}


def _pct(x: float | None) -> str:
    return "-" if x is None else f"{100 * x:.0f}%"


def summary_rows(report: dict | None = None) -> list[tuple[str, str, str, str]]:
    """(module, quizzes, module test, labs) in words, for the CLI table and the start page."""
    report = summary() if report is None else report
    rows = []
    for module, entry in report.items():
        quizzes = entry["quizzes"]
        # answered counts the latest attempt, so an unfinished quiz shows what is left to do
        quiz_text = "; ".join(f"{b}: {q['answered']}/{q['shown']} answered, best {_pct(q['best'])} "
                              f"({q['attempts']} attempt{'s' if q['attempts'] != 1 else ''})"
                              for b, q in sorted(quizzes.items())) or "-"
        test = entry["module_test"]
        test_text = (f"{'passed' if test['passed'] else 'not passed'}, best {test['best_score']} "
                     f"({test['attempts']} attempt{'s' if test['attempts'] != 1 else ''})") if test else "-"
        labs = "; ".join(f"{lab}: best {v['best']}, latest {v['latest']}{' all passed' if v['all_passed'] else ''}"
                         for lab, v in sorted(entry["labs"].items())) or "-"
        rows.append((module, quiz_text, test_text, labs))
    return rows
