"""Progress store: location, atomic writes, corrupt stores backed up and reported, summaries, CLI."""
from __future__ import annotations

import argparse
import json
import os
import threading

import pytest

from coursekit import progress, progress_report
from coursekit.app.progress_cli import register
from paths import ROOT


@pytest.fixture
def store(tmp_path, monkeypatch):
    monkeypatch.setenv("COURSE_PROGRESS_DIR", str(tmp_path))
    return tmp_path / "progress.json"


def test_store_path_env_and_default(monkeypatch, tmp_path):
    monkeypatch.setenv("COURSE_PROGRESS_DIR", str(tmp_path / "x"))
    assert progress.store_path() == tmp_path / "x" / "progress.json"
    monkeypatch.delenv("COURSE_PROGRESS_DIR")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    assert progress.store_path() == tmp_path / "data" / "llm-course" / "progress.json"


def test_records_persist_and_summarise(store):
    progress.record_quiz("m1-l1", module="m1", seed=7, shown=["a", "b"], item_id="a", response=2, correct=False)
    progress.record_quiz("m1-l1", module="m1", seed=7, shown=["a", "b"], item_id="a", response=1, correct=True)
    progress.record_quiz("m1-l1", module="m1", seed=7, shown=["a", "b"], item_id="b", response=0.5, correct=True)
    progress.record_module_test("m1", bank_id="m1-test", student="s", seed=1,
                                items={f"i{n}": {"response": n, "correct": n < 12} for n in range(15)}, pass_mark=0.8)
    progress.record_lab_check("lab1-roofline", 3, 5)
    progress.record_lab_check("lab1-roofline", 5, 5)
    progress.record_lab_check("lab3-kv-cache", 1, 4)
    data = json.loads(store.read_text())                    # what a new kernel would read
    attempt = data["quizzes"]["m1-l1"]["attempts"][0]
    assert attempt["items"]["a"]["tries"] == 2 and attempt["items"]["a"]["responses"] == [2, 1]
    assert attempt["score"] == 1 and progress.attempt_finished(attempt)
    report = progress.summary()
    assert report["m1"]["quizzes"]["m1-l1"]["best"] == 0.5
    assert report["m1"]["module_test"]["passed"] is True and report["m1"]["module_test"]["best_score"] == "12/15"
    assert report["m1"]["labs"]["lab1-roofline"] == {"checks": 2, "latest": "5/5", "best": "5/5", "all_passed": True}
    assert report["m3"]["labs"]["lab3-kv-cache"]["all_passed"] is False
    text = progress_report.format_summary()
    assert "quiz: all answered right; 1 of 2 on the first try (best of 1 attempt)" in text
    assert "passed: best 12/15 right, pass mark 80%" in text
    assert "(lab3-kv-cache): 1 of 4 tasks pass their visible tests" in text
    html = progress_report.progress_html()
    assert "course-progress-table" in html and "(lab1-roofline)</a></td><td>all 5 tasks passed their visible tests" in html
    assert "all answered right; 1 of 2 on the first try" in html


def test_summary_counts_questions_answered_in_the_latest_attempt(store):
    shown = ["a", "b", "c"]
    for item, correct in [("a", True), ("b", True), ("c", False)]:
        progress.record_quiz("m1-l2", module="m1", seed=1, shown=shown, item_id=item, response=0, correct=correct)
    progress.record_quiz("m1-l2", module="m1", seed=2, shown=shown, item_id="a", response=0, correct=True)
    assert progress.summary()["m1"]["quizzes"]["m1-l2"]["answered"] == 1
    text = progress_report.format_summary()
    assert "in progress  Lesson 2: Memory in bytes per parameter: quiz: 1 of 3 questions answered right" in text


def test_bad_records_are_refused(store):
    with pytest.raises(ValueError, match="between 0 and total"):
        progress.record_lab_check("lab1-roofline", 6, 5)
    with pytest.raises(ValueError, match="not among the shown items"):
        progress.record_quiz("m1-l1", module="m1", seed=1, shown=["a"], item_id="z", response=0, correct=True)


def test_corrupt_store_is_backed_up_and_reported(store, capsys):
    progress.record_lab_check("lab1-roofline", 1, 2)
    learner = progress.load()["learner"]
    store.write_text('{"schema": 1, "learner": "' + learner + '", "quizzes": {')   # truncated mid-write
    with pytest.warns(progress.CorruptStoreWarning, match="moved to"):
        progress.record_lab_check("lab1-roofline", 2, 2)
    backups = list(store.parent.glob("progress.corrupt-*.json"))
    assert len(backups) == 1 and backups[0].read_text().startswith('{"schema": 1')
    assert "could not be read" in capsys.readouterr().err
    data = progress.load()
    assert data["labs"]["lab1-roofline"]["checks"][-1]["passed"] == 2
    assert data["recovered"][0]["backup"] == str(backups[0])
    assert "backed up to" in progress_report.format_summary()
    store.write_text(json.dumps({"something": "else"}))                           # valid JSON, wrong shape
    with pytest.warns(progress.CorruptStoreWarning):
        progress.load()
    assert len(list(store.parent.glob("progress.corrupt-*.json"))) == 2


