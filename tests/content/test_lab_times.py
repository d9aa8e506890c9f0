"""A lab's introduction states only a full-run time measured by benchmarks/lab_full_runs.py and
recorded in benchmarks/RESULTS.md, and every lab recorded there states it, in the solution and in the
generated student version alike; no introduction promises a time nobody measured."""
from __future__ import annotations

import re

import nbformat
import pytest

from paths import ROOT

LABS = sorted(p.name for p in (ROOT / "solutions").iterdir() if p.is_dir())
STATED = r"Run All took about (\d+)\s+s\s+on\s+a\s+2-core\s+CPU"


def recorded_full_runs() -> dict[str, float]:
    """The latest table of benchmarks/lab_full_runs.py in RESULTS.md: lab -> full-run seconds."""
    text = (ROOT / "benchmarks" / "RESULTS.md").read_text()
    section = text.rsplit("## Lab full runs", 1)[-1].split("\n## ", 1)[0]   # up to the next section
    return {m.group(1): float(m.group(2)) for m in re.finditer(r"^\| (lab\S+) \| ([\d.]+) \|", section, re.M)}


@pytest.mark.parametrize("lab", LABS)
def test_no_introduction_promises_an_unmeasured_time(lab):
    for folder in ("solutions", "labs"):
        intro = nbformat.read(ROOT / folder / lab / f"{lab}.ipynb", as_version=4).cells[0].source
        assert "about a minute" not in intro, f"{folder}/{lab}"
        stated = re.search(STATED, intro)
        if stated:   # a stated time is the recorded one
            assert int(stated.group(1)) == round(recorded_full_runs()[lab]), (folder, lab, stated.group(0))


@pytest.mark.parametrize("lab", sorted(recorded_full_runs()))
def test_each_measured_lab_states_its_time(lab):
    for folder in ("solutions", "labs"):
        intro = nbformat.read(ROOT / folder / lab / f"{lab}.ipynb", as_version=4).cells[0].source
        assert re.search(STATED, intro), f"{folder}/{lab}: the introduction does not state its measured run time"
