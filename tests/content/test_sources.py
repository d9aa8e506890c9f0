"""Students meet the source documents by name: no "seed NNN" anywhere they read, one reading list built
from coursekit.sources, and errata pages that read as claim / source / correction / reference tables."""
from __future__ import annotations

import re

import pytest

from coursekit import sources
from paths import ROOT

STUDENT_FACING = sorted([*ROOT.glob("course/**/*.ipynb"), *ROOT.glob("labs/**/*.ipynb"), *ROOT.glob("solutions/**/*.ipynb"),
                         *ROOT.glob("quizzes/m*/*.yaml"), *ROOT.glob("docs/errata/*.md"), ROOT / "docs" / "reading-list.md",
                         *ROOT.glob("coursekit/calc/*.py"), ROOT / "coursekit" / "hardware.py", ROOT / "coursekit" / "model_configs.py"])
SEED_REF = re.compile(r"\bseeds? 0\d\d\b", re.IGNORECASE)   # prose; quiz ids like m1-l2-seed003 stay stable


@pytest.mark.parametrize("path", STUDENT_FACING, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_seed_numbers_in_student_facing_text(path):
    hits = SEED_REF.findall(path.read_text(encoding="utf-8"))
    assert not hits, f"{path.relative_to(ROOT)} cites sources by file number: {hits[:3]}; use coursekit.sources names"


def test_reading_list_is_generated_from_the_sources_table():
    assert sources.main(["--check"]) == 0, "run python -m coursekit.sources"
    text = sources.reading_list_path().read_text()
    for s in sources.SOURCES.values():
        assert s.citation in text and s.reliability in text
        for module in s.errata:
            assert (ROOT / "docs" / "errata" / f"{module}.md").exists()


@pytest.mark.parametrize("module", ["m1", "m2", "m3", "m4", "m5", "m6", "m7"])
def test_errata_pages_are_claim_source_correction_reference_tables(module):
    text = (ROOT / "docs" / "errata" / f"{module}.md").read_text()
    assert "| # | claim | source | correction | reference | taught in |" in text
    names = tuple(s.short.lower() for s in sources.SOURCES.values())
    main_table = text.split("## Corrections to this course's own earlier text")[0]
    rows = [r for r in main_table.splitlines() if re.match(r"\| \d+ \|", r)]
    assert rows, f"{module}: no errata rows"
    for row in rows:
        cells = [c.strip() for c in row.strip("|").split(" | ")]
        assert len(cells) == 6 and all(cells), f"{module}: incomplete row {row[:80]}"
        assert cells[2].lower().startswith(names), f"{module}: row {cells[0]} names no known source: {cells[2]}"


@pytest.mark.parametrize("path", sorted(ROOT.glob("course/m*/0*.ipynb")), ids=lambda p: p.name)
def test_each_lesson_points_to_the_reading_list(path):
    import nbformat

    intro = nbformat.read(path, as_version=4).cells[0].source
    assert "[reading list](../../docs/reading-list.md)" in intro
    assert (path.parent / "../../docs/reading-list.md").resolve().exists()


# A source document's file label used as a name (SEED003_PRICE_PER_1K); quiz item ids like m1-l2-seed003 stay.
SOURCE_LABEL = re.compile(r"(?<![-\w])seed_?\d{3}\w*", re.IGNORECASE)
NOTEBOOKS = sorted([*ROOT.glob("course/**/*.ipynb"), *ROOT.glob("labs/**/*.ipynb"), *ROOT.glob("solutions/**/*.ipynb")])


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_source_labels_in_code_cells_or_outputs(path):
    import nbformat

    for n, cell in enumerate(nbformat.read(path, as_version=4).cells, 1):
        if cell.cell_type != "code":
            continue
        shown = cell.source + "".join(str(o) for o in cell.get("outputs", []))
        hits = SOURCE_LABEL.findall(shown)
        assert not hits, (f"{path.relative_to(ROOT)} cell {n} shows source-document labels {hits[:3]}; "
                          "name constants for what they are and cite the source as coursekit.sources does")


def test_coursekit_exports_no_source_labels():
    """What lesson code can reach (coursekit's module-level names) is named for what it is."""
    modules = sorted(ROOT.glob("coursekit/**/*.py"))
    assert len(modules) > 50, modules
    for path in modules:
        names = re.findall(r"^([A-Za-z_]\w*)\s*=", path.read_text(encoding="utf-8"), flags=re.MULTILINE)
        labelled = [n for n in names if SOURCE_LABEL.fullmatch(n)]
        assert not labelled, f"{path.relative_to(ROOT)} defines {labelled}; rename them for what they are"
