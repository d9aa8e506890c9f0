"""Module 1 lessons: structure, errata notes, and the numbers their prose states match coursekit.calc.

Executing every notebook is the foundation suite's job (tests/test_notebooks.py); here we check what a
reader is told.
"""
from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest

from coursekit.calc import memory, roofline

FOLDER = Path(__file__).resolve().parent.parent / "course" / "m1-training-vs-inference"
LESSONS = ["01-what-each-does", "02-memory-per-parameter", "03-compute-or-bandwidth", "04-beyond-one-chip"]


def _nb(name):
    return nbformat.read(FOLDER / f"{name}.ipynb", as_version=4)


def _markdown(name):
    return "\n".join(c.source for c in _nb(name).cells if c.cell_type == "markdown")


def _code(name):
    return "\n".join(c.source for c in _nb(name).cells if c.cell_type == "code")


@pytest.mark.parametrize("index, name", list(enumerate(LESSONS, 1)))
def test_lesson_structure(index, name):
    nb = _nb(name)
    text = _markdown(name)
    for heading in ("**Learning objectives.**", "## Key terms", "## Summary", "## Quiz"):
        assert heading in text, f"{name}: missing {heading}"
    assert "plt.show()" in _code(name), f"{name}: no figure"
    assert nb.cells[-1].source.strip().endswith(f'show_quiz("m1-l{index}")')
    for cell in nb.cells:   # committed clean
        if cell.cell_type == "code":
            assert cell.outputs == [] and cell.execution_count is None


@pytest.mark.parametrize("name, seeds", [
    ("02-memory-per-parameter", ["Seed 004", "Seed 003"]),
    ("03-compute-or-bandwidth", ["seed 003", "seed 001"]),
    ("04-beyond-one-chip", ["seed 002"]),
])
def test_errata_notes_are_in_the_lessons(name, seeds):
    text = _markdown(name) + _code(name)
    assert "Errata" in text
    for seed in seeds:
        assert seed.lower() in text.lower()


def test_errata_document_covers_each_corrected_seed():
    errata = (FOLDER.parent.parent / "docs" / "errata" / "m1.md").read_text()
    for seed in ("| 001 |", "| 002 |", "| 003", "| 004 |"):
        assert seed in errata


def test_numbers_stated_in_prose_match_the_functions():
    l1, l2, l3 = _markdown(LESSONS[0]), _markdown(LESSONS[1]), _markdown(LESSONS[2])
    # Lesson 1: 2N to serve, 6N to train
    assert "about **2N FLOPs per token**" in l1 and "about **6N FLOPs per token**" in l1
    assert roofline.forward_flops_per_token(1.0) == 2 and roofline.training_flops_per_token(1.0) == 6
    # Lesson 2's component table
    rows = dict(re.findall(r"^\| (working weights|gradients|master weights|Adam moments m and v) \| \w+ \| ([\d +]+) \|",
                           l2, flags=re.MULTILINE))
    table = {k: sum(int(x) for x in v.split("+")) for k, v in rows.items()}
    assert table == {"working weights": 2, "gradients": 2, "master weights": 4, "Adam moments m and v": 8}
    assert list(table.values()) == list(memory.training_breakdown(2).values())
    assert "Mixed-precision AdamW training needs 16 bytes/param (8x the BF16 weights)" in l2
    assert memory.bytes_per_param("training") == 16 and memory.training_multiple_of_weights(2) == 8
    # Lesson 3: "about 1 FLOP per byte" for batch-1 BF16 matmuls
    assert "about 1 FLOP per byte" in l3
    assert round(roofline.decode_matmul_intensity(1, 4096, 11008)) == 1


def test_no_lesson_types_a_computed_ratio_that_code_should_print():
    # The seeds' wrong figures may be quoted; our own computed results are printed from code.
    for name in LESSONS:
        text = _markdown(name)
        for figure in ("1,120 GB", "153 FLOP", "295 FLOP", "39%"):
            assert figure not in text, f"{name} types {figure!r}; print it from code"
