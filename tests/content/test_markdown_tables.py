"""Every markdown table in lessons and labs names each column: a screen reader reads the header cell
before each value, and an empty one reads as nothing (axe: empty-table-header)."""
from __future__ import annotations

import re

import nbformat

from paths import ROOT


ROW = re.compile(r"^\s*\|(.*)\|\s*$")
RULE = re.compile(r"^\s*\|?\s*:?-{3,}")


def table_headers(source: str):
    """The header row of each table in a markdown source: the row just above a |---| rule."""
    lines = source.splitlines()
    for above, line in zip(lines, lines[1:]):
        if RULE.match(line) and ROW.match(above):
            yield [cell.strip() for cell in ROW.match(above).group(1).split("|")]


def test_header_cells_are_named():
    empty = []
    notebooks = [p for folder in ("course", "labs", "solutions") for p in sorted((ROOT / folder).rglob("*.ipynb"))]
    assert len(notebooks) > 30, notebooks
    for path in notebooks:
        for cell in nbformat.read(path, as_version=4).cells:
            if cell.cell_type == "markdown":
                empty += [f"{path.relative_to(ROOT)}: | {' | '.join(h)} |" for h in table_headers(cell.source)
                          if not all(h)]
    assert not empty, "tables with an empty header cell:\n" + "\n".join(empty)


def test_an_empty_header_is_found():
    assert [h for h in table_headers("| | a |\n|---|---|\n| x | 1 |") if not all(h)]
