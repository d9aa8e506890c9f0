"""docs/DESIGN.md's pipeline block is true (issue 53): every file it names is where it says, and every
module of a stage folder it draws is named there, so a reader who trusts the drawing finds each file.

A line that starts a stage (`judge/  engine.py: ...`) opens that folder; a name with a slash
(`quiz/grade.py`, `sandbox/standins.py`) is read from autograder/, one under coursekit/ from the root, and
a floor module's name (`submitted.py`) from autograder/ itself.
"""
from __future__ import annotations

import re
from pathlib import Path

from paths import ROOT

STAGE = re.compile(r"^(?:\s*\|\s+)?([a-z_]+)/\s+")
NAMED = re.compile(r"(?<![\w/.-])((?:[a-z_]+/)*[a-z_]+\.py)\b")


def pipeline_block() -> str:
    text = (ROOT / "docs" / "DESIGN.md").read_text(encoding="utf-8")
    section = text.split("## The grading pipeline", 1)[1]
    return re.search(r"```\n(.*?)```", section, re.S).group(1)


def named_files(block: str) -> dict[Path, str]:
    """Each file the block names -> the stage line it appears under."""
    found, stage = {}, None
    for line in block.splitlines():
        opened = STAGE.match(line)
        if opened and (ROOT / "autograder" / opened.group(1)).is_dir():
            stage = opened.group(1)
        for name in NAMED.findall(line):
            if name.startswith("coursekit/"):
                path = ROOT / name
            elif "/" in name:
                path = ROOT / "autograder" / name
            elif stage and not (ROOT / "autograder" / name).is_file():
                path = ROOT / "autograder" / stage / name
            elif (ROOT / "autograder" / name).is_file():
                path = ROOT / "autograder" / name          # the floor's modules: course.py, submitted.py
            else:
                continue
            found.setdefault(path, stage or "")
    return found


def drawn_stages(block: str) -> set[str]:
    return {m.group(1) for line in block.splitlines() if (m := STAGE.match(line))
            and (ROOT / "autograder" / m.group(1)).is_dir()}


def test_every_file_the_pipeline_names_exists():
    named = named_files(pipeline_block())
    assert len(named) > 40, "the block reader found too few names to mean anything"
    missing = [f"{path.relative_to(ROOT)} (under {stage}/)" for path, stage in named.items() if not path.is_file()]
    assert not missing, "docs/DESIGN.md's pipeline names files that are not there:\n" + "\n".join(missing)


def test_every_module_of_a_drawn_stage_is_named():
    block = pipeline_block()
    named = set(named_files(block))
    unnamed = [str(p.relative_to(ROOT)) for stage in sorted(drawn_stages(block))
               for p in sorted((ROOT / "autograder" / stage).glob("*.py"))
               if p.name != "__init__.py" and p not in named]
    assert not unnamed, "modules docs/DESIGN.md's pipeline block does not name:\n" + "\n".join(unnamed)


def test_every_stage_folder_is_drawn():
    folders = {p.name for p in (ROOT / "autograder").iterdir() if p.is_dir() and (p / "__init__.py").is_file()}
    assert folders - drawn_stages(pipeline_block()) == set(), "stage folders docs/DESIGN.md does not draw"


def test_the_reader_sees_a_misplaced_file():
    block = "collect/     intake.py (folders), late.py (due dates)\n   v\nrecord/      store.py\n"
    named = named_files(block)
    assert ROOT / "autograder" / "collect" / "late.py" in named
    assert not (ROOT / "autograder" / "collect" / "late.py").is_file()
