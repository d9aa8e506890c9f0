"""The course outline (course/outline.yaml, coursekit/outline.py) is the one list of modules and labs:
it matches the folders, a malformed one is refused with its file and problem named, and a lab that
`autograder new --module` adds appears on the start page, in `course progress` and on the site."""
from __future__ import annotations

import shutil
from pathlib import Path

import nbformat
import pytest

from coursekit.outline import OUTLINE, OutlineError, lab_ids, load_outline, outline_problems
from paths import ROOT


def folders(parent: Path) -> set[str]:
    return {p.name for p in parent.iterdir() if p.is_dir() and p.name[0] not in "._"}


def test_the_outline_matches_the_folders():
    assert outline_problems(ROOT) == []
    modules = load_outline(ROOT)
    assert {m.folder.name for m in modules if m.folder} == {p.name for p in (ROOT / "course").glob("m*-*") if p.is_dir()}
    labs = set(lab_ids(ROOT))
    assert labs == folders(ROOT / "labs"), "labs/ and course/outline.yaml differ"
    assert labs == folders(ROOT / "solutions") - {p.parent.name for p in (ROOT / "solutions").glob("*/quiz.json")}
    assert all(lab.released for m in modules for lab in m.labs)


def course_copy(tmp_path: Path) -> Path:
    """The course's outline, lessons and released labs (no solutions/, as a student has them)."""
    root = tmp_path / "course-root"
    root.mkdir()
    for folder in ("course", "labs"):
        shutil.copytree(ROOT / folder, root / folder)
    shutil.copy(ROOT / "nbgrader_config.py", root)
    return root


def test_outline_problems_name_each_folder_that_differs(tmp_path):
    root = course_copy(tmp_path)
    assert outline_problems(root) == []
    (root / "course" / "m7-extra").mkdir()
    (root / "labs" / "stray-lab").mkdir()
    (root / "solutions" / "draft-lab").mkdir(parents=True)
    (root / "solutions" / "a-quiz").mkdir()
    (root / "solutions" / "a-quiz" / "quiz.json").write_text("{}")       # a graded quiz is not a lab
    (root / "labs" / "b-quiz").mkdir()                                     # nor its release, in a student's copy
    nbformat.write(nbformat.v4.new_notebook(metadata={"course_quiz": {"bank": "m1-l1"}}),
                   root / "labs" / "b-quiz" / "b-quiz.ipynb")
    shutil.rmtree(root / "labs" / "lab2-cluster")
    assert outline_problems(root) == [
        f"course/m7-extra is not in {OUTLINE}: name it as a module's folder there",
        f"labs/stray-lab is not in {OUTLINE}: add it to its module's labs there (`autograder new --module` does for a new lab)",
        f"solutions/draft-lab is not in {OUTLINE}: add it to its module's labs there (`autograder new --module` does for a new lab)",
        f"{OUTLINE} lists lab lab2-cluster (module m2), but neither labs/lab2-cluster/ nor solutions/lab2-cluster/ exists"]


def test_course_doctor_reports_an_outline_that_disagrees(tmp_path):
    from coursekit.app.doctor import check_outline

    root = course_copy(tmp_path)
    assert check_outline(root).ok, check_outline(root)
    (root / "labs" / "lab6-new").mkdir()
    found = check_outline(root)
    assert not found.ok and found.detail.startswith("labs/lab6-new is not in course/outline.yaml") and "outline.yaml" in found.fix


GOOD = "modules:\n  - id: m1\n    title: One\n    folder: m1-one\n    labs: [lab1-a]\n"


@pytest.mark.parametrize("text, problem", [
    ("modules: [", "not valid YAML"),
    ("- id: m1\n", "expected one key, `modules:`"),
    ("modules:\n  - m1\n", "module 1: expected a mapping"),
    ("modules:\n  - id: one\n    title: One\n", "module 1: id 'one' is not m<number>"),
    ("modules:\n  - id: m1\n", "module 1: keys are id, title (both needed)"),
    ("modules:\n  - id: m1\n    title: One\n    lab: [x]\n", "keys are id, title (both needed), folder and labs; found ['id', 'lab', 'title']"),
    ("modules:\n  - id: m1\n    title: ''\n", "module m1: title must be a non-empty string"),
    (GOOD + "  - id: m1\n    title: Again\n", "module m1: listed twice"),
    ("modules:\n  - id: m1\n    title: One\n    folder: m2-two\n", "module m1: folder 'm2-two' must be one folder name under course/ starting with m1-"),
    ("modules:\n  - id: m1\n    title: One\n    folder: m1-one/../x\n", "must be one folder name"),
    ("modules:\n  - id: m1\n    title: One\n    labs: lab1-a\n", "module m1: labs must be a list of lab ids"),
    ("modules:\n  - id: m1\n    title: One\n    labs: [../x]\n", "module m1: labs must be a list of lab ids"),
    (GOOD + "  - id: m2\n    title: Two\n    labs: [lab1-a]\n", "module m2: lab lab1-a is already listed under module m1"),
    ("modules:\n  - id: m1\n    title: One\n    folder: m1-gone\n", "module m1: its folder"),
])
def test_a_malformed_outline_names_its_file_and_problem(tmp_path, text, problem):
    (tmp_path / "course" / "m1-one").mkdir(parents=True)
    (tmp_path / OUTLINE).write_text(text)
    with pytest.raises(OutlineError) as error:
        load_outline(tmp_path)
    assert str(error.value).startswith(f"{tmp_path / OUTLINE}: ") and problem in str(error.value), error.value
    assert outline_problems(tmp_path) == [str(error.value)]


