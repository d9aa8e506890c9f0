"""The course knows Module 2: the start page links it, `course progress` files its quizzes and lab
under m2, and `course doctor` counts its lessons, lab and banks."""
from __future__ import annotations

from coursekit.app import doctor
from coursekit import progress
from coursekit import progress_report
from paths import ROOT


def test_start_page_lists_module2_lessons_lab_and_test():
    text = (ROOT / "course" / "index.ipynb").read_text()
    assert "Module 2: Training chips" in text
    lessons = sorted((ROOT / "course" / "m2-training-chips").glob("*.ipynb"))
    assert len(lessons) >= 4, lessons
    for lesson in lessons:
        assert f"m2-training-chips/{lesson.name}" in text
    assert "../work/lab2-cluster/lab2-cluster.ipynb" in text   # the learner's own copy
    assert "In preparation" not in text.split("Module 2: Training chips")[1].split("## Module 3")[0]


def test_progress_files_module2_under_m2(tmp_path, monkeypatch):
    monkeypatch.setenv("COURSE_PROGRESS_DIR", str(tmp_path))
    progress.record_quiz("m2-l3", module="m2", seed=1, shown=["a", "b", "c"], item_id="a", response=0, correct=True)
    progress.record_lab_check("lab2-cluster", 6, 7)
    report = progress.summary()
    assert report["m2"]["labs"]["lab2-cluster"] == {"checks": 1, "latest": "6/7", "best": "6/7", "all_passed": False}
    assert "m2-l3" in report["m2"]["quizzes"]
    assert "(lab2-cluster): 6 of 7 tasks pass their visible tests" in progress_report.format_summary()


def test_doctor_counts_module2():
    lessons = doctor.check_course_files(ROOT)
    labs = doctor.check_labs(ROOT)
    total_lessons = len(list((ROOT / "course").glob("m*/*.ipynb")))
    assert lessons.ok and f"{total_lessons} lesson notebooks" in lessons.detail
    assert (ROOT / "course" / "m2-training-chips" / "module-test.ipynb").exists()
    assert labs.ok and (ROOT / "labs" / "lab2-cluster" / "lab2-cluster.ipynb").exists()