def test_writes_are_atomic_and_locked(store):
    # Many threads updating at once (as two kernels might) lose nothing and leave valid JSON.
    def work(n):
        for k in range(10):
            progress.record_lab_check(f"lab{n}-x", k, 10)

    threads = [threading.Thread(target=work, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    data = json.loads(store.read_text())
    assert sum(len(v["checks"]) for v in data["labs"].values()) == 40
    assert not [p for p in os.listdir(store.parent) if p.endswith(".tmp")]


def test_write_failure_leaves_old_store(store, monkeypatch):
    progress.record_lab_check("lab1-roofline", 1, 2)
    before = store.read_text()

    def boom(*a, **k):
        raise OSError("disk full")

    monkeypatch.setattr(progress.json, "dump", boom)
    with pytest.raises(OSError, match="disk full"):
        progress.record_lab_check("lab1-roofline", 2, 2)
    assert store.read_text() == before
    assert not [p for p in os.listdir(store.parent) if p.endswith(".tmp")]


def test_learner_id_is_stable(store, monkeypatch):
    monkeypatch.delenv("COURSE_STUDENT", raising=False)
    first = progress.learner_id()
    assert first == progress.learner_id() and len(first) == 12
    monkeypatch.setenv("COURSE_STUDENT", "alice")
    assert progress.learner_id() == "alice"


def test_progress_cli(store, capsys):
    progress.record_lab_check("lab3-kv-cache", 4, 4)
    parser = argparse.ArgumentParser(prog="course")
    register(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(["progress"])
    assert args.handler(args) == 0
    text = capsys.readouterr().out
    assert "(lab3-kv-cache): all 4 tasks passed their visible tests" in text
    args = parser.parse_args(["progress", "--json"])
    assert args.handler(args) == 0
    report = json.loads(capsys.readouterr().out)
    # --json is the same report as the text, as data: the text made from it is what `course progress` printed
    assert progress_report.format_summary(report) + "\n" == text
    lab = next(i for m in report["modules"] for i in m["items"] if "(lab3-kv-cache)" in i["title"])
    assert (lab["state"], lab["detail"]) == ("done", "all 4 tasks passed their visible tests at your best check")
    assert report["store"] == str(store) and report["next"]["title"].startswith("Lesson 1")


def test_module_test_attempts_under_the_former_id_still_count(store, capsys):
    """m1's test was m1-module-test until it took the mN-test name: an attempt recorded under the old id
    counts for m1-test (the bank's `formerly` names it) and shows in `course progress`."""
    from coursekit.quiz.bank import load_all_banks

    bank = load_all_banks(ROOT / "quizzes")["m1-test"]
    progress.record_module_test("m1", bank_id="m1-module-test", student="s", seed=1, pass_mark=0.8,
                                items={f"i{n}": {"response": n, "correct": n < 13} for n in range(15)})
    attempts = progress.module_test_attempts("m1", "m1-test", "s", formerly=bank.formerly)
    assert [(a["bank"], a["score"]) for a in attempts] == [("m1-module-test", 13)]
    assert progress.module_test_attempts("m1", "m1-test", "s") == []          # the id now alone misses it
    assert progress.module_test_attempts("m1", "m1-test", "t", formerly=bank.formerly) == []   # per student
    parser = argparse.ArgumentParser(prog="course")
    register(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(["progress"])
    assert args.handler(args) == 0
    assert "Module 1 test: passed: best 13/15 right, pass mark 80% (1 attempt)" in capsys.readouterr().out


def test_progress_json_says_a_recovered_store_and_the_end(store, monkeypatch):
    store.parent.mkdir(parents=True, exist_ok=True)
    store.write_text("{not json")
    with pytest.warns(progress.CorruptStoreWarning):
        report = progress_report.summary_report()
    assert report["recovered"][0]["backup"].startswith(str(store.parent))
    assert "NOTE: an unreadable store was backed up to" in progress_report.format_summary(report)
    monkeypatch.setattr(progress_report, "course_report", lambda root, data: [])
    report = progress_report.summary_report()
    assert report["next"] is None and report["modules"] == []
    assert progress_report.format_summary(report).endswith("Everything is done.\n" + progress_report.MEANING)


def test_show_progress_displays_summary(store, monkeypatch):
    progress.record_lab_check("lab1-roofline", 1, 3)
    shown = []
    monkeypatch.setattr("IPython.display.display", lambda obj: shown.append(obj))
    progress_report.show_progress()
    assert "(lab1-roofline)</a></td><td>1 of 3 tasks pass their visible tests" in shown[0].data
    # a notebook saved with this output keeps a snapshot: it says when it was read and how to refresh it
    assert "course-progress-snapshot" in shown[0].data and "run this cell again" in shown[0].data