def test_a_missing_outline_is_named_and_a_root_without_course_has_none(tmp_path):
    (tmp_path / "course").mkdir()
    with pytest.raises(OutlineError, match=f"{tmp_path / OUTLINE} not found"):
        load_outline(tmp_path)
    assert load_outline(tmp_path / "labs-only") == []    # e.g. an instructor's folder of labs on the hub


def test_the_index_reports_a_broken_outline_and_exits(tmp_path, monkeypatch, capsys):
    from coursekit import index

    root = course_copy(tmp_path)
    (root / OUTLINE).write_text((root / OUTLINE).read_text().replace("folder: m3-inference-chips", "folder: m3-missing"))
    monkeypatch.setenv("COURSE_ROOT", str(root))
    assert index.main(["--check"]) == 2
    assert f"{root / OUTLINE}: module m3: its folder {root / 'course' / 'm3-missing'} does not exist" in capsys.readouterr().err


def new_lab(root: Path, monkeypatch, *args: str) -> int:
    from autograder.cli import main

    monkeypatch.setenv("COURSE_ROOT", str(root))    # main() sets it; monkeypatch puts it back
    return main(["--root", str(root), "new", *args])


def release(root: Path, lab: str) -> None:
    """What `autograder generate` publishes, as far as the outline's readers look: the lab's notebook."""
    (root / "labs" / lab).mkdir()
    shutil.copy(root / "solutions" / lab / f"{lab}.ipynb", root / "labs" / lab)


def test_a_lab_added_by_autograder_new_appears_on_the_start_page_in_progress_and_on_the_site(tmp_path, monkeypatch):
    from coursekit import progress
    from coursekit.index import build_index
    from coursekit.progress_report import course_outline
    from coursekit.app.site.build import site_modules

    root = course_copy(tmp_path)
    before = {m.id: [lab.id for lab in m.labs] for m in load_outline(root)}
    assert new_lab(root, monkeypatch, "lab5-extra", "--module", "m5") == 0
    assert new_lab(root, monkeypatch, "kv-lab", "--module", "m8", "--module-title", "Serving: memory") == 0
    after = {m.id: [lab.id for lab in m.labs] for m in load_outline(root)}
    assert after == {**before, "m5": ["lab5-moe", "lab5-extra"], "m8": ["kv-lab"]}
    assert load_outline(root)[-1].title == "Serving: memory" and load_outline(root)[-1].folder is None
    assert (root / OUTLINE).read_text().startswith((ROOT / OUTLINE).read_text().split("modules:")[0])  # its comment kept
    assert outline_problems(root) == []          # solutions/ only, before `generate`: listed, not yet shown
    assert "lab5-extra" not in "\n".join(c.source for c in build_index(root).cells)

    release(root, "lab5-extra")
    release(root, "kv-lab")
    start = "\n".join(c.source for c in build_index(root).cells)
    module5 = start[start.index("## Module 5"):start.index("## Module 6")]
    assert module5.index("../work/lab5-moe/lab5-moe.ipynb") < module5.index("../work/lab5-extra/lab5-extra.ipynb") \
        < module5.index("[Module 5 test]")
    assert ("## Module 8: Serving: memory\n\n- Lab (graded): [kv-lab: decode throughput](../work/kv-lab/kv-lab.ipynb)"
            in start)
    outline = dict(course_outline(root))
    assert [s.key for s in outline["Module 5: Co-design"] if s.kind == "lab"] == ["lab5-moe", "lab5-extra"]
    assert [(s.kind, s.title) for s in outline["Module 8: Serving: memory"]] == [
        ("lab", "Lab 8: kv-lab: decode throughput (kv-lab)")]
    site = {m.caption: m.pages for m in site_modules(root)}
    assert site["Module 8: Serving: memory"] == ["labs/kv-lab/kv-lab.ipynb"]
    assert "labs/lab5-extra/lab5-extra.ipynb" in site["Module 5: Co-design"]
    assert progress.lab_module("kv-lab") == "m8"   # COURSE_ROOT is the copy: its check is filed under Module 8


def test_autograder_new_needs_a_known_module_or_a_title_and_writes_nothing_otherwise(tmp_path, monkeypatch, capsys):
    root = course_copy(tmp_path)
    outline = (root / OUTLINE).read_text()
    assert new_lab(root, monkeypatch, "lab9-x", "--module", "m9") == 2
    assert "there is no module m9 (modules: m1, m2, m3, m4, m5, m6, m7); give --module-title" in capsys.readouterr().err
    assert new_lab(root, monkeypatch, "lab1-roofline", "--module", "m2") == 2   # listed under m1 already
    assert "lab lab1-roofline is already listed under module m1, not m2" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        new_lab(root, monkeypatch, "lab9-x")                                    # --module is required
    assert (root / OUTLINE).read_text() == outline and not (root / "solutions").exists()


def test_course_progress_reports_a_broken_outline(tmp_path, monkeypatch, capsys):
    from coursekit.app.cli import main

    root = course_copy(tmp_path)
    (root / OUTLINE).write_text((root / OUTLINE).read_text().replace("  - id: m2\n", "  - id: two\n"))
    monkeypatch.setenv("COURSE_ROOT", str(root))
    monkeypatch.setenv("COURSE_PROGRESS_DIR", str(tmp_path / "progress"))
    assert main(["progress"]) == 1
    assert f"course progress: {root / OUTLINE}: module 2: id 'two' is not m<number>" in capsys.readouterr().err
