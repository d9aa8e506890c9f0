"""Every lesson ends with a "Next" link generated from the course outline (`python -m coursekit.app.nbtools
next`): to the module's next lesson, or after the last lesson to the learner's lab copy and the
module test. The committed lessons are up to date and every link leads to a notebook."""
from __future__ import annotations

import posixpath
import shutil

import nbformat

from coursekit.app.nbtools import NEXT_TAG, next_links, set_next_cell
from paths import ROOT

LINK = r"\]\(([^)]+)\)"


def test_committed_lessons_end_with_their_current_next_link():
    links = next_links(ROOT)
    assert set(links) == set(ROOT.glob("course/m*/[0-9]*.ipynb"))
    for lesson, text in links.items():
        last = nbformat.read(lesson, as_version=4).cells[-1]
        assert NEXT_TAG in last.metadata.get("tags", []) and last.source == text, \
            f"{lesson}: run python -m coursekit.app.nbtools next"


def test_links_lead_to_the_next_step():
    import re

    links = next_links(ROOT)
    first = links[ROOT / "course/m1-training-vs-inference/01-what-each-does.ipynb"]
    assert first == "**Next:** [Lesson 2: Memory in bytes per parameter](02-memory-per-parameter.ipynb)"
    last = links[ROOT / "course/m1-training-vs-inference/04-beyond-one-chip.ipynb"]
    assert "(../../work/lab1-roofline/lab1-roofline.ipynb)" in last and last.endswith("[Module 1 test](module-test.ipynb)")
    for lesson, text in links.items():
        for target in re.findall(LINK, text):
            resolved = posixpath.normpath(posixpath.join(lesson.parent.relative_to(ROOT).as_posix(), target))
            release = resolved.replace("work/", "labs/", 1)   # a work copy is made from labs/
            assert (ROOT / resolved).exists() or (ROOT / release).exists(), f"{lesson}: {target}"


def test_regenerating_replaces_the_link_and_keeps_the_rest(tmp_path):
    lesson = tmp_path / "lesson.ipynb"
    shutil.copy(ROOT / "course/m1-training-vs-inference/01-what-each-does.ipynb", lesson)
    cells = len(nbformat.read(lesson, as_version=4).cells)
    assert not set_next_cell(lesson, next_links(ROOT)[ROOT / "course/m1-training-vs-inference/01-what-each-does.ipynb"])
    assert set_next_cell(lesson, "**Next:** [Somewhere else](x.ipynb)")
    nb = nbformat.read(lesson, as_version=4)
    assert len(nb.cells) == cells and nb.cells[-1].source == "**Next:** [Somewhere else](x.ipynb)"
